package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// probesPortNotDeclaredRule is probes/port-not-declared.
var probesPortNotDeclaredRule = GoRule{
	Meta: Rule{
		ID:       "probes/port-not-declared",
		Title:    "Probe aimed at a port the container does not declare",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		File:     "object_probes_port_not_declared.go",
		Description: `The kubelet sends an httpGet, tcpSocket or grpc probe to the pod's IP at
the probe's port. A container that declares its ports (ports[].containerPort)
but whose probe names another number usually probes the wrong port: after
a port change, the probe still knocks on the old one, and the container is
never Ready (readiness) or is restarted in a loop (liveness). A named port
that no container declares is already refused by the API server. Reported
for containers that declare at least one port, for a numeric probe port
none of the pod's containers declares (a probe may target a sidecar's
port); containers that declare no ports are not checked.`,
		Remediation: "Point the probe at a port the container listens on, preferably by the port's name, or declare the port in ports.",
	},
	Check: checkProbePortNotDeclared,
}

// checkProbePortNotDeclared reports each probe handler port given as a
// number that no container of the pod declares, in a container that declares
// ports.
func checkProbePortNotDeclared(c *ObjectContext) []Finding {
	spec, specPath := podSpecOf(c.Object)
	if spec == nil || ownedByController(c.Object) {
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
		if len(pc.c.Ports) == 0 {
			continue
		}
		for _, pr := range []struct {
			name  string
			probe *corev1.Probe
		}{{"livenessProbe", pc.c.LivenessProbe}, {"readinessProbe", pc.c.ReadinessProbe}, {"startupProbe", pc.c.StartupProbe}} {
			if pr.probe == nil {
				continue
			}
			for _, h := range probePorts(pr.probe) {
				if !h.numeric || declared[h.port] {
					continue
				}
				ports := make([]string, 0, len(pc.c.Ports))
				for _, p := range pc.c.Ports {
					ports = append(ports, strconv.Itoa(int(p.ContainerPort)))
				}
				sort.Strings(ports)
				out = append(out, Finding{Path: fmt.Sprintf("%s.%s.%s.port", pc.path, pr.name, h.handler),
					Message: fmt.Sprintf("%s %q: %s %s port %d is not a port any container of the pod declares (%s declares %s): the probe likely targets the wrong port",
						containerLabel[pc.field], pc.c.Name, pr.name, h.handler, h.port, pc.c.Name, strings.Join(ports, ", "))})
			}
		}
	}
	return out
}

// probePort is the port one handler of a probe aims at.
type probePort struct {
	handler string
	port    int32
	numeric bool
}

// probePorts lists the ports of a probe's httpGet, tcpSocket and grpc
// handlers (validation allows one, but each is read).
func probePorts(p *corev1.Probe) []probePort {
	var out []probePort
	if p.HTTPGet != nil {
		out = append(out, probePort{"httpGet", p.HTTPGet.Port.IntVal, p.HTTPGet.Port.Type == intstr.Int})
	}
	if p.TCPSocket != nil {
		out = append(out, probePort{"tcpSocket", p.TCPSocket.Port.IntVal, p.TCPSocket.Port.Type == intstr.Int})
	}
	if p.GRPC != nil {
		out = append(out, probePort{"grpc", p.GRPC.Port, true})
	}
	return out
}
