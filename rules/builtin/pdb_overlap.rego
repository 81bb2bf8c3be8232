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
#   selects too. A budget that shares more than 5 workloads with other
#   budgets gets one finding that counts them and names the first 5 (the
#   count is the finding's related count in JSON and SARIF), and a message
#   names at most 5 other budgets, so n alike budgets give n findings, not
#   n².
# custom:
#   id: pdb/overlap
#   severity: error
#   kinds: [PodDisruptionBudget]
#   remediation: Make the budgets' selectors disjoint, so that each pod has at most one PodDisruptionBudget.
package kubectl_workload.rules.pdb_overlap

import data.kubectl_workload.lib.xref
import rego.v1

# max_named is how many shared workloads get a finding of their own, and how
# many other budgets a message names; beyond it one finding counts them.
max_named := 5

sel := xref.selector_of(input.object)

# related is the workloads this budget shares with another budget, bounded:
# the first max_named, sorted, each with the first max_named other budgets'
# names and their count, and how many workloads there are; as the inventory
# computed them (rules/bounded.go), else from every selected workload.
related := r if {
	r := xref.entry(input.key).pdb_overlaps
} else := {"first": array.slice(all_shared, 0, max_named), "count": count(all_shared)}

all_shared := [{"key": w, "others": array.slice(names, 0, max_named), "others_count": count(names)} |
	some w in sort(xref.all_workloads_selected_by(sel))
	names := sort([xref.name_of(o) | some o in xref.selectors_matching(xref.pod_labels(xref.entry(w)), {"PodDisruptionBudget"}) - {input.key}])
	count(names) > 0
]

others_text(s) := concat(", ", s.others) if {
	s.others_count <= max_named
} else := sprintf("%s and %d more", [concat(", ", s.others), s.others_count - max_named])

findings contains f if {
	input.object.kind == "PodDisruptionBudget"
	sel != null
	related.count <= max_named
	some s in related.first
	f := object.union(
		{
			"msg": sprintf("PodDisruptionBudget %s and %s both select the pods of %s: the eviction API refuses to evict a pod with more than one budget, so node drains never move them", [input.object.metadata.name, others_text(s), xref.describe(s.key)]),
			"path": "spec.selector",
		},
		{"related_count": s.others_count | s.others_count > max_named},
	)
}

findings contains f if {
	input.object.kind == "PodDisruptionBudget"
	sel != null
	related.count > max_named
	f := {
		"msg": sprintf("PodDisruptionBudget %s selects the pods of %d workloads that other budgets select too: %s and %d more. The eviction API refuses to evict a pod with more than one budget, so node drains never move them", [input.object.metadata.name, related.count, concat("; ", [sprintf("%s (also %s)", [xref.describe(s.key), others_text(s)]) | some s in related.first]), related.count - max_named]),
		"path": "spec.selector",
		"related_count": related.count,
	}
}
