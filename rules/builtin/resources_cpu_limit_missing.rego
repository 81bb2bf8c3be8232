# METADATA
# title: Container without a CPU limit (opt-in)
# description: |
#   Without resources.limits.cpu a container may use every idle CPU of its
#   node. That is often what a team wants (CPU limits throttle a container
#   even when the node is idle, which hurts latency), so this rule is off by
#   default; teams that require CPU limits, for predictable performance or
#   for the Guaranteed QoS class, enable it with rules.enable.
# custom:
#   id: resources/cpu-limit-missing
#   severity: info
#   default: "off"
#   remediation: Set resources.limits.cpu, or leave it unset on purpose and keep this rule off.
package kubectl_workload.rules.resources_cpu_limit_missing

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	not lib.owned_by_controller
	some pc in lib.pod_containers
	object.get(pc.container, ["resources", "limits", "cpu"], null) == null
	f := {
		"msg": sprintf("%s %q has no CPU limit: it may use every idle CPU of its node", [lib.container_label[pc.field], pc.container.name]),
		"path": sprintf("%s.resources", [pc.path]),
	}
}
