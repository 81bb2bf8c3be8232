package rules

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
)

// cronjobStartingDeadlineTooShortRule is cronjob/starting-deadline-too-short.
var cronjobStartingDeadlineTooShortRule = BuiltinRule{
	Meta: Rule{
		ID:       "cronjob/starting-deadline-too-short",
		Title:    "CronJob starting deadline too short to start reliably",
		Severity: SeverityWarning,
		Kinds:    []string{"CronJob"},
		File:     "object_cronjob_starting_deadline_too_short.go",
		Description: `spec.startingDeadlineSeconds is how late, after a scheduled time, the CronJob
controller may still start that run. The controller (ControllerV2) requeues each
CronJob for its next schedule time plus 100 ms (nextScheduleTimeDuration,
nextScheduleDelta); in syncCronJob a scheduled time older than the deadline is
"too late": the run is skipped with a MissSchedule event and never retried. So
a deadline of a few seconds only holds while every sync is on time: a
kube-controller-manager restart or leader failover (after a crashed leader, the
next one waits out the 15 s default lease), a work queue backlog (5 CronJob
workers by default) or API errors retried with back-off delay the sync past it
and the run is lost. With 0 the controller never runs the CronJob at
all: mostRecentScheduleTime only looks for schedule times after now minus the
deadline, that is after now, and there are none. The documented floor of 10 s
comes from the original controller, which polled every 10 seconds.`,
		Remediation: "Set startingDeadlineSeconds to at least 10 (a minute or more survives a controller restart), or remove it to allow late starts.",
	},
	Check: checkStartingDeadline,
}

// checkStartingDeadline reports a CronJob whose startingDeadlineSeconds is
// under 10 (0: it never runs, as mostRecentScheduleTime finds no schedule
// time).
func checkStartingDeadline(c *ObjectContext) []Finding {
	cj, ok := c.Object.(*batchv1.CronJob)
	if !ok || cj.Spec.StartingDeadlineSeconds == nil || *cj.Spec.StartingDeadlineSeconds >= 10 {
		return nil
	}
	d := *cj.Spec.StartingDeadlineSeconds
	msg := fmt.Sprintf("startingDeadlineSeconds %d is under 10: a run is skipped (MissSchedule event, no retry) whenever the controller's sync comes more than %d s after the scheduled time, as after a kube-controller-manager restart or leader failover or with a backlog of CronJobs", d, d)
	if d == 0 {
		msg = "startingDeadlineSeconds is 0: the CronJob controller only considers schedule times after now minus 0 s, that is none, so this CronJob never starts a Job"
	}
	return []Finding{{Path: "spec.startingDeadlineSeconds", Message: msg}}
}
