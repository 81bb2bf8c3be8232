package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/probe"
)

// probesPortNotDeclaredRule is probes/port-not-declared.
var probesPortNotDeclaredRule = GoRule{
	Meta: Rule{
		ID:       "probes/port-not-declared",
		Title:    "Probe aimed at a port the container does not declare",
		Severity: SeverityError,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		File:     "object_probes_port_not_declared.go",
		Description: `The kubelet sends an httpGet, tcpSocket or grpc probe to the pod's IP at
the probe's port. A port given by name is looked up among the probed
container's own ports only (ResolveContainerPort in
k8s.io/kubernetes/pkg/probe): the API server accepts a name that none of
them carries, and the kubelet then fails the probe every time, so the
container is never Ready (readiness) or is restarted in a loop (liveness,
startup). A port given by number is probed as it is: when the container
declares its ports (ports[].containerPort) and no container of the pod
declares that number, the probe may aim at an old port after a port
change, or at a dedicated health port left out of ports on purpose
(ingress-nginx's 10254, the OpenTelemetry collector's 13133, kubebuilder's
8081). lint cannot tell these apart, so such a port is reported as
information only; containers that declare no ports are not checked for it.`,
		Remediation: "Name a port that the probed container itself declares, or give the port by number; declare a numeric port in ports when it is the one the container serves on.",
	},
	Check: checkProbePortNotDeclared,
}

// probeFailure says what a probe that always fails does to its container.
var probeFailure = map[string]string{
	"readinessProbe": "the container never becomes Ready",
	"livenessProbe":  "the kubelet restarts the container again and again",
	"startupProbe":   "the kubelet restarts the container again and again",
}

// checkProbePortNotDeclared reports each probe port given by a name that
// the probed container does not declare (probe.ResolveContainerPort, which
// the kubelet calls, fails: an error), and each port given by a number
// that no container of the pod declares, in a container that declares
// ports (information only: it may be a health port left out of ports on
// purpose).
func checkProbePortNotDeclared(c *ObjectContext) []Finding {
	spec, specPath := podSpecOf(c.Object)
	if spec == nil || hasControllerOwner(c.Object) {
		return nil
	}
	pcs := podContainers(spec, specPath)
	declared := map[int32]bool{}
	for _, pc := range pcs {
		for _, p := range pc.c.Ports {
			declared[p.ContainerPort] = true
		}
	}
	var out []Finding
	for _, pc := range pcs {
		for _, pr := range []struct {
			name  string
			probe *corev1.Probe
		}{{"livenessProbe", pc.c.LivenessProbe}, {"readinessProbe", pc.c.ReadinessProbe}, {"startupProbe", pc.c.StartupProbe}} {
			if pr.probe == nil {
				continue
			}
			for _, h := range probePorts(pr.probe) {
				path := fmt.Sprintf("%s.%s.%s.port", pc.path, pr.name, h.handler)
				if h.port.Type == intstr.String {
					if _, err := probe.ResolveContainerPort(h.port, pc.c); err == nil {
						continue
					}
					out = append(out, Finding{Path: path,
						Message: fmt.Sprintf("%s %q: %s %s port %q is not the name of a port the container declares (%s): the kubelet looks a named port up among the probed container's own ports only, so the probe fails every time and %s",
							containerLabel[pc.field], pc.c.Name, pr.name, h.handler, h.port.StrVal, portNamesPhrase(pc.c), probeFailure[pr.name])})
					continue
				}
				if len(pc.c.Ports) == 0 || declared[h.port.IntVal] {
					continue
				}
				ports := make([]string, 0, len(pc.c.Ports))
				for _, p := range pc.c.Ports {
					ports = append(ports, strconv.Itoa(int(p.ContainerPort)))
				}
				sort.Strings(ports)
				out = append(out, Finding{Path: path, Severity: SeverityInfo,
					Message: fmt.Sprintf("%s %q: %s %s port %d is not a port any container of the pod declares (%s declares %s): if it is a health port left out of ports on purpose, this is fine; if the container moved to another port, the probe targets the old one",
						containerLabel[pc.field], pc.c.Name, pr.name, h.handler, h.port.IntVal, pc.c.Name, strings.Join(ports, ", "))})
			}
		}
	}
	return out
}

// portNamesPhrase lists the names of a container's ports for messages.
func portNamesPhrase(c *corev1.Container) string {
	var names []string
	for _, p := range c.Ports {
		if p.Name != "" {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return "it has no named port"
	}
	sort.Strings(names)
	return "its named ports: " + strings.Join(names, ", ")
}

// probePort is the port one handler of a probe aims at.
type probePort struct {
	handler string
	port    intstr.IntOrString
}

// probePorts lists the ports of a probe's httpGet, tcpSocket and grpc
// handlers (validation allows one, but each is read).
func probePorts(p *corev1.Probe) []probePort {
	var out []probePort
	if p.HTTPGet != nil {
		out = append(out, probePort{"httpGet", p.HTTPGet.Port})
	}
	if p.TCPSocket != nil {
		out = append(out, probePort{"tcpSocket", p.TCPSocket.Port})
	}
	if p.GRPC != nil {
		out = append(out, probePort{"grpc", intstr.FromInt32(p.GRPC.Port)})
	}
	return out
}
