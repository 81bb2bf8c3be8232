package kubectl_workload.rules.ingress_backend_port_missing_test

import data.kubectl_workload.rules.ingress_backend_port_missing
import rego.v1

inventory := {"namespaces": {"shop": {"objects": {"Service/web": {"kind": "Service", "name": "web", "spec": {"ports": [{"name": "http", "port": 80}]}}}}}}

ingress(port) := {"namespace": "shop", "object": {"kind": "Ingress", "metadata": {"name": "shop"}, "spec": {"rules": [{"http": {"paths": [{"path": "/", "backend": {"service": {"name": "web", "port": port}}}]}}]}}}

test_number_missing if {
	fs := ingress_backend_port_missing.findings with input as ingress({"number": 8080}) with data.kubectl_workload.inventory as inventory
	count(fs) == 1
	some f in fs
	f.path == "spec.rules[0].http.paths[0].backend.service.port"
	contains(f.msg, `routes to port 8080 of Service web, which has no such port (it has 80 "http")`)
}

test_name_missing if {
	fs := ingress_backend_port_missing.findings with input as ingress({"name": "https"}) with data.kubectl_workload.inventory as inventory
	count(fs) == 1
}

test_present if {
	count(ingress_backend_port_missing.findings) == 0 with input as ingress({"number": 80}) with data.kubectl_workload.inventory as inventory
	count(ingress_backend_port_missing.findings) == 0 with input as ingress({"name": "http"}) with data.kubectl_workload.inventory as inventory
}

test_service_absent if {
	inv := {"namespaces": {"shop": {"objects": {}}}}
	count(ingress_backend_port_missing.findings) == 0 with input as ingress({"number": 8080}) with data.kubectl_workload.inventory as inv
}
