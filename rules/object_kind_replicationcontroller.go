package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// kindReplicationcontrollerRule is kind/replicationcontroller.
var kindReplicationcontrollerRule = BuiltinRule{
	Meta: Rule{
		ID:       "kind/replicationcontroller",
		Title:    "ReplicationController instead of a Deployment",
		Severity: SeverityInfo,
		Kinds:    []string{"ReplicationController"},
		File:     "object_kind_replicationcontroller.go",
		Description: `ReplicationController is the original replica controller. A Deployment manages
ReplicaSets, which take set-based label selectors, and rolls out template changes
declaratively (RollingUpdate or Recreate, with maxSurge and maxUnavailable,
kubectl rollout status, history and undo). A ReplicationController has none of
this: changing its template does not replace the running pods, kubectl rollout
does not support it, and kubectl rolling-update, the client-side tool that used to
roll one out, has been removed from kubectl.`,
		Remediation: "Replace the ReplicationController with an apps/v1 Deployment (same pod template, spec.selector.matchLabels with the same labels).",
	},
	Check: checkReplicationController,
}

// checkReplicationController reports every ReplicationController.
func checkReplicationController(c *ObjectContext) []Finding {
	rc, ok := c.Object.(*corev1.ReplicationController)
	if !ok {
		return nil
	}
	return []Finding{{Path: "kind",
		Message: fmt.Sprintf("ReplicationController %s with replicas %d: use a Deployment, which manages ReplicaSets and rolls out template changes declaratively; kubectl rolling-update, the way to update a ReplicationController, was removed",
			c.Name, ptrOr(rc.Spec.Replicas, 1))}}
}
