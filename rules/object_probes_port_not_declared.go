package rules

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/probe"
)

// probesPortNotDeclaredRule is probes/port-not-declared.
var probesPortNotDeclaredRule = BuiltinRule{
	Meta: Rule{
		ID:       "probes/port-not-declared",
		Title:    "Probe aimed at a port the container does not declare",
		Severity: SeverityError,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		File:     "object_probes_port_not_declared.go",
		Measured: "was 0 of 32 true (numeric health ports, no longer reported); a named one: no finding",
		Description: `The kubelet sends an httpGet, tcpSocket or grpc probe to the pod's IP at
the probe's port. A port given by name is looked up among the probed
container's own ports only (ResolveContainerPort in
k8s.io/kubernetes/pkg/probe): the API server accepts a name that none of
them carries, and the kubelet then fails the probe every time, so the
container is never Ready (readiness) or is restarted in a loop (liveness,
startup). A port given by number is probed as it is and needs no
declaration: ports[] is informational (a dedicated health port such as
ingress-nginx's 10254 or kubebuilder's 8081 is often left out of it on
purpose), so a numeric port is never reported.`,
		Remediation: "Name a port that the probed container itself declares, or give the port by number.",
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
// the kubelet calls, fails). A port given by number needs no declaration.
func checkProbePortNotDeclared(c *ObjectContext) []Finding {
	spec, specPath := podSpecOf(c.Object)
	if spec == nil || hasControllerOwner(c.Object) {
		return nil
	}
	var out []Finding
	for _, pc := range podContainers(spec, specPath) {
		for _, pr := range []struct {
			name  string
			probe *corev1.Probe
		}{{"livenessProbe", pc.c.LivenessProbe}, {"readinessProbe", pc.c.ReadinessProbe}, {"startupProbe", pc.c.StartupProbe}} {
			if pr.probe == nil {
				continue
			}
			for _, h := range probePorts(pr.probe) {
				if h.port.Type != intstr.String {
					continue
				}
				if _, err := probe.ResolveContainerPort(h.port, pc.c); err == nil {
					continue
				}
				out = append(out, Finding{Path: fmt.Sprintf("%s.%s.%s.port", pc.path, pr.name, h.handler),
					Message: fmt.Sprintf("%s %q: %s %s port %q is not the name of a port the container declares (%s): the kubelet looks a named port up among the probed container's own ports only, so the probe fails every time and %s",
						containerLabel[pc.field], pc.c.Name, pr.name, h.handler, h.port.StrVal, portNamesPhrase(pc.c), probeFailure[pr.name])})
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
