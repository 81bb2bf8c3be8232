# METADATA
# title: Ingress backend port that its Service does not have
# description: |
#   An Ingress backend names a Service and one of its ports, by number
#   (service.port.number, the Service's spec.ports[].port, not the
#   targetPort) or by name (service.port.name). An ingress controller that
#   finds no such port on the Service has no upstream for that path and
#   answers 503 (or its default backend). Reported only when the input holds
#   the Service in the Ingress's namespace; a missing Service is
#   ingress/backend-missing.
# custom:
#   id: ingress/backend-port-missing
#   severity: warning
#   kinds: [Ingress]
#   remediation: Name a port the Service exposes (its spec.ports[].port, or that port's name) in the backend, or add the port to the Service.
package kubectl_workload.rules.ingress_backend_port_missing

import data.kubectl_workload.lib.xref
import rego.v1

backends contains [b.service, "spec.defaultBackend.service.port"] if {
	b := input.object.spec.defaultBackend
}

backends contains [p.backend.service, sprintf("spec.rules[%d].http.paths[%d].backend.service.port", [i, j])] if {
	some i, rule in object.get(input.object, ["spec", "rules"], [])
	some j, p in object.get(rule, ["http", "paths"], [])
}

findings contains f if {
	input.object.kind == "Ingress"
	some [svc, path] in backends
	e := xref.entry(sprintf("Service/%s", [svc.name]))
	ports := object.get(e, ["spec", "ports"], [])
	is_array(ports)
	some [what, ok] in wanted(svc.port, ports)
	not ok
	f := {
		"msg": sprintf("Ingress %s routes to %s of Service %s, which has no such port (it has %s): requests there get no backend", [input.object.metadata.name, what, svc.name, describe(ports)]),
		"path": path,
	}
}

wanted(port, ports) := {[sprintf("port %d", [port.number]), ok]} if {
	is_number(port.number)
	ok := port.number in {p.port | some p in ports}
}

wanted(port, ports) := {[sprintf("the port named %q", [port.name]), ok]} if {
	is_string(port.name)
	ok := port.name in {object.get(p, "name", "") | some p in ports}
}

describe(ports) := "no ports" if {
	count(ports) == 0
} else := concat(", ", [d |
	some p in ports
	d := port_text(p)
])

port_text(p) := sprintf("%d %q", [p.port, p.name]) if {
	object.get(p, "name", "") != ""
} else := sprintf("%d", [p.port])
