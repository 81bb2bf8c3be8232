package kubectl_workload.rules.rollout_recreate_test

import data.kubectl_workload.rules.rollout_recreate
import rego.v1

dep(spec, defaulted_spec) := {
	"object": {"kind": "Deployment", "metadata": {"name": "web"}, "spec": spec},
	"defaulted": {"kind": "Deployment", "metadata": {"name": "web"}, "spec": defaulted_spec},
}

test_recreate_with_default_grace_period if {
	fs := rollout_recreate.findings with input as dep(
		{"replicas": 3, "strategy": {"type": "Recreate"}, "template": {"spec": {}}},
		{"replicas": 3, "strategy": {"type": "Recreate"}, "template": {"spec": {"terminationGracePeriodSeconds": 30}}},
	)
	count(fs) == 1
	some f in fs
	f.path == "spec.strategy.type"
	contains(f.msg, "all 3 pods")
	contains(f.msg, "terminationGracePeriodSeconds 30, the default")
}

test_recreate_with_explicit_grace_period if {
	fs := rollout_recreate.findings with input as dep(
		{"strategy": {"type": "Recreate"}, "template": {"spec": {"terminationGracePeriodSeconds": 120}}},
		{"replicas": 1, "strategy": {"type": "Recreate"}, "template": {"spec": {"terminationGracePeriodSeconds": 120}}},
	)
	count(fs) == 1
	some f in fs
	contains(f.msg, "stops the only pod")
	contains(f.msg, "terminationGracePeriodSeconds 120)")
}

test_rolling_update_is_silent if {
	count(rollout_recreate.findings) == 0 with input as dep(
		{"replicas": 3},
		{"replicas": 3, "strategy": {"type": "RollingUpdate"}, "template": {"spec": {"terminationGracePeriodSeconds": 30}}},
	)
}

test_zero_replicas_is_silent if {
	count(rollout_recreate.findings) == 0 with input as dep(
		{"replicas": 0, "strategy": {"type": "Recreate"}},
		{"replicas": 0, "strategy": {"type": "Recreate"}, "template": {"spec": {"terminationGracePeriodSeconds": 30}}},
	)
}

test_other_kinds_are_silent if {
	inp := {
		"object": {"kind": "StatefulSet", "spec": {"updateStrategy": {"type": "OnDelete"}}},
		"defaulted": {"kind": "StatefulSet", "spec": {"replicas": 1, "strategy": {"type": "Recreate"}}},
	}
	count(rollout_recreate.findings) == 0 with input as inp
}
