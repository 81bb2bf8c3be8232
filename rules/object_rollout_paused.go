package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// rolloutPausedRule is rollout/paused.
var rolloutPausedRule = BuiltinRule{
	Meta: Rule{
		ID:       "rollout/paused",
		Title:    "Deployment is paused in the manifest",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment"},
		File:     "object_rollout_paused.go",
		Description: `While spec.paused is true the Deployment controller only scales
(syncDeployment calls sync, never rolloutRolling or rolloutRecreate): changes
to spec.template do not roll out until kubectl rollout resume, and every
apply of the manifest pauses the Deployment again. A Deployment created
paused gets no ReplicaSet at all (sync looks up the new ReplicaSet without
creating it), so none of its pods start. Pausing is a tool for batching
changes on a live object, not a state to keep in a manifest.`,
		Remediation: "Remove spec.paused from the manifest (pause and resume with kubectl rollout pause and kubectl rollout resume while batching changes).",
	},
	Check: checkPaused,
}

// checkPaused reports a Deployment with spec.paused true.
func checkPaused(c *ObjectContext) []Finding {
	d, ok := c.Object.(*appsv1.Deployment)
	if !ok || !d.Spec.Paused {
		return nil
	}
	return []Finding{{Path: "spec.paused",
		Message: fmt.Sprintf("spec.paused is true: the controller only scales this Deployment, so spec.template changes do not roll out until kubectl rollout resume; created paused, it gets no ReplicaSet and none of its %d replicas start",
			ptrOr(d.Spec.Replicas, 1))}}
}
