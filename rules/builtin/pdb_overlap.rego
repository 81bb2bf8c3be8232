# METADATA
# title: Pods covered by two PodDisruptionBudgets
# description: |
#   The eviction API refuses to evict a pod that more than one
#   PodDisruptionBudget selects ("This pod has more than one
#   PodDisruptionBudget, which the eviction subresource does not support.",
#   k8s.io/kubernetes pkg/registry/core/pod/storage/eviction.go), so kubectl
#   drain and the cluster autoscaler can never move those pods, and node
#   drains hang. Reported on each budget whose selector selects the pod
#   template (or a Pod) of a workload that another budget of the namespace
#   selects too.
# custom:
#   id: pdb/overlap
#   severity: error
#   kinds: [PodDisruptionBudget]
#   remediation: Make the budgets' selectors disjoint, so that each pod has at most one PodDisruptionBudget.
package kubectl_workload.rules.pdb_overlap

import data.kubectl_workload.lib.xref
import rego.v1

findings contains f if {
	input.object.kind == "PodDisruptionBudget"
	sel := xref.selector_of(input.object)
	sel != null
	some w in xref.all_workloads_selected_by(sel)
	others := xref.selectors_matching(xref.pod_labels(xref.entry(w)), {"PodDisruptionBudget"}) - {input.key}
	count(others) > 0
	f := {
		"msg": sprintf("PodDisruptionBudget %s and %s both select the pods of %s: the eviction API refuses to evict a pod with more than one budget, so node drains never move them", [input.object.metadata.name, concat(", ", sort([xref.name_of(o) | some o in others])), xref.describe(w)]),
		"path": "spec.selector",
	}
}
