package rules

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
)

// cronjobUnboundedConcurrencyRule is cronjob/unbounded-concurrency.
var cronjobUnboundedConcurrencyRule = BuiltinRule{
	Meta: Rule{
		ID:       "cronjob/unbounded-concurrency",
		Title:    "CronJob runs can pile up",
		Severity: SeverityInfo,
		Kinds:    []string{"CronJob"},
		File:     "object_cronjob_unbounded_concurrency.go",
		Description: `concurrencyPolicy defaults to Allow (SetDefaults_CronJob). With Allow, the CronJob
controller starts every scheduled run whether or not earlier ones are still active
(syncCronJob only holds back for Forbid and deletes the active Jobs for Replace).
Without activeDeadlineSeconds on spec.jobTemplate.spec, nothing stops a run that
hangs, so runs that outlast the schedule interval accumulate, each with its pods,
competing for the same resources and often for the same work.`,
		Remediation: "Set concurrencyPolicy to Forbid or Replace, or bound each run with spec.jobTemplate.spec.activeDeadlineSeconds.",
	},
	Check: checkUnboundedConcurrency,
}

// checkUnboundedConcurrency reports a CronJob whose concurrencyPolicy is
// Allow (SetDefaults_CronJob's default when unset) and whose job template
// has no activeDeadlineSeconds.
func checkUnboundedConcurrency(c *ObjectContext) []Finding {
	cj, ok := c.Object.(*batchv1.CronJob)
	if !ok || cj.Spec.ConcurrencyPolicy != batchv1.AllowConcurrent || cj.Spec.JobTemplate.Spec.ActiveDeadlineSeconds != nil {
		return nil
	}
	// concurrencyPolicy is defaulted to Allow: whether it was written
	// decides the message and the field.
	policy, path := "concurrencyPolicy is unset (Allow by default)", "spec"
	if written, ok := c.Written().(*batchv1.CronJob); ok && written.Spec.ConcurrencyPolicy != "" {
		path = "spec.concurrencyPolicy"
		if written.Spec.ConcurrencyPolicy == batchv1.AllowConcurrent {
			policy = "concurrencyPolicy is Allow"
		}
	}
	return []Finding{{
		Path: path,
		Message: fmt.Sprintf("%s and spec.jobTemplate.spec has no activeDeadlineSeconds: every run of schedule %q starts even while earlier runs are still active, and nothing ends a run that hangs, so Jobs and their pods can pile up",
			policy, cj.Spec.Schedule),
	}}
}
