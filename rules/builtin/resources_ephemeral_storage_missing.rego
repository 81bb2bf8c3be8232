# METADATA
# title: Container without an ephemeral-storage limit (opt-in)
# description: |
#   A container writes its logs, its writable layer and its emptyDir volumes
#   (those without a medium) to the node's ephemeral storage. The scheduler
#   places a pod by its containers' ephemeral-storage requests, and the
#   kubelet evicts a pod whose container exceeds its ephemeral-storage limit;
#   without either, a container may fill its node's disk, and under disk
#   pressure the kubelet evicts pods of the node by their usage above their
#   requests, whichever pod grew. When a limit is set and the request is not,
#   the API server defaults the request to the limit, so a container is
#   reported when it sets no ephemeral-storage limit. Many clusters never see
#   disk pressure, so this rule is off by default; teams that share nodes
#   between tenants enable it with rules.enable. Reported for every container
#   and init container of Pods, pod templates and workloads; objects owned by
#   a controller are left to their owner.
# custom:
#   id: resources/ephemeral-storage-missing
#   severity: info
#   default: "off"
#   remediation: Set resources.limits.ephemeral-storage (and resources.requests.ephemeral-storage, if lower) to what the container writes to its node's disk.
package kubectl_workload.rules.resources_ephemeral_storage_missing

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	not lib.owned_by_controller
	some pc in lib.pod_containers
	object.get(pc.container, ["resources", "limits", "ephemeral-storage"], null) == null
	f := {
		"msg": sprintf("%s %q %s: it may fill its node's disk with logs, its writable layer and emptyDir volumes, and the kubelet then evicts pods of the node under disk pressure", [lib.container_label[pc.field], pc.container.name, what(pc.container)]),
		"path": sprintf("%s.resources", [pc.path]),
	}
}

what(c) := "requests no ephemeral storage and sets no ephemeral-storage limit" if {
	object.get(c, ["resources", "requests", "ephemeral-storage"], null) == null
} else := sprintf("requests ephemeral-storage %v but sets no ephemeral-storage limit", [c.resources.requests["ephemeral-storage"]])
