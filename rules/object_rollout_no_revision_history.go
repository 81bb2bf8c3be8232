package rules

import (
	appsv1 "k8s.io/api/apps/v1"
)

// rolloutNoRevisionHistoryRule is rollout/no-revision-history.
var rolloutNoRevisionHistoryRule = BuiltinRule{
	Meta: Rule{
		ID:       "rollout/no-revision-history",
		Title:    "revisionHistoryLimit 0 makes rollbacks impossible",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet"},
		File:     "object_rollout_no_revision_history.go",
		Description: `A Deployment keeps old, scaled-down ReplicaSets as its rollout history; with
revisionHistoryLimit 0 the controller deletes every one of them
(cleanupDeployment), so kubectl rollout undo fails with "no rollout history
found" and a bad release can only be fixed by a new rollout. StatefulSets and
DaemonSets keep their history as ControllerRevisions: with
revisionHistoryLimit 0 their controllers delete every revision that no pod
uses any more (truncateHistory, cleanupHistory), so once a rollout completes
kubectl rollout undo fails with "no last revision to roll back to". Only an
explicit 0 is reported: the default is 10.`,
		Remediation: "Keep a few revisions (revisionHistoryLimit of 2 or more, or leave the default of 10) so that kubectl rollout undo can return to the previous one.",
	},
	Check: checkNoRevisionHistory,
}

var revisionHistoryConsequence = map[string]string{
	"Deployment":  "the controller deletes every old ReplicaSet once it is scaled to 0, so kubectl rollout undo has no revision to return to (\"no rollout history found\")",
	"StatefulSet": "the controller deletes every ControllerRevision that no pod uses, so after a completed rollout kubectl rollout undo has no revision to return to (\"no last revision to roll back to\")",
	"DaemonSet":   "the controller deletes every ControllerRevision that no pod uses, so after a completed rollout kubectl rollout undo has no revision to return to (\"no last revision to roll back to\")",
}

// checkNoRevisionHistory reports a Deployment, StatefulSet or DaemonSet
// whose revisionHistoryLimit is 0 (only written: the default is 10).
func checkNoRevisionHistory(c *ObjectContext) []Finding {
	var kind string
	var limit *int32
	switch o := c.Object.(type) {
	case *appsv1.Deployment:
		kind, limit = "Deployment", o.Spec.RevisionHistoryLimit
	case *appsv1.StatefulSet:
		kind, limit = "StatefulSet", o.Spec.RevisionHistoryLimit
	case *appsv1.DaemonSet:
		kind, limit = "DaemonSet", o.Spec.RevisionHistoryLimit
	default:
		return nil
	}
	if limit == nil || *limit != 0 {
		return nil
	}
	return []Finding{{Path: "spec.revisionHistoryLimit",
		Message: "revisionHistoryLimit is 0 (default 10): " + revisionHistoryConsequence[kind]}}
}
