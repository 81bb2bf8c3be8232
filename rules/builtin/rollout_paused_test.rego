package kubectl_workload.rules.rollout_paused_test

import data.kubectl_workload.rules.rollout_paused
import rego.v1

dep(spec, replicas) := {
	"object": {"kind": "Deployment", "spec": spec},
	"defaulted": {"kind": "Deployment", "spec": object.union(spec, {"replicas": replicas})},
}

test_paused if {
	fs := rollout_paused.findings with input as dep({"paused": true, "replicas": 3}, 3)
	count(fs) == 1
	some f in fs
	f.path == "spec.paused"
	contains(f.msg, "none of its 3 replicas start")
}

test_paused_with_defaulted_replicas if {
	fs := rollout_paused.findings with input as dep({"paused": true}, 1)
	some f in fs
	contains(f.msg, "none of its 1 replicas")
}

test_not_paused if {
	count(rollout_paused.findings) == 0 with input as dep({"paused": false}, 3)
}

test_absent if {
	count(rollout_paused.findings) == 0 with input as dep({}, 3)
}

test_other_kinds_are_silent if {
	inp := {"object": {"kind": "CronJob", "spec": {"paused": true}}, "defaulted": {"kind": "CronJob", "spec": {"paused": true}}}
	count(rollout_paused.findings) == 0 with input as inp
}
