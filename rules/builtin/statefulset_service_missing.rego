# METADATA
# title: StatefulSet's governing Service is missing
# description: |
#   A StatefulSet's spec.serviceName names the headless Service that gives each
#   pod a stable DNS name, <pod>.<serviceName>.<namespace>.svc. The StatefulSet
#   is created without it (serviceName is optional, validated only as a DNS
#   label when set, and never checked against existing Services), and the
#   StatefulSet controller still sets each pod's subdomain to it, but cluster
#   DNS publishes no per-pod records until a headless Service of that name
#   selects the pods. Reported when the input
#   holds Services in the StatefulSet's namespace but none with that name;
#   when the input holds no Service there, the rule stays silent.
# custom:
#   id: statefulset/service-missing
#   severity: warning
#   kinds: [StatefulSet]
#   remediation: Add a headless Service (clusterIP None) named as spec.serviceName whose selector selects the StatefulSet's pods, or correct spec.serviceName.
package kubectl_workload.rules.statefulset_service_missing

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

findings contains f if {
	input.object.kind == "StatefulSet"
	service_name := object.get(input.object, ["spec", "serviceName"], "")
	service_name != ""
	lib.has_kind("Service")
	not lib.index.objects[concat("/", ["Service", service_name])]
	f := {
		"msg": sprintf(
			"StatefulSet %s names Service %s in spec.serviceName, but no Service of the input in namespace %s (it holds %s) is called %s%s: its pods get no stable DNS names such as %s-0.%s.%s.svc",
			[
				input.object.metadata.name, service_name, input.namespace, xref.quantity(lib.index.count.Service, "Service"), service_name,
				headless_hint, input.object.metadata.name, service_name, input.namespace,
			],
		),
		"path": "spec.serviceName",
	}
}

# headless_hint names a Service of the input that selects the StatefulSet's
# pods, when there is one: probably the one serviceName meant.
headless_hint := sprintf(" (%s selects its pods)", [xref.describe_list(keys)]) if {
	keys := xref.selectors_matching(object.get(input.defaulted, ["spec", "template", "metadata", "labels"], {}), {"Service"})
	count(keys) > 0
} else := ""
