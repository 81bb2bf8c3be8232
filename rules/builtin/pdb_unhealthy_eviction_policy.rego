# METADATA
# title: PodDisruptionBudget without unhealthyPodEvictionPolicy
# description: |
#   With unhealthyPodEvictionPolicy unset (IfHealthyBudget), a pod that is
#   running but not Ready (crash-looping, stuck starting) can be evicted only
#   while the budget is met: when the workload is already unhealthy, its broken
#   pods block every node drain, although evicting them harms nothing.
#   AlwaysAllow lets them go. Reported for every PodDisruptionBudget that does
#   not set the field.
# custom:
#   id: pdb/unhealthy-eviction-policy
#   severity: info
#   kinds: [PodDisruptionBudget]
#   remediation: Set spec.unhealthyPodEvictionPolicy to AlwaysAllow, unless the application needs IfHealthyBudget's protection of not-ready pods.
package kubectl_workload.rules.pdb_unhealthy_eviction_policy

import rego.v1

findings contains f if {
	input.object.kind == "PodDisruptionBudget"
	not input.object.spec.unhealthyPodEvictionPolicy
	f := {
		"msg": sprintf("PodDisruptionBudget %s does not set unhealthyPodEvictionPolicy: its pods that run but are not Ready block node drains whenever the budget is not met (IfHealthyBudget)", [input.object.metadata.name]),
		"path": "spec",
	}
}
