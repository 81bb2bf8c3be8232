package rules

import (
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
)

// ingressBackendMissingRule is ingress/backend-missing.
var ingressBackendMissingRule = BuiltinRule{
	Meta: Rule{
		ID:       "ingress/backend-missing",
		Title:    "Ingress backend Service missing",
		Severity: SeverityWarning,
		Kinds:    []string{"Ingress"},
		File:     "cross_ingress_backend_missing.go",
		Description: `An Ingress routes to Services of its own namespace by name. A backend that
names a Service the namespace does not have answers 503 (or the
controller's default backend) for every request on that path. Reported
only when the input holds Services in the Ingress's namespace: a Service
installed separately is not missing.`,
		Remediation: "Name a Service of the Ingress's namespace in the backend, or add the Service.",
	},
	Cross: ingressBackendMissing,
}

// ingressBackendMissing reports each backend Service of an Ingress that
// the input does not hold in its namespace, when it holds Services there.
func ingressBackendMissing(c *CrossContext) []Finding {
	ing, ok := c.Self.Written.(*networkingv1.Ingress)
	if !ok || !c.NS.Has("Service") {
		return nil
	}
	var out []Finding
	seen := map[string]bool{}
	report := func(name, path string) {
		if c.NS.Get(Key("Service", name)) != nil || seen[name+"\x00"+path] {
			return
		}
		seen[name+"\x00"+path] = true
		out = append(out, Finding{
			Message: fmt.Sprintf("Ingress %s routes to Service %s, which the input does not hold in namespace %s (%s): requests there get no backend",
				c.Self.Name, name, c.NS.Name, Quantity(int64(c.NS.Count("Service")), "Service")),
			Path: path,
		})
	}
	if b := ing.Spec.DefaultBackend; b != nil && b.Service != nil {
		report(b.Service.Name, "spec.defaultBackend")
	}
	for i, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for _, p := range rule.HTTP.Paths {
			if p.Backend.Service != nil {
				report(p.Backend.Service.Name, fmt.Sprintf("spec.rules[%d]", i))
			}
		}
	}
	return out
}
