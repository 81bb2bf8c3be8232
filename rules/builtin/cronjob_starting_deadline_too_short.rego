# METADATA
# title: CronJob starting deadline too short to start reliably
# description: |
#   spec.startingDeadlineSeconds is how late, after a scheduled time, the CronJob
#   controller may still start that run. The controller (ControllerV2) requeues each
#   CronJob for its next schedule time plus 100 ms (nextScheduleTimeDuration,
#   nextScheduleDelta); in syncCronJob a scheduled time older than the deadline is
#   "too late": the run is skipped with a MissSchedule event and never retried. So
#   a deadline of a few seconds only holds while every sync is on time: a
#   kube-controller-manager restart or leader failover (after a crashed leader, the
#   next one waits out the 15 s default lease), a work queue backlog (5 CronJob
#   workers by default) or API errors retried with back-off delay the sync past it
#   and the run is lost. With 0 the controller never runs the CronJob at
#   all: mostRecentScheduleTime only looks for schedule times after now minus the
#   deadline, that is after now, and there are none. The documented floor of 10 s
#   comes from the original controller, which polled every 10 seconds.
# custom:
#   id: cronjob/starting-deadline-too-short
#   severity: warning
#   remediation: Set startingDeadlineSeconds to at least 10 (a minute or more survives a controller restart), or remove it to allow late starts.
package kubectl_workload.rules.cronjob_starting_deadline_too_short

import rego.v1

findings contains f if {
	input.object.apiVersion == "batch/v1"
	input.object.kind == "CronJob"
	d := input.object.spec.startingDeadlineSeconds
	is_number(d)
	d < 10
	f := {"msg": message(d), "path": "spec.startingDeadlineSeconds"}
}

message(d) := msg if {
	d == 0
	msg := "startingDeadlineSeconds is 0: the CronJob controller only considers schedule times after now minus 0 s, that is none, so this CronJob never starts a Job"
} else := sprintf(
	"startingDeadlineSeconds %d is under 10: a run is skipped (MissSchedule event, no retry) whenever the controller's sync comes more than %d s after the scheduled time, as after a kube-controller-manager restart or leader failover or with a backlog of CronJobs",
	[d, d],
)
