# METADATA
# title: Service selects no workload
# description: |
#   A Service with a selector gets its endpoints from the pods that the selector
#   matches (the EndpointSlice controller lists pods in the Service's namespace
#   by spec.selector, every key=value pair required). When no workload of the
#   input in that namespace (the pod template of a Deployment, ReplicaSet,
#   StatefulSet, DaemonSet, Job, CronJob or ReplicationController, or a Pod's
#   labels) carries every label of the selector, the Service has no endpoints
#   and connections to it are refused: usually a typo or a label changed on one
#   side only. Services without a selector (ExternalName, or endpoints managed
#   by hand) are not checked. The rule reports only when the input shows which
#   workload the Service was meant for: one named like the Service, or one
#   whose pod template carries every key=value pair of the selector but one.
#   When the input holds no such workload in the namespace (none at all, or
#   only unrelated ones, as when the Service fronts pods of a separately
#   installed chart or operator), it stays silent: the Service's pods are
#   defined elsewhere.
# custom:
#   id: service/no-matching-workload
#   severity: warning
#   kinds: [Service]
#   remediation: Make spec.selector match the pod template labels of the workload the Service is for.
package kubectl_workload.rules.service_no_matching_workload

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

findings contains f if {
	input.object.kind == "Service"
	object.get(input.object, ["spec", "type"], "ClusterIP") != "ExternalName"
	selector := object.get(input.object, ["spec", "selector"], {})
	is_object(selector)
	count(selector) > 0
	xref.has_workloads
	sel := {"matchLabels": selector}
	not xref.selects_workload(sel)
	intended := xref.intended(selector, input.object.metadata.name)
	intended.count > 0
	f := {
		"msg": sprintf(
			"Service %s selects %s, which matches no pod template or Pod of the %s in namespace %s, so the Service has no endpoints; it was probably meant for %s",
			[lib.display_name, xref.format_labels(selector), xref.quantity(xref.workload_count, "workload"), input.namespace, xref.describe_intended(intended)],
		),
		"path": "spec.selector",
	}
}
