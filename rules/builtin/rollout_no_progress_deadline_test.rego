package kubectl_workload.rules.rollout_no_progress_deadline_test

import data.kubectl_workload.rules.rollout_no_progress_deadline
import rego.v1

dep(spec) := {"object": {"kind": "Deployment", "spec": spec}, "defaulted": {"kind": "Deployment", "spec": spec}}

test_max_int32 if {
	fs := rollout_no_progress_deadline.findings with input as dep({"progressDeadlineSeconds": 2147483647})
	count(fs) == 1
	some f in fs
	f.path == "spec.progressDeadlineSeconds"
	contains(f.msg, "progressDeadlineSeconds is 2147483647 (math.MaxInt32)")
}

test_one_below_max_is_a_real_deadline if {
	count(rollout_no_progress_deadline.findings) == 0 with input as dep({"progressDeadlineSeconds": 2147483646})
}

test_default_is_silent if {
	inp := {"object": {"kind": "Deployment", "spec": {}}, "defaulted": {"kind": "Deployment", "spec": {"progressDeadlineSeconds": 600}}}
	count(rollout_no_progress_deadline.findings) == 0 with input as inp
}

test_short_deadline_is_silent if {
	count(rollout_no_progress_deadline.findings) == 0 with input as dep({"progressDeadlineSeconds": 120})
}

test_other_kinds_are_silent if {
	inp := {"object": {"kind": "StatefulSet", "spec": {"progressDeadlineSeconds": 2147483647}}}
	count(rollout_no_progress_deadline.findings) == 0 with input as inp
}
