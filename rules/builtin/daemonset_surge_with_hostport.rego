# METADATA
# title: DaemonSet surges pods that need a host port
# description: |
#   With a RollingUpdate maxSurge other than 0 (an integer above 0 or a
#   percentage above 0%, which SurgeCount rounds up against the number of
#   nodes), the DaemonSet controller creates the updated pod on a node while the
#   old, available pod still runs there, and deletes the old pod only once the
#   new one is available (maxUnavailable must then be 0). A pod that asks for a
#   host port cannot share a node with another pod holding the same port: the
#   scheduler's NodePorts filter rejects the node, and since a DaemonSet pod may
#   only go to its own node, the new pod stays Pending, the old one is never
#   deleted, and the rollout stalls on the first maxSurge nodes. Host ports are
#   the hostPort of the ports of containers and of sidecar init containers
#   (restartPolicy Always), which the scheduler counts; with hostNetwork every
#   containerPort is also a host port (the API server defaults hostPort to it).
# custom:
#   id: daemonset/surge-with-hostport
#   severity: error
#   remediation: Use maxSurge 0 with maxUnavailable 1 (the default) for DaemonSets whose pods take host ports, so that the old pod frees the port before the new one starts.
package kubectl_workload.rules.daemonset_surge_with_hostport

import rego.v1

rolling := object.get(input.defaulted, ["spec", "updateStrategy", "rollingUpdate"], {})

surge := object.get(rolling, "maxSurge", 0)

pod := object.get(input.object, ["spec", "template", "spec"], {})

findings contains f if {
	input.object.kind == "DaemonSet"
	input.defaulted.spec.updateStrategy.type == "RollingUpdate"
	nonzero(surge)
	some field in ["initContainers", "containers"]
	some i, c in object.get(pod, field, [])
	counted(field, c)
	some j, p in object.get(c, "ports", [])
	some host_port, via in host_port_of(p)
	f := {
		"msg": sprintf(
			"maxSurge %v makes the controller start the updated pod on a node while the old one still runs there, but both need host port %d/%s (%s %q%s): the scheduler leaves the new pod Pending, the old pod is deleted only once the new one is available, so the rollout stalls",
			[surge, host_port, object.get(p, "protocol", "TCP"), kind_label[field], c.name, via],
		),
		"path": sprintf("spec.template.spec.%s[%d].ports[%d].%s", [field, i, j, field_of(p)]),
	}
}

nonzero(v) if {
	is_number(v)
	v > 0
}

nonzero(v) if {
	is_string(v)
	endswith(v, "%")
	to_number(trim_suffix(v, "%")) > 0
}

# The scheduler counts host ports of containers and of sidecar init containers.
counted("containers", _)

counted("initContainers", c) if c.restartPolicy == "Always"

kind_label := {"containers": "container", "initContainers": "sidecar init container"}

host_port_of(p) := {p.hostPort: ""} if {
	object.get(p, "hostPort", 0) > 0
} else := {p.containerPort: ", a host port because of hostNetwork"} if {
	pod.hostNetwork == true
}

field_of(p) := "hostPort" if {
	object.get(p, "hostPort", 0) > 0
} else := "containerPort"
