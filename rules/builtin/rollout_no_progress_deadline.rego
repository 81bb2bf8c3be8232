# METADATA
# title: progressDeadlineSeconds disables stall detection
# description: |
#   The Deployment controller treats progressDeadlineSeconds 2147483647
#   (math.MaxInt32) as "no deadline": HasProgressDeadline is false, so
#   DeploymentTimedOut never reports a timeout and syncRolloutStatus removes the
#   Progressing condition instead of setting it to False with reason
#   ProgressDeadlineExceeded. A rollout stuck on pods that never become ready is
#   then never reported as failed, and kubectl rollout status (without
#   --timeout) waits forever. Only that sentinel value, written explicitly, is
#   reported; the default is 600 seconds.
# custom:
#   id: rollout/no-progress-deadline
#   severity: warning
#   remediation: Set progressDeadlineSeconds to how long a healthy rollout may take (the default is 600), so that a stalled rollout is reported as ProgressDeadlineExceeded.
package kubectl_workload.rules.rollout_no_progress_deadline

import rego.v1

max_int32 := 2147483647

findings contains f if {
	input.object.kind == "Deployment"
	input.object.spec.progressDeadlineSeconds == max_int32
	f := {
		"msg": sprintf(
			"progressDeadlineSeconds is %d (math.MaxInt32), which the controller treats as no deadline: it removes the Progressing condition instead of ever setting reason ProgressDeadlineExceeded, so a stalled rollout is never reported and kubectl rollout status without --timeout waits forever (default deadline 600 seconds)",
			[max_int32],
		),
		"path": "spec.progressDeadlineSeconds",
	}
}
