package kubectl_workload.rules.pdb_unhealthy_eviction_policy_test

import data.kubectl_workload.rules.pdb_unhealthy_eviction_policy
import rego.v1

test_unset if {
	count(pdb_unhealthy_eviction_policy.findings) == 1 with input as {"object": {"kind": "PodDisruptionBudget", "metadata": {"name": "web"}, "spec": {"maxUnavailable": 1}}}
}

test_set if {
	count(pdb_unhealthy_eviction_policy.findings) == 0 with input as {"object": {"kind": "PodDisruptionBudget", "metadata": {"name": "web"}, "spec": {"unhealthyPodEvictionPolicy": "AlwaysAllow"}}}
}
