package kubectl_workload.rules.kind_bare_pod_test

import data.kubectl_workload.rules.kind_bare_pod as rule
import rego.v1

pod(metadata, spec) := {"object": {"apiVersion": "v1", "kind": "Pod", "metadata": object.union({"name": "web"}, metadata), "spec": spec}}

test_bare_pod if {
	fs := rule.findings with input as pod({}, {"containers": [{"name": "web", "image": "nginx:1.27"}]})
	count(fs) == 1
	some f in fs
	f.path == "kind"
	contains(f.msg, "Pod web has no ownerReferences")
	contains(f.msg, "Deployment, StatefulSet or DaemonSet")
}

test_run_to_completion_pod_suggests_job if {
	fs := rule.findings with input as pod({}, {"restartPolicy": "Never", "containers": [{"name": "web", "image": "busybox:1.36"}]})
	some f in fs
	endswith(f.msg, "run it from a Job")
}

test_empty_owner_references if {
	count(rule.findings) == 1 with input as pod({"ownerReferences": []}, {})
}

test_owned_pod if {
	refs := [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d9c7b", "uid": "3e0b7d1a-5c4f-4b8e-9a2d-1f6e7c8b9a0d", "controller": true}]
	count(rule.findings) == 0 with input as pod({"ownerReferences": refs}, {})
}

test_pod_template_ignored if {
	count(rule.findings) == 0 with input as {"object": {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "web"}}}
}
