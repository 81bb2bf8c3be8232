# METADATA
# title: Deployment is paused in the manifest
# description: |
#   While spec.paused is true the Deployment controller only scales
#   (syncDeployment calls sync, never rolloutRolling or rolloutRecreate): changes
#   to spec.template do not roll out until kubectl rollout resume, and every
#   apply of the manifest pauses the Deployment again. A Deployment created
#   paused gets no ReplicaSet at all (sync looks up the new ReplicaSet without
#   creating it), so none of its pods start. Pausing is a tool for batching
#   changes on a live object, not a state to keep in a manifest.
# custom:
#   id: rollout/paused
#   severity: warning
#   remediation: Remove spec.paused from the manifest (pause and resume with kubectl rollout pause and kubectl rollout resume while batching changes).
package kubectl_workload.rules.rollout_paused

import rego.v1

findings contains f if {
	input.object.kind == "Deployment"
	input.object.spec.paused == true
	replicas := object.get(input.defaulted, ["spec", "replicas"], 1)
	f := {
		"msg": sprintf(
			"spec.paused is true: the controller only scales this Deployment, so spec.template changes do not roll out until kubectl rollout resume; created paused, it gets no ReplicaSet and none of its %d replicas start",
			[replicas],
		),
		"path": "spec.paused",
	}
}
