package kubectl_workload.rules.cronjob_unbounded_concurrency_test

import data.kubectl_workload.rules.cronjob_unbounded_concurrency as rule
import rego.v1

# cronjob builds an input whose defaulted concurrencyPolicy follows SetDefaults_CronJob.
cronjob(spec, job_spec) := {
	"object": {"apiVersion": "batch/v1", "kind": "CronJob", "spec": object.union({"schedule": "*/5 * * * *", "jobTemplate": {"spec": job_spec}}, spec)},
	"defaulted": {"apiVersion": "batch/v1", "kind": "CronJob", "spec": object.union(
		{"schedule": "*/5 * * * *", "concurrencyPolicy": object.get(spec, "concurrencyPolicy", "Allow"), "jobTemplate": {"spec": job_spec}},
		spec,
	)},
}

test_unset_policy_defaults_to_allow if {
	fs := rule.findings with input as cronjob({}, {})
	count(fs) == 1
	some f in fs
	f.path == "spec"
	contains(f.msg, "concurrencyPolicy is unset (Allow by default)")
	contains(f.msg, "\"*/5 * * * *\"")
}

test_explicit_allow if {
	fs := rule.findings with input as cronjob({"concurrencyPolicy": "Allow"}, {"backoffLimit": 2})
	some f in fs
	f.path == "spec.concurrencyPolicy"
	contains(f.msg, "concurrencyPolicy is Allow")
}

test_allow_with_job_deadline if {
	count(rule.findings) == 0 with input as cronjob({"concurrencyPolicy": "Allow"}, {"activeDeadlineSeconds": 300})
}

test_allow_with_zero_job_deadline_counts_as_set if {
	count(rule.findings) == 0 with input as cronjob({}, {"activeDeadlineSeconds": 0})
}

test_forbid if {
	count(rule.findings) == 0 with input as cronjob({"concurrencyPolicy": "Forbid"}, {})
}

test_replace if {
	count(rule.findings) == 0 with input as cronjob({"concurrencyPolicy": "Replace"}, {})
}

test_pod_deadline_does_not_count if {
	# A pod-level deadline bounds each pod, not the run.
	count(rule.findings) == 1 with input as cronjob({}, {"template": {"spec": {"activeDeadlineSeconds": 60}}})
}
