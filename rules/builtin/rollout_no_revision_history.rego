# METADATA
# title: revisionHistoryLimit 0 makes rollbacks impossible
# description: |
#   A Deployment keeps old, scaled-down ReplicaSets as its rollout history; with
#   revisionHistoryLimit 0 the controller deletes every one of them
#   (cleanupDeployment), so kubectl rollout undo fails with "no rollout history
#   found" and a bad release can only be fixed by a new rollout. StatefulSets and
#   DaemonSets keep their history as ControllerRevisions: with
#   revisionHistoryLimit 0 their controllers delete every revision that no pod
#   uses any more (truncateHistory, cleanupHistory), so once a rollout completes
#   kubectl rollout undo fails with "no last revision to roll back to". Only an
#   explicit 0 is reported: the default is 10.
# custom:
#   id: rollout/no-revision-history
#   severity: warning
#   remediation: Keep a few revisions (revisionHistoryLimit of 2 or more, or leave the default of 10) so that kubectl rollout undo can return to the previous one.
package kubectl_workload.rules.rollout_no_revision_history

import rego.v1

findings contains f if {
	input.object.kind in {"Deployment", "StatefulSet", "DaemonSet"}
	input.object.spec.revisionHistoryLimit == 0
	f := {
		"msg": sprintf("revisionHistoryLimit is 0 (default 10): %s", [consequence[input.object.kind]]),
		"path": "spec.revisionHistoryLimit",
	}
}

consequence := {
	"Deployment": "the controller deletes every old ReplicaSet once it is scaled to 0, so kubectl rollout undo has no revision to return to (\"no rollout history found\")",
	"StatefulSet": "the controller deletes every ControllerRevision that no pod uses, so after a completed rollout kubectl rollout undo has no revision to return to (\"no last revision to roll back to\")",
	"DaemonSet": "the controller deletes every ControllerRevision that no pod uses, so after a completed rollout kubectl rollout undo has no revision to return to (\"no last revision to roll back to\")",
}
