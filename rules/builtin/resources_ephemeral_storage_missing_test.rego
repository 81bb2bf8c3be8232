package kubectl_workload.rules.resources_ephemeral_storage_missing_test

import data.kubectl_workload.rules.resources_ephemeral_storage_missing
import rego.v1

pod(resources) := {"object": {"kind": "Pod", "spec": {"initContainers": [{"name": "init", "resources": {"limits": {"ephemeral-storage": "1Gi"}}}], "containers": [{"name": "web", "resources": resources}]}}}

test_missing if {
	fs := resources_ephemeral_storage_missing.findings with input as pod({"requests": {"memory": "1Gi"}})
	count(fs) == 1
	some f in fs
	f.path == "spec.containers[0].resources"
	contains(f.msg, `container "web" requests no ephemeral storage and sets no ephemeral-storage limit`)
}

test_request_only if {
	fs := resources_ephemeral_storage_missing.findings with input as pod({"requests": {"ephemeral-storage": "2Gi"}})
	count(fs) == 1
	some f in fs
	contains(f.msg, `requests ephemeral-storage 2Gi but sets no ephemeral-storage limit`)
}

test_limit_set if {
	count(resources_ephemeral_storage_missing.findings) == 0 with input as pod({"limits": {"ephemeral-storage": "1Gi"}})
}

test_owned_left_to_owner if {
	p := pod({})
	owned := json.patch(p, [{"op": "add", "path": "/object/metadata", "value": {"ownerReferences": [{"controller": true}]}}])
	count(resources_ephemeral_storage_missing.findings) == 0 with input as owned
}
