# METADATA
# title: Deployment uses the Recreate strategy
# description: |
#   With strategy Recreate, every rollout first scales all old ReplicaSets to 0
#   (rolloutRecreate, scaleDownOldReplicaSetsForRecreate) and creates or scales
#   up the new ReplicaSet only once no old pod is left outside the Succeeded and
#   Failed phases (oldPodsRunning). No pod serves in between: each rollout is
#   downtime that lasts at least as long as the old pods take to terminate, which
#   the kubelet bounds by the pod template's terminationGracePeriodSeconds (30
#   when not set), plus the time the new pods take to start and become ready.
#   Recreate is the right choice when two versions must never run at the same
#   time (a ReadWriteOnce volume, an exclusive lock, an incompatible schema),
#   so the finding is informational. Deployments with 0 replicas are left out.
# custom:
#   id: rollout/recreate
#   severity: info
#   remediation: Use the RollingUpdate strategy unless old and new pods must never run together; if they must not, keep Recreate and keep terminationGracePeriodSeconds as short as a clean shutdown allows.
package kubectl_workload.rules.rollout_recreate

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	input.object.kind == "Deployment"
	input.defaulted.spec.strategy.type == "Recreate"
	replicas := object.get(input.defaulted, ["spec", "replicas"], 1)
	replicas > 0
	grace := object.get(input.defaulted, ["spec", "template", "spec", "terminationGracePeriodSeconds"], 30)
	f := {
		"msg": sprintf(
			"strategy Recreate stops %s before any new pod starts: the controller scales every old ReplicaSet to 0 and creates new pods only once no old pod is running, so each rollout is downtime lasting at least as long as the old pods take to terminate (up to terminationGracePeriodSeconds %d%s) plus the new pods' startup",
			[pods_phrase(replicas), grace, grace_note],
		),
		"path": lib.path_or_parent(input.object, ["spec", "strategy", "type"]),
	}
}

grace_note := "" if {
	object.get(input.object, ["spec", "template", "spec", "terminationGracePeriodSeconds"], null) != null
} else := ", the default"

pods_phrase(1) := "the only pod"

pods_phrase(n) := sprintf("all %d pods", [n]) if n != 1
