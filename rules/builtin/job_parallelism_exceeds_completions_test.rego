package kubectl_workload.rules.job_parallelism_exceeds_completions_test

import data.kubectl_workload.rules.job_parallelism_exceeds_completions as rule
import rego.v1

job(spec) := {"object": {"apiVersion": "batch/v1", "kind": "Job", "spec": spec}}

cronjob(job_spec) := {"object": {"apiVersion": "batch/v1", "kind": "CronJob", "spec": {"schedule": "@daily", "jobTemplate": {"spec": job_spec}}}}

test_job_parallelism_above_completions if {
	fs := rule.findings with input as job({"parallelism": 10, "completions": 4})
	count(fs) == 1
	some f in fs
	f.path == "spec.parallelism"
	contains(f.msg, "parallelism 10 exceeds completions 4")
	contains(f.msg, "at most 4 run and the other 6 never start")
}

test_cronjob_template if {
	fs := rule.findings with input as cronjob({"parallelism": 3, "completions": 1})
	some f in fs
	f.path == "spec.jobTemplate.spec.parallelism"
}

test_equal if {
	count(rule.findings) == 0 with input as job({"parallelism": 4, "completions": 4})
}

test_below if {
	count(rule.findings) == 0 with input as job({"parallelism": 2, "completions": 8})
}

test_work_queue_without_completions if {
	count(rule.findings) == 0 with input as job({"parallelism": 5})
}

test_null_completions if {
	count(rule.findings) == 0 with input as job({"parallelism": 5, "completions": null})
}

test_parallelism_unset if {
	count(rule.findings) == 0 with input as job({"completions": 5})
}

test_zero_completions if {
	fs := rule.findings with input as job({"parallelism": 1, "completions": 0})
	count(fs) == 1
}
