# METADATA
# title: Probe aimed at a port the container does not declare
# description: |
#   The kubelet sends an httpGet, tcpSocket or grpc probe to the pod's IP at
#   the probe's port. A container that declares its ports (ports[].containerPort)
#   but whose probe names another number usually probes the wrong port: after
#   a port change, the probe still knocks on the old one, and the container is
#   never Ready (readiness) or is restarted in a loop (liveness). A named port
#   that no container declares is already refused by the API server. Reported
#   for containers that declare at least one port, for a numeric probe port
#   none of the pod's containers declares (a probe may target a sidecar's
#   port); containers that declare no ports are not checked.
# custom:
#   id: probes/port-not-declared
#   severity: warning
#   remediation: Point the probe at a port the container listens on, preferably by the port's name, or declare the port in ports.
package kubectl_workload.rules.probes_port_not_declared

import data.kubectl_workload.lib
import rego.v1

probe_kinds := ["livenessProbe", "readinessProbe", "startupProbe"]

declared contains p.containerPort if {
	some pc in lib.pod_containers
	some p in object.get(pc.container, "ports", [])
}

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
		"msg": sprintf("%s %q: %s %s port %d is not a port any container of the pod declares (%s declares %s): the probe likely targets the wrong port", [lib.container_label[pc.field], pc.container.name, probe, handler, port, pc.container.name, concat(", ", sort([sprintf("%d", [p.containerPort]) | some p in pc.container.ports]))]),
		"path": sprintf("%s.%s.%s.port", [pc.path, probe, handler]),
	}
}
