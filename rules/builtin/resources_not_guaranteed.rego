# METADATA
# title: Container whose requests differ from its limits (opt-in, Guaranteed QoS)
# description: |
#   A pod is in the Guaranteed QoS class only when every container and init
#   container sets CPU and memory limits and its requests equal them (the API
#   server defaults an unset request to the limit); GetPodQOS in
#   k8s.io/kubernetes/pkg/apis/core/v1/helper/qos decides it. Guaranteed pods
#   are the last the kubelet evicts under memory pressure, get exclusive CPUs
#   from the static CPU manager policy (with an integer CPU count), and the
#   lowest OOM score. Most workloads are fine as Burstable, so this rule is
#   off by default; teams that require Guaranteed pods (latency-sensitive
#   services, databases) enable it with rules.enable. Quantities are compared
#   by value (1Gi equals 1024Mi, 500m equals 0.5). Reported for every
#   container and init container of Pods, pod templates and workloads;
#   objects owned by a controller are left to their owner.
# custom:
#   id: resources/not-guaranteed
#   severity: info
#   default: "off"
#   remediation: Set resources.limits.cpu and resources.limits.memory, and set the requests equal to them (or leave the requests unset, and the API server copies the limits).
package kubectl_workload.rules.resources_not_guaranteed

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	not lib.owned_by_controller
	some pc in lib.pod_containers
	problems := [p |
		some r in ["cpu", "memory"]
		some p in problem(pc.container, r)
	]
	count(problems) > 0
	f := {
		"msg": sprintf("%s %q %s, so its pod is not in the Guaranteed QoS class: it is evicted before Guaranteed pods under memory pressure and gets no exclusive CPUs", [lib.container_label[pc.field], pc.container.name, concat(" and ", problems)]),
		"path": sprintf("%s.resources", [pc.path]),
	}
}

problem(c, r) := {sprintf("sets no %s limit", [r])} if {
	object.get(c, ["resources", "limits", r], null) == null
} else := {sprintf("requests %s %v, not its limit %v", [r, req, lim])} if {
	lim := c.resources.limits[r]
	req := object.get(c, ["resources", "requests", r], null)
	req != null
	not same_quantity(req, lim)
} else := set()

same_quantity(a, b) if a == b

same_quantity(a, b) if units.parse(sprintf("%v", [a])) == units.parse(sprintf("%v", [b]))
