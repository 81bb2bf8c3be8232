# METADATA
# title: ReplicationController instead of a Deployment
# description: |
#   ReplicationController is the original replica controller. A Deployment manages
#   ReplicaSets, which take set-based label selectors, and rolls out template changes
#   declaratively (RollingUpdate or Recreate, with maxSurge and maxUnavailable,
#   kubectl rollout status, history and undo). A ReplicationController has none of
#   this: changing its template does not replace the running pods, kubectl rollout
#   does not support it, and kubectl rolling-update, the client-side tool that used to
#   roll one out, has been removed from kubectl.
# custom:
#   id: kind/replicationcontroller
#   severity: info
#   remediation: Replace the ReplicationController with an apps/v1 Deployment (same pod template, spec.selector.matchLabels with the same labels).
package kubectl_workload.rules.kind_replicationcontroller

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	input.object.apiVersion == "v1"
	input.object.kind == "ReplicationController"
	f := {
		"msg": sprintf(
			"ReplicationController %s with replicas %d: use a Deployment, which manages ReplicaSets and rolls out template changes declaratively; kubectl rolling-update, the way to update a ReplicationController, was removed",
			[lib.display_name, object.get(input.defaulted, ["spec", "replicas"], 1)],
		),
		"path": "kind",
	}
}
