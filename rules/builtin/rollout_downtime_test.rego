package kubectl_workload.rules.rollout_downtime_test

import data.kubectl_workload.rules.rollout_downtime
import rego.v1

dep(replicas, surge, unavailable, resolved_surge, resolved_unavailable) := {
	"object": {"kind": "Deployment", "spec": {"replicas": replicas, "strategy": {"rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}}},
	"facts": {"deployment": {
		"replicas": replicas, "strategy": "RollingUpdate",
		"maxSurge": resolved_surge, "maxUnavailable": resolved_unavailable,
		"maxSurgeInput": sprintf("%v", [surge]), "maxUnavailableInput": sprintf("%v", [unavailable]),
	}},
}

test_one_replica_no_surge if {
	fs := rollout_downtime.findings with input as dep(1, 0, 1, 0, 1)
	count(fs) == 1
	some f in fs
	f.path == "spec.strategy.rollingUpdate.maxSurge"
	contains(f.msg, "all 1 pods down")
}

test_percentages_resolving_to_zero_zero_on_three_replicas if {
	# 25% of 3 rounds down to 0; with maxSurge 0 the controller forces 1.
	fs := rollout_downtime.findings with input as dep(3, 0, "25%", 0, 1)
	count(fs) == 1
	some f in fs
	contains(f.msg, "forces maxUnavailable to 1")
}

test_default_strategy_is_safe if {
	count(rollout_downtime.findings) == 0 with input as dep(3, "25%", "25%", 1, 0)
}

test_surge_allowed_is_safe if {
	count(rollout_downtime.findings) == 0 with input as dep(1, 1, 1, 1, 1)
}
