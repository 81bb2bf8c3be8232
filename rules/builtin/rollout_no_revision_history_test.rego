package kubectl_workload.rules.rollout_no_revision_history_test

import data.kubectl_workload.rules.rollout_no_revision_history
import rego.v1

obj(kind, spec) := {"object": {"kind": kind, "spec": spec}, "defaulted": {"kind": kind, "spec": spec}}

test_deployment_zero if {
	fs := rollout_no_revision_history.findings with input as obj("Deployment", {"revisionHistoryLimit": 0})
	count(fs) == 1
	some f in fs
	f.path == "spec.revisionHistoryLimit"
	contains(f.msg, "revisionHistoryLimit is 0")
	contains(f.msg, "old ReplicaSet")
}

test_statefulset_zero if {
	fs := rollout_no_revision_history.findings with input as obj("StatefulSet", {"revisionHistoryLimit": 0})
	some f in fs
	contains(f.msg, "ControllerRevision")
}

test_daemonset_zero if {
	fs := rollout_no_revision_history.findings with input as obj("DaemonSet", {"revisionHistoryLimit": 0})
	count(fs) == 1
}

test_one_revision_is_enough if {
	count(rollout_no_revision_history.findings) == 0 with input as obj("Deployment", {"revisionHistoryLimit": 1})
}

test_default_is_silent if {
	# Defaulted to 10; only the object as written is read.
	inp := {"object": {"kind": "Deployment", "spec": {}}, "defaulted": {"kind": "Deployment", "spec": {"revisionHistoryLimit": 10}}}
	count(rollout_no_revision_history.findings) == 0 with input as inp
}

test_other_kinds_are_silent if {
	count(rollout_no_revision_history.findings) == 0 with input as obj("ReplicaSet", {"revisionHistoryLimit": 0})
}
