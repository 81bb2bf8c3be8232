# METADATA
# title: Ingress backend Service missing
# description: |
#   An Ingress routes to Services of its own namespace by name. A backend that
#   names a Service the namespace does not have answers 503 (or the
#   controller's default backend) for every request on that path. Reported
#   only when the input holds Services in the Ingress's namespace: a Service
#   installed separately is not missing.
# custom:
#   id: ingress/backend-missing
#   severity: warning
#   kinds: [Ingress]
#   remediation: Name a Service of the Ingress's namespace in the backend, or add the Service.
package kubectl_workload.rules.ingress_backend_missing

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

backends contains [name, "spec.defaultBackend"] if {
	name := input.object.spec.defaultBackend.service.name
}

backends contains [name, sprintf("spec.rules[%d]", [i])] if {
	some i, rule in object.get(input.object, ["spec", "rules"], [])
	some p in object.get(rule, ["http", "paths"], [])
	name := p.backend.service.name
}

findings contains f if {
	input.object.kind == "Ingress"
	lib.has_kind("Service")
	some [name, path] in backends
	not xref.entry(sprintf("Service/%s", [name]))
	f := {
		"msg": sprintf("Ingress %s routes to Service %s, which the input does not hold in namespace %s (%s): requests there get no backend", [input.object.metadata.name, name, input.namespace, xref.quantity(count(xref.keys_of_kind("Service")), "Service")]),
		"path": path,
	}
}
