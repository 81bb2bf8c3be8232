package kubectl_workload.rules.hygiene_automount_token_test

import data.kubectl_workload.rules.hygiene_automount_token
import rego.v1

test_unset if {
	fs := hygiene_automount_token.findings with input as {"object": {"kind": "Pod", "spec": {"containers": []}}}
	some f in fs
	f.path == "spec"
}

test_false if {
	count(hygiene_automount_token.findings) == 0 with input as {"object": {"kind": "Pod", "spec": {"automountServiceAccountToken": false}}}
}

test_no_pod_spec if {
	count(hygiene_automount_token.findings) == 0 with input as {"object": {"kind": "Service", "spec": {}}}
}
