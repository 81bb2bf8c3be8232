package kubectl_workload.rules.service_target_port_not_exposed_test

import data.kubectl_workload.rules.service_target_port_not_exposed
import rego.v1

inventory(pods) := {"namespaces": {"shop": {"objects": {
	"Service/web": {"kind": "Service", "name": "web", "selector": {"matchLabels": {"app": "web"}}, "selects": ["Deployment/web"]},
	"Deployment/web": {"kind": "Deployment", "name": "web", "pods": pods},
}}}}

service(ports) := {"object": {"kind": "Service", "metadata": {"name": "web"}, "spec": {"selector": {"app": "web"}, "ports": ports}}, "namespace": "shop", "key": "Service/web"}

web_ports := {"portNames": ["http/TCP"], "portNumbers": [8080]}

no_ports := {"portNames": [], "portNumbers": []}

test_named_missing if {
	fs := service_target_port_not_exposed.findings with input as service([{"port": 80, "targetPort": "htpp"}])
		with data.kubectl_workload.inventory as inventory(web_ports)
	count(fs) == 1
	some f in fs
	f.path == "spec.ports[0].targetPort"
	contains(f.msg, `targets the port named "htpp" (TCP), which no container of Deployment web declares (declared: 8080, http/TCP)`)
}

test_named_present if {
	count(service_target_port_not_exposed.findings) == 0 with input as service([{"port": 80, "targetPort": "http"}])
		with data.kubectl_workload.inventory as inventory(web_ports)
}

test_named_without_ports if {
	fs := service_target_port_not_exposed.findings with input as service([{"port": 80, "targetPort": "http"}])
		with data.kubectl_workload.inventory as inventory(no_ports)
	count(fs) == 1
	some f in fs
	contains(f.msg, "it declares no ports")
}

test_number_missing if {
	fs := service_target_port_not_exposed.findings with input as service([{"name": "http", "port": 80, "targetPort": 80}])
		with data.kubectl_workload.inventory as inventory(web_ports)
	count(fs) == 1
	some f in fs
	contains(f.msg, "Service web port 80 (http) targets port 80, which no container of Deployment web declares")
}

test_number_defaults_to_port if {
	fs := service_target_port_not_exposed.findings with input as service([{"port": 80}])
		with data.kubectl_workload.inventory as inventory(web_ports)
	some f in fs
	f.path == "spec.ports[0].port"
}

test_number_without_declared_ports if {
	count(service_target_port_not_exposed.findings) == 0 with input as service([{"port": 80, "targetPort": 9000}])
		with data.kubectl_workload.inventory as inventory(no_ports)
}

test_number_present if {
	count(service_target_port_not_exposed.findings) == 0 with input as service([{"port": 80, "targetPort": 8080}])
		with data.kubectl_workload.inventory as inventory(web_ports)
}

test_selects_nothing if {
	inv := {"namespaces": {"shop": {"objects": {"Service/web": {"kind": "Service", "name": "web", "selector": {"matchLabels": {"app": "web"}}, "selects": []}}}}}
	count(service_target_port_not_exposed.findings) == 0 with input as service([{"port": 80, "targetPort": "htpp"}])
		with data.kubectl_workload.inventory as inv
}
