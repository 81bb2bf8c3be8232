# METADATA
# title: Container without a liveness probe (opt-in)
# description: |
#   Without a livenessProbe the kubelet restarts a container only when its
#   process exits: a deadlocked process keeps running, and keeps failing its
#   readiness probe, forever. A liveness probe is not always wanted (a wrong
#   one does more harm than none), so this rule is off by default. Reported
#   for the containers of Deployments, StatefulSets and DaemonSets.
# custom:
#   id: probes/liveness-missing
#   severity: info
#   default: "off"
#   remediation: Add a livenessProbe that checks only that the process is alive, with a generous failureThreshold.
package kubectl_workload.rules.probes_liveness_missing

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	input.object.kind in {"Deployment", "StatefulSet", "DaemonSet"}
	some pc in lib.pod_containers
	pc.field == "containers"
	not pc.container.livenessProbe
	f := {
		"msg": sprintf("container %q has no livenessProbe: the kubelet restarts it only when its process exits", [pc.container.name]),
		"path": pc.path,
	}
}
