package kubectl_workload.rules.probes_port_not_declared_test

import data.kubectl_workload.rules.probes_port_not_declared
import rego.v1

dep(ports, probe) := {"object": {"kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"name": "web", "ports": ports, "readinessProbe": probe}]}}}}}

test_wrong_port_is_information if {
	fs := probes_port_not_declared.findings with input as dep([{"containerPort": 8080}], {"httpGet": {"path": "/", "port": 80}})
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.containers[0].readinessProbe.httpGet.port"
	f.severity == "info"
	contains(f.msg, "port 80 is not a port")
	contains(f.msg, "health port left out of ports on purpose")
}

test_declared if {
	count(probes_port_not_declared.findings) == 0 with input as dep([{"containerPort": 8080}], {"tcpSocket": {"port": 8080}})
}

test_named if {
	count(probes_port_not_declared.findings) == 0 with input as dep([{"containerPort": 8080, "name": "http"}], {"httpGet": {"port": "http"}})
}

test_named_not_declared if {
	fs := probes_port_not_declared.findings with input as dep([{"containerPort": 8080, "name": "web"}, {"containerPort": 9090, "name": "metrics"}], {"tcpSocket": {"port": "http"}})
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.containers[0].readinessProbe.tcpSocket.port"
	not f.severity
	contains(f.msg, `port "http" is not the name of a port the container declares (its named ports: metrics, web)`)
	contains(f.msg, "never becomes Ready")
}

test_named_without_ports if {
	fs := probes_port_not_declared.findings with input as dep([], {"httpGet": {"port": "http"}})
	some f in fs
	contains(f.msg, "it has no named port")
}

test_no_ports_declared if {
	count(probes_port_not_declared.findings) == 0 with input as dep([], {"httpGet": {"port": 80}})
}
