package kubectl_workload.rules.cronjob_starting_deadline_too_short_test

import data.kubectl_workload.rules.cronjob_starting_deadline_too_short as rule
import rego.v1

cronjob(spec) := {"object": {"apiVersion": "batch/v1", "kind": "CronJob", "spec": object.union(
	{"schedule": "*/5 * * * *", "jobTemplate": {"spec": {}}},
	spec,
)}}

test_five_seconds if {
	fs := rule.findings with input as cronjob({"startingDeadlineSeconds": 5})
	count(fs) == 1
	some f in fs
	f.path == "spec.startingDeadlineSeconds"
	contains(f.msg, "startingDeadlineSeconds 5 is under 10")
	contains(f.msg, "more than 5 s")
}

test_nine_seconds if {
	count(rule.findings) == 1 with input as cronjob({"startingDeadlineSeconds": 9})
}

test_zero_never_runs if {
	fs := rule.findings with input as cronjob({"startingDeadlineSeconds": 0})
	some f in fs
	contains(f.msg, "never starts a Job")
}

test_ten_seconds_is_enough if {
	count(rule.findings) == 0 with input as cronjob({"startingDeadlineSeconds": 10})
}

test_unset_is_fine if {
	count(rule.findings) == 0 with input as cronjob({})
}

test_null_is_fine if {
	count(rule.findings) == 0 with input as cronjob({"startingDeadlineSeconds": null})
}

test_other_kinds_ignored if {
	count(rule.findings) == 0 with input as {"object": {"apiVersion": "example.com/v1", "kind": "CronJob", "spec": {"startingDeadlineSeconds": 1}}}
}
