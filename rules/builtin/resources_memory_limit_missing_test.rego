package kubectl_workload.rules.resources_memory_limit_missing_test

import data.kubectl_workload.rules.resources_memory_limit_missing
import rego.v1

pod(resources) := {"object": {"kind": "Pod", "spec": {"initContainers": [{"name": "init", "resources": {"limits": {"memory": "64Mi"}}}], "containers": [{"name": "web", "resources": resources}]}}}

test_missing if {
	fs := resources_memory_limit_missing.findings with input as pod({"requests": {"memory": "1Gi"}})
	count(fs) == 1
	some f in fs
	f.path == "spec.containers[0].resources"
	contains(f.msg, `container "web" has no memory limit`)
}

test_set if {
	count(resources_memory_limit_missing.findings) == 0 with input as pod({"limits": {"memory": "1Gi"}})
}
