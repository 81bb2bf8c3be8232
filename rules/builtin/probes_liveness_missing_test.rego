package kubectl_workload.rules.probes_liveness_missing_test

import data.kubectl_workload.rules.probes_liveness_missing
import rego.v1

test_missing if {
	d := {"object": {"kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"name": "web"}]}}}}}
	fs := probes_liveness_missing.findings with input as d
	some f in fs
	f.path == "spec.template.spec.containers[0]"
}

test_present if {
	d := {"object": {"kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"name": "web", "livenessProbe": {"tcpSocket": {"port": 80}}}]}}}}}
	count(probes_liveness_missing.findings) == 0 with input as d
}
