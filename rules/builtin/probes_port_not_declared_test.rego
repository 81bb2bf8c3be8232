package kubectl_workload.rules.probes_port_not_declared_test

import data.kubectl_workload.rules.probes_port_not_declared
import rego.v1

dep(ports, probe) := {"object": {"kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"name": "web", "ports": ports, "readinessProbe": probe}]}}}}}

test_wrong_port if {
	fs := probes_port_not_declared.findings with input as dep([{"containerPort": 8080}], {"httpGet": {"path": "/", "port": 80}})
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.containers[0].readinessProbe.httpGet.port"
	contains(f.msg, "port 80 is not a port")
}

test_declared if {
	count(probes_port_not_declared.findings) == 0 with input as dep([{"containerPort": 8080}], {"tcpSocket": {"port": 8080}})
}

test_named if {
	count(probes_port_not_declared.findings) == 0 with input as dep([{"containerPort": 8080, "name": "http"}], {"httpGet": {"port": "http"}})
}

test_no_ports_declared if {
	count(probes_port_not_declared.findings) == 0 with input as dep([], {"httpGet": {"port": 80}})
}
