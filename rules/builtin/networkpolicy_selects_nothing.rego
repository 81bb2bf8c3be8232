# METADATA
# title: NetworkPolicy that selects no pod
# description: |
#   A NetworkPolicy applies to the pods of its own namespace that its
#   spec.podSelector selects (an empty podSelector selects every pod of the
#   namespace). A selector that matches none of them isolates nothing: the
#   pods it was written for stay open to all traffic, and nothing says so.
#   Reported, like service/no-matching-workload, only when the input shows
#   what the policy was meant for: a workload of the policy's namespace named
#   like it, or one whose pod template carries every label of the selector's
#   matchLabels but one.
# custom:
#   id: networkpolicy/selects-nothing
#   severity: warning
#   kinds: [NetworkPolicy]
#   remediation: Fix spec.podSelector so that it matches the pod template labels of the workload it protects, in the workload's namespace.
package kubectl_workload.rules.networkpolicy_selects_nothing

import data.kubectl_workload.lib.xref
import rego.v1

findings contains f if {
	input.object.kind == "NetworkPolicy"
	sel := object.get(input.object, ["spec", "podSelector"], {})
	match := object.get(sel, "matchLabels", {})
	count(match) + count(object.get(sel, "matchExpressions", [])) > 0
	xref.has_workloads
	not xref.selects_workload(sel)
	intended := xref.intended(match, input.object.metadata.name)
	intended.count > 0
	f := {
		"msg": sprintf(
			"NetworkPolicy %s selects %s, which matches no pod template or Pod of the %s in namespace %s, so it isolates nothing; it was probably meant for %s",
			[input.object.metadata.name, xref.format_labels(match), xref.quantity(xref.workload_count, "workload"), input.namespace, xref.describe_intended(intended)],
		),
		"path": "spec.podSelector",
	}
}
