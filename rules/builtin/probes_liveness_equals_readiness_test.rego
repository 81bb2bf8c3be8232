package kubectl_workload.rules.probes_liveness_equals_readiness_test

import data.kubectl_workload.rules.probes_liveness_equals_readiness
import rego.v1

pod(live, ready) := {"object": {"kind": "Pod", "spec": {"containers": [{"name": "web", "livenessProbe": live, "readinessProbe": ready}]}}}

test_identical if {
	p := {"httpGet": {"path": "/healthz", "port": 8080}}
	fs := probes_liveness_equals_readiness.findings with input as pod(p, p)
	some f in fs
	f.path == "spec.containers[0].livenessProbe"
}

test_different_threshold if {
	p := {"httpGet": {"path": "/healthz", "port": 8080}}
	count(probes_liveness_equals_readiness.findings) == 0 with input as pod(object.union(p, {"failureThreshold": 6}), p)
}

test_only_one if {
	c := {"object": {"kind": "Pod", "spec": {"containers": [{"name": "web", "readinessProbe": {"tcpSocket": {"port": 80}}}]}}}
	count(probes_liveness_equals_readiness.findings) == 0 with input as c
}
