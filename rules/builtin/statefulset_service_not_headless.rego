# METADATA
# title: StatefulSet's governing Service is not headless
# description: |
#   A StatefulSet's spec.serviceName names the governing Service that gives each
#   pod a stable DNS name, <pod>.<serviceName>.<namespace>.svc: the StatefulSet
#   controller sets each pod's hostname and subdomain to it, and cluster DNS
#   publishes per-pod records only for a headless Service (clusterIP: None)
#   whose selector selects the pods. When the Service of that name in the input
#   has a cluster IP (clusterIP unset, or an address) or is an ExternalName
#   Service, the pods get no stable DNS names, and peers that find each other
#   by them (databases, quorum systems) cannot.
# custom:
#   id: statefulset/service-not-headless
#   severity: warning
#   kinds: [StatefulSet]
#   remediation: Set clusterIP to None in the Service that spec.serviceName names, or point spec.serviceName at a headless Service (a separate Service can keep a cluster IP for clients).
package kubectl_workload.rules.statefulset_service_not_headless

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

findings contains f if {
	input.object.kind == "StatefulSet"
	service_name := object.get(input.object, ["spec", "serviceName"], "")
	service_name != ""
	service := lib.index.objects[concat("/", ["Service", service_name])]
	not headless(service.spec)
	f := {
		"msg": sprintf(
			"StatefulSet %s names Service %s in spec.serviceName, but that Service is not headless (%s): its pods (%s) get no stable DNS names such as %s-0.%s.%s.svc",
			[input.object.metadata.name, service_name, why(service.spec), xref.quantity(replicas, "replica"), input.object.metadata.name, service_name, input.namespace],
		),
		"path": "spec.serviceName",
	}
}

replicas := object.get(input.defaulted, ["spec", "replicas"], 1)

headless(spec) if object.get(spec, "clusterIP", "") == "None"

# A Service written with clusterIPs only (no clusterIP) and None first is
# headless too.
headless(spec) if {
	object.get(spec, "clusterIP", "") == ""
	object.get(spec, ["clusterIPs", 0], "") == "None"
}

why(spec) := "type ExternalName" if {
	object.get(spec, "type", "") == "ExternalName"
} else := sprintf("clusterIP %s", [spec.clusterIP]) if {
	object.get(spec, "clusterIP", "") != ""
} else := "clusterIP unset, so the API server allocates one"
