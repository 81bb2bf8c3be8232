package kubectl_workload.rules.resources_requests_missing_test

import data.kubectl_workload.rules.resources_requests_missing
import rego.v1

dep(resources) := {"object": {"kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"name": "web", "image": "web:1", "resources": resources}]}}}}}

test_none if {
	fs := resources_requests_missing.findings with input as dep({})
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.containers[0].resources"
	contains(f.msg, `container "web" requests no cpu and no memory`)
}

test_memory_only if {
	fs := resources_requests_missing.findings with input as dep({"requests": {"memory": "128Mi"}})
	some f in fs
	contains(f.msg, "requests no cpu (")
}

test_limits_default_requests if {
	count(resources_requests_missing.findings) == 0 with input as dep({"limits": {"cpu": "1", "memory": "1Gi"}})
}

test_both if {
	count(resources_requests_missing.findings) == 0 with input as dep({"requests": {"cpu": "100m", "memory": "128Mi"}})
}

test_owned_replicaset if {
	rs := {"object": {"kind": "ReplicaSet", "metadata": {"ownerReferences": [{"kind": "Deployment", "controller": true}]}, "spec": {"template": {"spec": {"containers": [{"name": "web"}]}}}}}
	count(resources_requests_missing.findings) == 0 with input as rs
}
