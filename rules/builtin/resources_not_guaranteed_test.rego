package kubectl_workload.rules.resources_not_guaranteed_test

import data.kubectl_workload.rules.resources_not_guaranteed
import rego.v1

pod(resources) := {"object": {"kind": "Pod", "spec": {"containers": [{"name": "web", "resources": resources}]}}}

test_requests_below_limits if {
	fs := resources_not_guaranteed.findings with input as pod({"requests": {"cpu": "250m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}})
	count(fs) == 1
	some f in fs
	f.path == "spec.containers[0].resources"
	contains(f.msg, `container "web" requests cpu 250m, not its limit 1, so its pod is not in the Guaranteed QoS class`)
}

test_no_limits if {
	fs := resources_not_guaranteed.findings with input as pod({"requests": {"cpu": "1", "memory": "1Gi"}})
	count(fs) == 1
	some f in fs
	contains(f.msg, "sets no cpu limit and sets no memory limit")
}

test_equal_by_value if {
	count(resources_not_guaranteed.findings) == 0 with input as pod({"requests": {"cpu": "500m", "memory": "1024Mi"}, "limits": {"cpu": "0.5", "memory": "1Gi"}})
}

test_limits_only if {
	count(resources_not_guaranteed.findings) == 0 with input as pod({"limits": {"cpu": "1", "memory": "1Gi"}})
}

test_init_container if {
	p := {"object": {"kind": "Pod", "spec": {
		"initContainers": [{"name": "setup", "resources": {"limits": {"cpu": "1"}}}],
		"containers": [{"name": "web", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}],
	}}}
	fs := resources_not_guaranteed.findings with input as p
	count(fs) == 1
	some f in fs
	f.path == "spec.initContainers[0].resources"
	contains(f.msg, `init container "setup" sets no memory limit`)
}
