package kubectl_workload.rules.ingress_backend_missing_test

import data.kubectl_workload.rules.ingress_backend_missing
import rego.v1

ing(name) := {"object": {"kind": "Ingress", "metadata": {"name": "web"}, "spec": {"rules": [{"http": {"paths": [{"path": "/", "backend": {"service": {"name": name, "port": {"number": 80}}}}]}}]}}, "namespace": "shop", "key": "Ingress/web"}

inv(services) := {"namespaces": {"shop": {
	"objects": {sprintf("Service/%s", [s]): {"kind": "Service", "name": s} | some s in services},
	"by_kind": {"Service": [sprintf("Service/%s", [s]) | some s in services]}, "count": {"Service": count(services)},
}}}

test_missing if {
	fs := ingress_backend_missing.findings with input as ing("webb") with data.kubectl_workload.inventory as inv(["web"])
	count(fs) == 1
	some f in fs
	f.path == "spec.rules[0]"
}

test_present if {
	count(ingress_backend_missing.findings) == 0 with input as ing("web") with data.kubectl_workload.inventory as inv(["web"])
}

test_no_services_in_input if {
	count(ingress_backend_missing.findings) == 0 with input as ing("web") with data.kubectl_workload.inventory as inv([])
}
