# METADATA
# title: PodDisruptionBudget selects no workload
# description: |
#   A PodDisruptionBudget protects the pods its spec.selector selects in its
#   namespace; the disruption controller and the eviction API find them by that
#   selector. In policy/v1 an empty selector ({}) selects every pod of the
#   namespace, and a PodDisruptionBudget without a selector selects none. When
#   the selector matches the pod template (or, for a Pod, the labels) of no
#   workload of the input in that namespace, the budget protects nothing and
#   evictions of the pods it was meant for are not limited: usually a typo or
#   a label changed on one side only. A budget without a selector is always
#   reported. Otherwise the rule reports only when the input shows which
#   workload the budget was meant for: one named like it, or one whose pod
#   template carries every matchLabels pair of the selector but one; when it
#   holds none in the namespace, the budget's pods are defined elsewhere and it
#   stays silent.
# custom:
#   id: pdb/no-matching-workload
#   severity: warning
#   kinds: [PodDisruptionBudget]
#   remediation: Make spec.selector match the pod template labels of the workload the budget is for.
package kubectl_workload.rules.pdb_no_matching_workload

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

pdb if input.object.kind == "PodDisruptionBudget"

findings contains f if {
	pdb
	xref.selector_of(input.object) == null
	f := {
		"msg": sprintf(
			"PodDisruptionBudget %s has no selector: in policy/v1 a budget without a selector selects no pods, so it protects nothing in namespace %s (an empty selector, {}, would select every pod there)",
			[lib.display_name, input.namespace],
		),
		"path": "spec",
	}
}

findings contains f if {
	pdb
	xref.has_workloads
	sel := xref.selector_of(input.object)
	sel != null
	not lib.selector_is_empty(sel)
	not xref.selects_workload(sel)
	intended := xref.intended(object.get(sel, "matchLabels", {}), input.object.metadata.name)
	intended.count > 0
	f := {
		"msg": sprintf(
			"PodDisruptionBudget %s selects %s, which matches no pod template or Pod of the %s in namespace %s, so it protects nothing; it was probably meant for %s",
			[lib.display_name, xref.format_selector(sel), xref.quantity(xref.workload_count, "workload"), input.namespace, xref.describe_intended(intended)],
		),
		"path": "spec.selector",
	}
}
