package rules

import (
	"fmt"

	policyv1 "k8s.io/api/policy/v1"
)

// pdbUnhealthyEvictionPolicyRule is pdb/unhealthy-eviction-policy.
var pdbUnhealthyEvictionPolicyRule = BuiltinRule{
	Meta: Rule{
		ID:       "pdb/unhealthy-eviction-policy",
		Title:    "PodDisruptionBudget without unhealthyPodEvictionPolicy",
		Severity: SeverityInfo,
		Kinds:    []string{"PodDisruptionBudget"},
		File:     "object_pdb_unhealthy_eviction_policy.go",
		OptIn:    true,
		Measured: "0 of 10 true on 9 inputs",
		Description: `With unhealthyPodEvictionPolicy unset (IfHealthyBudget), a pod that is
running but not Ready (crash-looping, stuck starting) can be evicted only
while the budget is met: when the workload is already unhealthy, its broken
pods block every node drain, although evicting them harms nothing.
AlwaysAllow lets them go. Reported for every PodDisruptionBudget that does
not set the field.`,
		Remediation: "Set spec.unhealthyPodEvictionPolicy to AlwaysAllow, unless the application needs IfHealthyBudget's protection of not-ready pods.",
	},
	Check: checkPDBUnhealthyEvictionPolicy,
}

// checkPDBUnhealthyEvictionPolicy reports a PodDisruptionBudget that does
// not set unhealthyPodEvictionPolicy.
func checkPDBUnhealthyEvictionPolicy(c *ObjectContext) []Finding {
	pdb, ok := c.Object.(*policyv1.PodDisruptionBudget)
	if !ok || pdb.Spec.UnhealthyPodEvictionPolicy != nil || pdb.Name == "" {
		return nil
	}
	return []Finding{{Path: "spec",
		Message: fmt.Sprintf("PodDisruptionBudget %s does not set unhealthyPodEvictionPolicy: its pods that run but are not Ready block node drains whenever the budget is not met (IfHealthyBudget)", pdb.Name)}}
}
