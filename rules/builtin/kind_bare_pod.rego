# METADATA
# title: Bare Pod without a controller
# description: |
#   A Pod without ownerReferences has no controller to recreate it. A pod is bound
#   to one node for its whole life: if the node fails, the pod is evicted (by
#   default after the 300 s not-ready or unreachable toleration the API server adds)
#   and deleted, and nothing replaces it; the same holds after a drain, a preemption
#   or a kubectl delete. Its spec is also mostly immutable, so a new image or
#   configuration means deleting and recreating it by hand. Pods that carry
#   ownerReferences (created by a controller, or adopted) are not reported.
# custom:
#   id: kind/bare-pod
#   severity: info
#   remediation: Run the pod from a controller, such as a Deployment (or a StatefulSet for stable identity and storage, a DaemonSet for one per node), or a Job for a task that runs to completion.
package kubectl_workload.rules.kind_bare_pod

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	input.object.apiVersion == "v1"
	input.object.kind == "Pod"
	count(object.get(input.object, ["metadata", "ownerReferences"], [])) == 0
	f := {
		"msg": sprintf(
			"Pod %s has no ownerReferences: no controller replaces it when it is deleted, evicted or its node fails, and it is not rescheduled elsewhere; run it from a %s",
			[lib.display_name, suggestion],
		),
		"path": "kind",
	}
}

# suggestion follows the pod's restartPolicy: a pod meant to finish is a Job's.
suggestion := "Job" if {
	object.get(input.object, ["spec", "restartPolicy"], "Always") in {"Never", "OnFailure"}
} else := "Deployment, StatefulSet or DaemonSet"
