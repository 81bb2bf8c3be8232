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
var serviceTargetPortNotExposedRule = GoRule{
	Meta: Rule{
		ID:       "service/target-port-not-exposed",
		Title:    "Service targetPort that no selected pod declares",
		Severity: SeverityWarning,
		Kinds:    []string{"Service"},
		File:     "cross_service_target_port_not_exposed.go",
		Description: `A Service sends each port's traffic to the targetPort of the pods it
selects (the port number itself when targetPort is unset). A named
targetPort is looked up among the pod's container ports by name and
protocol (podutil.FindPort, which the EndpointSlice controller calls): a
pod with no such port is left out of that port's endpoints, so when none
of the selected pods has it, the Service has no endpoints for that port
and connections to it are refused. A numeric targetPort needs no declared
containerPort (a container listens where it listens; ports are
informational), so it is reported only when every selected workload
declares container ports and none of them is that number: the Service
then most likely points at the wrong port (8080 where the container
serves 80). Containers and sidecar init containers count. Reported only
for a Service with a selector that selects a workload (or Pod) of the
input in its namespace: pods defined elsewhere are not checked.`,
		Remediation: "Set the port's targetPort to the name or number of a containerPort of the pods the Service selects, or declare that port in the container.",
	},
	Cross: serviceTargetPortNotExposed,
}

// serviceTargetPortNotExposed reports a Service port whose targetPort no
// container of the workloads it selects declares: by name (no endpoints),
// or by number when every selected workload declares its port numbers.
func serviceTargetPortNotExposed(c *CrossContext) []Finding {
	svc, ok := c.Self.Written.(*corev1.Service)
	if !ok || svc.Spec.Type == corev1.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 {
		return nil
	}
	sel := servicePortsSelection(c.NS, svc.Spec.Selector)
	if sel == nil {
		return nil
	}
	names, numbers, allNumbered, shown, declared := sel.names, sel.numbers, sel.allNumbered, sel.shown, sel.declared
	var out []Finding
	for i, sp := range svc.Spec.Ports {
		label := strconv.Itoa(int(sp.Port))
		if sp.Name != "" {
			label = fmt.Sprintf("%d (%s)", sp.Port, sp.Name)
		}
		unset := sp.TargetPort.Type == intstr.Int && sp.TargetPort.IntVal == 0
		switch {
		case sp.TargetPort.Type == intstr.String:
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
		default:
			target, path := int64(sp.TargetPort.IntVal), fmt.Sprintf("spec.ports[%d].targetPort", i)
			if unset {
				target, path = int64(sp.Port), fmt.Sprintf("spec.ports[%d].port", i)
			}
			if allNumbered && !numbers[target] {
				out = append(out, Finding{
					Message: fmt.Sprintf("Service %s port %s targets port %d, which no container of %s declares (%s): connections go to a port the pods most likely do not listen on",
						displayName(c.Self), label, target, shown, declared),
					Path: path,
				})
			}
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
	numbers         map[int64]bool
	allNumbered     bool
	shown, declared string
}

func servicePortsSelection(ns *Namespace, selector map[string]string) *serviceTargetPorts {
	return ns.Shared("service/target-port-not-exposed\x00"+LabelsKey(selector), func() any {
		names, numbers := map[string]bool{}, map[int64]bool{}
		allNumbered := true
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
			allNumbered = allNumbered && len(e.Pods.PortNumbers) > 0
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
		return &serviceTargetPorts{names, numbers, allNumbered, shown, declared}
	}).(*serviceTargetPorts)
}
