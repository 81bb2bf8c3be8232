package kubectl_workload.rules.job_pod_active_deadline_test

import data.kubectl_workload.rules.job_pod_active_deadline as rule
import rego.v1

job(spec) := {"object": {"apiVersion": "batch/v1", "kind": "Job", "spec": spec}}

cronjob(job_spec) := {"object": {"apiVersion": "batch/v1", "kind": "CronJob", "spec": {"schedule": "@hourly", "jobTemplate": {"spec": job_spec}}}}

pod(deadline) := {"spec": {"restartPolicy": "Never", "activeDeadlineSeconds": deadline}}

test_job_pod_deadline_only if {
	fs := rule.findings with input as job({"template": pod(600)})
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.activeDeadlineSeconds"
	contains(f.msg, "activeDeadlineSeconds 600")
	contains(f.msg, "default backoffLimit 6")
}

test_job_names_written_backoff_limit if {
	fs := rule.findings with input as job({"backoffLimit": 2, "template": pod(60)})
	some f in fs
	contains(f.msg, "until backoffLimit 2 is exceeded")
}

test_job_backoff_limit_per_index if {
	fs := rule.findings with input as job({"completionMode": "Indexed", "completions": 3, "backoffLimitPerIndex": 1, "template": pod(60)})
	some f in fs
	contains(f.msg, "until an index exceeds backoffLimitPerIndex 1")
}

test_cronjob_template if {
	fs := rule.findings with input as cronjob({"template": pod(300)})
	some f in fs
	f.path == "spec.jobTemplate.spec.template.spec.activeDeadlineSeconds"
}

test_job_deadline_also_set if {
	count(rule.findings) == 0 with input as job({"activeDeadlineSeconds": 900, "template": pod(600)})
}

test_cronjob_job_deadline_also_set if {
	count(rule.findings) == 0 with input as cronjob({"activeDeadlineSeconds": 900, "template": pod(300)})
}

test_job_deadline_only if {
	count(rule.findings) == 0 with input as job({"activeDeadlineSeconds": 900, "template": {"spec": {"restartPolicy": "Never"}}})
}

test_pod_kind_ignored if {
	count(rule.findings) == 0 with input as {"object": {"apiVersion": "v1", "kind": "Pod", "spec": {"activeDeadlineSeconds": 60}}}
}
