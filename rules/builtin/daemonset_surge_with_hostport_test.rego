package kubectl_workload.rules.daemonset_surge_with_hostport_test

import data.kubectl_workload.rules.daemonset_surge_with_hostport
import rego.v1

ds(surge, pod_spec) := {
	"object": {"kind": "DaemonSet", "spec": {"template": {"spec": pod_spec}}},
	"defaulted": {"kind": "DaemonSet", "spec": {
		"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": 0}},
		"template": {"spec": pod_spec},
	}},
}

agent(ports) := {"name": "agent", "image": "example/agent:1.0", "ports": ports}

test_surge_with_host_port if {
	fs := daemonset_surge_with_hostport.findings with input as ds(1, {"containers": [agent([{"containerPort": 8080}, {"containerPort": 9100, "hostPort": 9100}])]})
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.containers[0].ports[1].hostPort"
	contains(f.msg, "maxSurge 1")
	contains(f.msg, "host port 9100/TCP (container \"agent\")")
}

test_percent_surge if {
	fs := daemonset_surge_with_hostport.findings with input as ds("10%", {"containers": [agent([{"containerPort": 53, "hostPort": 53, "protocol": "UDP"}])]})
	some f in fs
	contains(f.msg, "maxSurge 10%")
	contains(f.msg, "53/UDP")
}

test_zero_percent_surge_is_no_surge if {
	count(daemonset_surge_with_hostport.findings) == 0 with input as ds("0%", {"containers": [agent([{"containerPort": 9100, "hostPort": 9100}])]})
}

test_default_strategy_is_silent if {
	inp := {
		"object": {"kind": "DaemonSet", "spec": {"template": {"spec": {"containers": [agent([{"containerPort": 9100, "hostPort": 9100}])]}}}},
		"defaulted": {"kind": "DaemonSet", "spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}}},
	}
	count(daemonset_surge_with_hostport.findings) == 0 with input as inp
}

test_on_delete_is_silent if {
	inp := json.patch(ds(1, {"containers": [agent([{"containerPort": 9100, "hostPort": 9100}])]}), [{"op": "replace", "path": "/defaulted/spec/updateStrategy/type", "value": "OnDelete"}])
	count(daemonset_surge_with_hostport.findings) == 0 with input as inp
}

test_surge_without_host_ports_is_silent if {
	count(daemonset_surge_with_hostport.findings) == 0 with input as ds(1, {"containers": [agent([{"containerPort": 9100}])]})
}

test_host_network_makes_container_ports_host_ports if {
	fs := daemonset_surge_with_hostport.findings with input as ds(2, {"hostNetwork": true, "containers": [agent([{"containerPort": 9100}])]})
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.containers[0].ports[0].containerPort"
	contains(f.msg, "because of hostNetwork")
}

test_sidecar_host_port_counts if {
	sidecar := object.union(agent([{"containerPort": 4317, "hostPort": 4317}]), {"name": "otel", "restartPolicy": "Always"})
	fs := daemonset_surge_with_hostport.findings with input as ds(1, {"initContainers": [sidecar], "containers": [agent([])]})
	some f in fs
	f.path == "spec.template.spec.initContainers[0].ports[0].hostPort"
	contains(f.msg, "sidecar init container \"otel\"")
}

test_plain_init_container_host_port_does_not_count if {
	init := object.union(agent([{"containerPort": 4317, "hostPort": 4317}]), {"name": "setup"})
	count(daemonset_surge_with_hostport.findings) == 0 with input as ds(1, {"initContainers": [init], "containers": [agent([])]})
}

test_deployments_are_silent if {
	inp := json.patch(ds(1, {"containers": [agent([{"containerPort": 9100, "hostPort": 9100}])]}), [{"op": "replace", "path": "/object/kind", "value": "Deployment"}])
	count(daemonset_surge_with_hostport.findings) == 0 with input as inp
}
