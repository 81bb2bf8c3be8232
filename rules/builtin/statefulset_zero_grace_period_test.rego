package kubectl_workload.rules.statefulset_zero_grace_period_test

import data.kubectl_workload.rules.statefulset_zero_grace_period
import rego.v1

obj(kind, pod_spec) := {"object": {"kind": kind, "spec": {"template": {"spec": pod_spec}}}}

test_zero if {
	fs := statefulset_zero_grace_period.findings with input as obj("StatefulSet", {"terminationGracePeriodSeconds": 0})
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.terminationGracePeriodSeconds"
	contains(f.msg, "terminationGracePeriodSeconds is 0")
}

test_one_second_is_graceful if {
	count(statefulset_zero_grace_period.findings) == 0 with input as obj("StatefulSet", {"terminationGracePeriodSeconds": 1})
}

test_default_is_silent if {
	count(statefulset_zero_grace_period.findings) == 0 with input as obj("StatefulSet", {})
}

test_deployments_are_silent if {
	count(statefulset_zero_grace_period.findings) == 0 with input as obj("Deployment", {"terminationGracePeriodSeconds": 0})
}
