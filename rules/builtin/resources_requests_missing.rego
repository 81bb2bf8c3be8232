# METADATA
# title: Container without CPU or memory requests
# description: |
#   The scheduler places a pod by its containers' requests (the sum of the
#   containers', or the largest init container's): a container that requests
#   no CPU or no memory is placed as if it needed none, so nodes are
#   overcommitted and the pod is among the first the kubelet evicts under
#   memory pressure (its QoS class is BestEffort or Burstable). When a limit
#   is set and the request is not, the API server defaults the request to the
#   limit, so only a resource with neither a request nor a limit is reported.
#   Reported for every container and init container of Pods, pod templates and
#   workloads; objects owned by a controller are left to their owner.
# custom:
#   id: resources/requests-missing
#   severity: warning
#   remediation: Set resources.requests.cpu and resources.requests.memory to what the container needs under normal load.
package kubectl_workload.rules.resources_requests_missing

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	not lib.owned_by_controller
	some pc in lib.pod_containers
	missing := [r |
		some r in ["cpu", "memory"]
		not has_request(pc.container, r)
	]
	count(missing) > 0
	f := {
		"msg": sprintf("%s %q requests no %s (and sets no limit the API server would default it from): the scheduler places it as if it needed none, and the kubelet evicts it first under memory pressure", [lib.container_label[pc.field], pc.container.name, concat(" and no ", missing)]),
		"path": sprintf("%s.resources", [pc.path]),
	}
}

has_request(c, r) if object.get(c, ["resources", "requests", r], null) != null

has_request(c, r) if object.get(c, ["resources", "limits", r], null) != null
