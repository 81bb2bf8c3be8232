# METADATA
# title: Liveness probe identical to the readiness probe
# description: |
#   Readiness takes a pod out of its Services while it cannot serve; liveness
#   restarts the container. When both probes are the same check with the same
#   timing, a container that is only busy (a slow dependency, a burst of load)
#   fails both at once: instead of waiting until it is ready again, the kubelet
#   restarts it, which adds load to the others and can cascade. A liveness
#   probe should check only that the process is alive, with a higher failure
#   threshold than readiness. Reported when a container's livenessProbe and
#   readinessProbe are equal as written.
# custom:
#   id: probes/liveness-equals-readiness
#   severity: warning
#   remediation: Make the liveness probe check only that the process is alive (a separate endpoint), or give it a higher failureThreshold or periodSeconds than readiness.
package kubectl_workload.rules.probes_liveness_equals_readiness

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	not lib.owned_by_controller
	some pc in lib.pod_containers
	live := pc.container.livenessProbe
	live == pc.container.readinessProbe
	f := {
		"msg": sprintf("%s %q: livenessProbe is identical to readinessProbe: when the container is only busy, both fail together and the kubelet restarts it instead of waiting until it is ready again", [lib.container_label[pc.field], pc.container.name]),
		"path": sprintf("%s.livenessProbe", [pc.path]),
	}
}
