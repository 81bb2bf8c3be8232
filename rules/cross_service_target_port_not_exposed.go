package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// serviceTargetPortNotExposedRule is service/target-port-not-exposed.
var serviceTargetPortNotExposedRule = BuiltinRule{
	Meta: Rule{
		ID:       "service/target-port-not-exposed",
		Title:    "Service targetPort that no selected pod declares",
		Severity: SeverityWarning,
		Kinds:    []string{"Service"},
		File:     "cross_service_target_port_not_exposed.go",
		Measured: "was 0 of 1 true (a numeric targetPort, no longer reported); a named one: no finding",
		Description: `A Service sends each port's traffic to the targetPort of the pods it
selects (the port number itself when targetPort is unset). A named
targetPort is looked up among the pod's container ports by name and
protocol (podutil.FindPort, which the EndpointSlice controller calls): a
pod with no such port is left out of that port's endpoints, so when none
of the selected pods has it, the Service has no endpoints for that port
and connections to it are refused. A numeric targetPort needs no declared
containerPort (a container listens where it listens; ports are
informational), so it is never reported: a Service aimed at a port the
pods do not declare works when the process listens there. Containers and sidecar init containers count. Reported only
for a Service with a selector that selects a workload (or Pod) of the
input in its namespace: pods defined elsewhere are not checked.`,
		Remediation: "Set the port's targetPort to the name of a containerPort of the pods the Service selects (or to a number), or declare that named port in the container.",
	},
	Cross: serviceTargetPortNotExposed,
}

// serviceTargetPortNotExposed reports a Service port whose targetPort is a
// name that no container of the workloads it selects declares (no
// endpoints). A numeric targetPort needs no declaration.
func serviceTargetPortNotExposed(c *CrossContext) []Finding {
	svc, ok := c.Self.Written.(*corev1.Service)
	if !ok || svc.Spec.Type == corev1.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 {
		return nil
	}
	sel := servicePortsSelection(c.NS, svc.Spec.Selector)
	if sel == nil {
		return nil
	}
	names, shown, declared := sel.names, sel.shown, sel.declared
	var out []Finding
	for i, sp := range svc.Spec.Ports {
		if sp.TargetPort.Type != intstr.String {
			continue
		}
		label := strconv.Itoa(int(sp.Port))
		if sp.Name != "" {
			label = fmt.Sprintf("%d (%s)", sp.Port, sp.Name)
		}
		proto := string(sp.Protocol)
		if proto == "" {
			proto = "TCP"
		}
		if !names[sp.TargetPort.StrVal+"/"+proto] {
			out = append(out, Finding{
				Message: fmt.Sprintf("Service %s port %s targets the port named %q (%s), which no container of %s declares (%s), so the Service has no endpoints for this port and connections to it are refused",
					displayName(c.Self), label, sp.TargetPort.StrVal, proto, shown, declared),
				Path: fmt.Sprintf("spec.ports[%d].targetPort", i),
			})
		}
	}
	return out
}

func sortedInts(m map[int64]bool) []int64 {
	out := make([]int64, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// serviceTargetPorts is what service/target-port-not-exposed reads of the
// workloads a Service selector selects: the same for every Service with that
// selector, so it is computed once per distinct selector (Namespace.Shared).
// nil when the selector selects no workload with pods.
type serviceTargetPorts struct {
	names           map[string]bool
	shown, declared string
}

func servicePortsSelection(ns *Namespace, selector map[string]string) *serviceTargetPorts {
	return ns.Shared("service/target-port-not-exposed\x00"+LabelsKey(selector), func() any {
		names, numbers := map[string]bool{}, map[int64]bool{}
		var selected []string
		for _, e := range ns.AllWorkloadsSelectedBy(&metav1.LabelSelector{MatchLabels: selector}) {
			if e.Pods == nil {
				continue
			}
			selected = append(selected, e.Key)
			for _, n := range e.Pods.PortNames {
				names[n] = true
			}
			for _, n := range e.Pods.PortNumbers {
				numbers[n] = true
			}
		}
		if len(selected) == 0 {
			return (*serviceTargetPorts)(nil)
		}
		shown := DescribeList(selected)
		declared := "it declares no ports"
		if len(numbers) > 0 {
			var parts []string
			for _, n := range sortedInts(numbers) {
				parts = append(parts, strconv.FormatInt(n, 10))
			}
			declared = "declared: " + strings.Join(append(parts, sortedKeys(names)...), ", ")
		}
		return &serviceTargetPorts{names, shown, declared}
	}).(*serviceTargetPorts)
}
