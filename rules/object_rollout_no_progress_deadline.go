package rules

import (
	"fmt"
	"math"

	appsv1 "k8s.io/api/apps/v1"
)

// rolloutNoProgressDeadlineRule is rollout/no-progress-deadline.
var rolloutNoProgressDeadlineRule = BuiltinRule{
	Meta: Rule{
		ID:       "rollout/no-progress-deadline",
		Title:    "progressDeadlineSeconds disables stall detection",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment"},
		File:     "object_rollout_no_progress_deadline.go",
		Description: `The Deployment controller treats progressDeadlineSeconds 2147483647
(math.MaxInt32) as "no deadline": HasProgressDeadline is false, so
DeploymentTimedOut never reports a timeout and syncRolloutStatus removes the
Progressing condition instead of setting it to False with reason
ProgressDeadlineExceeded. A rollout stuck on pods that never become ready is
then never reported as failed, and kubectl rollout status (without
--timeout) waits forever. Only that sentinel value, written explicitly, is
reported; the default is 600 seconds.`,
		Remediation: "Set progressDeadlineSeconds to how long a healthy rollout may take (the default is 600), so that a stalled rollout is reported as ProgressDeadlineExceeded.",
	},
	Check: checkNoProgressDeadline,
}

// checkNoProgressDeadline reports a Deployment whose progressDeadlineSeconds
// is math.MaxInt32, which deploymentutil.HasProgressDeadline reads as no
// deadline.
func checkNoProgressDeadline(c *ObjectContext) []Finding {
	d, ok := c.Object.(*appsv1.Deployment)
	if !ok || d.Spec.ProgressDeadlineSeconds == nil || *d.Spec.ProgressDeadlineSeconds != math.MaxInt32 {
		return nil
	}
	return []Finding{{Path: "spec.progressDeadlineSeconds",
		Message: fmt.Sprintf("progressDeadlineSeconds is %d (math.MaxInt32), which the controller treats as no deadline: it removes the Progressing condition instead of ever setting reason ProgressDeadlineExceeded, so a stalled rollout is never reported and kubectl rollout status without --timeout waits forever (default deadline 600 seconds)",
			math.MaxInt32)}}
}
