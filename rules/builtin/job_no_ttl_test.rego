package kubectl_workload.rules.job_no_ttl_test

import data.kubectl_workload.rules.job_no_ttl as rule
import rego.v1

job(metadata, spec) := {"object": {
	"apiVersion": "batch/v1", "kind": "Job",
	"metadata": object.union({"name": "migrate"}, metadata),
	"spec": object.union({"template": {"spec": {"restartPolicy": "Never"}}}, spec),
}}

test_no_ttl if {
	fs := rule.findings with input as job({}, {})
	count(fs) == 1
	some f in fs
	f.path == "spec"
	contains(f.msg, "Job migrate has no ttlSecondsAfterFinished")
}

test_ttl_set if {
	count(rule.findings) == 0 with input as job({}, {"ttlSecondsAfterFinished": 3600})
}

test_ttl_zero_counts if {
	count(rule.findings) == 0 with input as job({}, {"ttlSecondsAfterFinished": 0})
}

test_ttl_null_does_not_count if {
	count(rule.findings) == 1 with input as job({}, {"ttlSecondsAfterFinished": null})
}

test_owned_by_cronjob if {
	refs := [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "nightly", "uid": "0b9c3d2e-1111-2222-3333-444455556666", "controller": true}]
	count(rule.findings) == 0 with input as job({"ownerReferences": refs}, {})
}

test_owned_by_something_else if {
	refs := [{"apiVersion": "example.com/v1", "kind": "Pipeline", "name": "p", "uid": "0b9c3d2e-1111-2222-3333-444455556666"}]
	count(rule.findings) == 1 with input as job({"ownerReferences": refs}, {})
}

test_cronjob_itself_ignored if {
	count(rule.findings) == 0 with input as {"object": {"apiVersion": "batch/v1", "kind": "CronJob", "spec": {"jobTemplate": {"spec": {}}}}}
}

test_helm_hook if {
	count(rule.findings) == 0 with input as job({"annotations": {"helm.sh/hook": "pre-install,pre-upgrade"}}, {})
}

test_argocd_hook if {
	count(rule.findings) == 0 with input as job({"annotations": {"argocd.argoproj.io/hook": "PreSync"}}, {})
}

test_argocd_skip_is_not_a_hook if {
	count(rule.findings) == 1 with input as job({"annotations": {"argocd.argoproj.io/hook": "Skip"}}, {})
}
