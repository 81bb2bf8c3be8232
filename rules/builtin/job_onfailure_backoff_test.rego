package kubectl_workload.rules.job_onfailure_backoff_test

import data.kubectl_workload.rules.job_onfailure_backoff as rule
import rego.v1

job(spec, restart) := {"object": {"apiVersion": "batch/v1", "kind": "Job", "spec": object.union(spec, {"template": {"spec": {"restartPolicy": restart}}})}}

cronjob(spec, restart) := {"object": {"apiVersion": "batch/v1", "kind": "CronJob", "spec": {
	"schedule": "@daily",
	"jobTemplate": {"spec": object.union(spec, {"template": {"spec": {"restartPolicy": restart}}})},
}}}

test_written_backoff_limit if {
	fs := rule.findings with input as job({"backoffLimit": 3}, "OnFailure")
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.restartPolicy"
	contains(f.msg, "with backoffLimit 3")
	contains(f.msg, "once they reach 3")
}

test_default_backoff_limit if {
	fs := rule.findings with input as job({}, "OnFailure")
	some f in fs
	contains(f.msg, "the default backoffLimit 6")
}

test_backoff_limit_zero if {
	fs := rule.findings with input as job({"backoffLimit": 0}, "OnFailure")
	some f in fs
	contains(f.msg, "backoffLimit 0")
	contains(f.msg, "at the first restart")
}

test_cronjob_template if {
	fs := rule.findings with input as cronjob({}, "OnFailure")
	some f in fs
	f.path == "spec.jobTemplate.spec.template.spec.restartPolicy"
	contains(f.msg, "default backoffLimit 6")
}

test_never if {
	count(rule.findings) == 0 with input as job({"backoffLimit": 3}, "Never")
}

test_cronjob_never if {
	count(rule.findings) == 0 with input as cronjob({}, "Never")
}

test_per_index_without_backoff_limit if {
	count(rule.findings) == 0 with input as job({"completionMode": "Indexed", "completions": 4, "backoffLimitPerIndex": 2}, "OnFailure")
}

test_per_index_with_backoff_limit if {
	count(rule.findings) == 1 with input as job({"completionMode": "Indexed", "completions": 4, "backoffLimitPerIndex": 2, "backoffLimit": 5}, "OnFailure")
}
