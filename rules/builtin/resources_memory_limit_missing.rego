# METADATA
# title: Container without a memory limit
# description: |
#   Without resources.limits.memory a container may use all the memory of its
#   node: when the node runs out, the kernel's OOM killer and the kubelet's
#   eviction pick among every pod of the node, not only the one that grew.
#   Memory is not compressible, unlike CPU, so a limit is the only bound.
#   Reported for every container and init container of Pods, pod templates and
#   workloads; objects owned by a controller are left to their owner.
# custom:
#   id: resources/memory-limit-missing
#   severity: warning
#   remediation: Set resources.limits.memory, usually equal to the memory request.
package kubectl_workload.rules.resources_memory_limit_missing

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	not lib.owned_by_controller
	some pc in lib.pod_containers
	object.get(pc.container, ["resources", "limits", "memory"], null) == null
	f := {
		"msg": sprintf("%s %q has no memory limit: it may use all the memory of its node, and when the node runs out, other pods are killed or evicted with it", [lib.container_label[pc.field], pc.container.name]),
		"path": sprintf("%s.resources", [pc.path]),
	}
}
