# METADATA
# title: Probe aimed at a port the container does not declare
# description: |
#   The kubelet sends an httpGet, tcpSocket or grpc probe to the pod's IP at
#   the probe's port. A port given by name is looked up among the probed
#   container's own ports only (ResolveContainerPort in
#   k8s.io/kubernetes/pkg/probe): the API server accepts a name that none of
#   them carries, and the kubelet then fails the probe every time, so the
#   container is never Ready (readiness) or is restarted in a loop (liveness,
#   startup). A port given by number is probed as it is: when the container
#   declares its ports (ports[].containerPort) and no container of the pod
#   declares that number, the probe may aim at an old port after a port
#   change, or at a dedicated health port left out of ports on purpose
#   (ingress-nginx's 10254, the OpenTelemetry collector's 13133, kubebuilder's
#   8081). lint cannot tell these apart, so such a port is reported as
#   information only; containers that declare no ports are not checked for it.
# custom:
#   id: probes/port-not-declared
#   severity: error
#   remediation: Name a port that the probed container itself declares, or give the port by number; declare a numeric port in ports when it is the one the container serves on.
package kubectl_workload.rules.probes_port_not_declared

import data.kubectl_workload.lib
import rego.v1

probe_kinds := ["livenessProbe", "readinessProbe", "startupProbe"]

declared contains p.containerPort if {
	some pc in lib.pod_containers
	some p in object.get(pc.container, "ports", [])
}

# A named port the probed container does not declare: the kubelet's
# ResolveContainerPort fails, and so does the probe, every time.
findings contains f if {
	not lib.owned_by_controller
	some pc in lib.pod_containers
	some probe in probe_kinds
	some handler in ["httpGet", "tcpSocket"]
	port := pc.container[probe][handler].port
	is_string(port)
	not port in port_names(pc.container)
	f := {
		"msg": sprintf("%s %q: %s %s port %q is not the name of a port the container declares (%s): the kubelet looks a named port up among the probed container's own ports only, so the probe fails every time and %s", [lib.container_label[pc.field], pc.container.name, probe, handler, port, names_phrase(pc.container), failure[probe]]),
		"path": sprintf("%s.%s.%s.port", [pc.path, probe, handler]),
	}
}

# A numeric port no container declares: an old port, or a health port left
# out of ports on purpose; lint cannot tell, so it is information only.
findings contains f if {
	not lib.owned_by_controller
	some pc in lib.pod_containers
	count(object.get(pc.container, "ports", [])) > 0
	some probe in probe_kinds
	some handler in ["httpGet", "tcpSocket", "grpc"]
	port := pc.container[probe][handler].port
	is_number(port)
	not declared[port]
	f := {
		"msg": sprintf("%s %q: %s %s port %d is not a port any container of the pod declares (%s declares %s): if it is a health port left out of ports on purpose, this is fine; if the container moved to another port, the probe targets the old one", [lib.container_label[pc.field], pc.container.name, probe, handler, port, pc.container.name, concat(", ", sort([sprintf("%d", [p.containerPort]) | some p in pc.container.ports]))]),
		"path": sprintf("%s.%s.%s.port", [pc.path, probe, handler]),
		"severity": "info",
	}
}

port_names(c) := [p.name | some p in object.get(c, "ports", []); object.get(p, "name", "") != ""]

names_phrase(c) := sprintf("its named ports: %s", [concat(", ", sort(port_names(c)))]) if {
	count(port_names(c)) > 0
} else := "it has no named port"

failure := {
	"readinessProbe": "the container never becomes Ready",
	"livenessProbe": "the kubelet restarts the container again and again",
	"startupProbe": "the kubelet restarts the container again and again",
}
