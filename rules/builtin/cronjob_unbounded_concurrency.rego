# METADATA
# title: CronJob runs can pile up
# description: |
#   concurrencyPolicy defaults to Allow (SetDefaults_CronJob). With Allow, the CronJob
#   controller starts every scheduled run whether or not earlier ones are still active
#   (syncCronJob only holds back for Forbid and deletes the active Jobs for Replace).
#   Without activeDeadlineSeconds on spec.jobTemplate.spec, nothing stops a run that
#   hangs, so runs that outlast the schedule interval accumulate, each with its pods,
#   competing for the same resources and often for the same work.
# custom:
#   id: cronjob/unbounded-concurrency
#   severity: info
#   remediation: Set concurrencyPolicy to Forbid or Replace, or bound each run with spec.jobTemplate.spec.activeDeadlineSeconds.
package kubectl_workload.rules.cronjob_unbounded_concurrency

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	input.object.apiVersion == "batch/v1"
	input.object.kind == "CronJob"
	input.defaulted.spec.concurrencyPolicy == "Allow"
	object.get(input.object, ["spec", "jobTemplate", "spec", "activeDeadlineSeconds"], null) == null
	f := {
		"msg": sprintf(
			"%s and spec.jobTemplate.spec has no activeDeadlineSeconds: every run of schedule %q starts even while earlier runs are still active, and nothing ends a run that hangs, so Jobs and their pods can pile up",
			[policy, object.get(input.object, ["spec", "schedule"], "")],
		),
		"path": lib.path_or_parent(input.object, ["spec", "concurrencyPolicy"]),
	}
}

policy := "concurrencyPolicy is Allow" if {
	object.get(input.object, ["spec", "concurrencyPolicy"], "") == "Allow"
} else := "concurrencyPolicy is unset (Allow by default)"
