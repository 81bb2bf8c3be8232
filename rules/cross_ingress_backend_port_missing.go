package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// ingressBackendPortMissingRule is ingress/backend-port-missing.
var ingressBackendPortMissingRule = BuiltinRule{
	Meta: Rule{
		ID:       "ingress/backend-port-missing",
		Title:    "Ingress backend port that its Service does not have",
		Severity: SeverityWarning,
		Kinds:    []string{"Ingress"},
		File:     "cross_ingress_backend_port_missing.go",
		Description: `An Ingress backend names a Service and one of its ports, by number
(service.port.number, the Service's spec.ports[].port, not the
targetPort) or by name (service.port.name). An ingress controller that
finds no such port on the Service has no upstream for that path and
answers 503 (or its default backend). Reported only when the input holds
the Service in the Ingress's namespace; a missing Service is
ingress/backend-missing.`,
		Remediation: "Name a port the Service exposes (its spec.ports[].port, or that port's name) in the backend, or add the port to the Service.",
	},
	Cross: ingressBackendPortMissing,
}

// ingressBackendPortMissing reports each backend of an Ingress whose port
// (by number or by name) the Service of the input it names does not have.
func ingressBackendPortMissing(c *CrossContext) []Finding {
	ing, ok := c.Self.Written.(*networkingv1.Ingress)
	if !ok {
		return nil
	}
	var out []Finding
	check := func(svc *networkingv1.IngressServiceBackend, path string) {
		e := c.NS.Get(Key("Service", svc.Name))
		if e == nil {
			return
		}
		service, ok := e.Object.(*corev1.Service)
		if !ok {
			return
		}
		ports := service.Spec.Ports
		var what []string
		if n := svc.Port.Number; n != 0 && !hasServicePort(ports, func(p corev1.ServicePort) bool { return p.Port == n }) {
			what = append(what, fmt.Sprintf("port %d", n))
		}
		if name := svc.Port.Name; name != "" && !hasServicePort(ports, func(p corev1.ServicePort) bool { return p.Name == name }) {
			what = append(what, fmt.Sprintf("the port named %q", name))
		}
		for _, w := range what {
			out = append(out, Finding{
				Message: fmt.Sprintf("Ingress %s routes to %s of Service %s, which has no such port (it has %s): requests there get no backend",
					c.Self.Name, w, svc.Name, describeServicePorts(ports)),
				Path: path,
			})
		}
	}
	if b := ing.Spec.DefaultBackend; b != nil && b.Service != nil {
		check(b.Service, "spec.defaultBackend.service.port")
	}
	for i, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for j, p := range rule.HTTP.Paths {
			if p.Backend.Service != nil {
				check(p.Backend.Service, fmt.Sprintf("spec.rules[%d].http.paths[%d].backend.service.port", i, j))
			}
		}
	}
	return out
}

func hasServicePort(ports []corev1.ServicePort, match func(corev1.ServicePort) bool) bool {
	for _, p := range ports {
		if match(p) {
			return true
		}
	}
	return false
}

// describeServicePorts renders a Service's ports: `80 "http", 443`.
func describeServicePorts(ports []corev1.ServicePort) string {
	if len(ports) == 0 {
		return "no ports"
	}
	out := make([]string, len(ports))
	for i, p := range ports {
		if p.Name != "" {
			out[i] = fmt.Sprintf("%d %q", p.Port, p.Name)
		} else {
			out[i] = fmt.Sprintf("%d", p.Port)
		}
	}
	return strings.Join(out, ", ")
}
