package rules

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
)

// jobNoTtlRule is job/no-ttl.
var jobNoTtlRule = BuiltinRule{
	Meta: Rule{
		ID:       "job/no-ttl",
		Title:    "Finished Job is never cleaned up",
		Severity: SeverityInfo,
		Kinds:    []string{"Job"},
		File:     "object_job_no_ttl.go",
		Description: `A Job without spec.ttlSecondsAfterFinished is never deleted automatically: the
TTL-after-finished controller only acts on Jobs that set it, and a finished Job
keeps its finished pods (and their logs) until the Job is deleted. Jobs created
by a CronJob are exempt: the CronJob controller deletes its own finished Jobs
beyond successfulJobsHistoryLimit and failedJobsHistoryLimit (3 and 1 by default,
cleanupFinishedJobs), finding them by their controller ownerReference. So are
Helm and Argo CD hook Jobs (annotation helm.sh/hook, or argocd.argoproj.io/hook
other than Skip): without a hook-delete-policy both tools default to
before-hook-creation and delete the previous Job before creating the next, so
they do not accumulate. Other finished Jobs accumulate in the namespace.`,
		Remediation: "Set spec.ttlSecondsAfterFinished (for example 86400, a day, to keep the logs for a while) or run the Job from a CronJob.",
	},
	Check: checkJobNoTTL,
}

// checkJobNoTTL reports a Job without ttlSecondsAfterFinished that no
// CronJob owns and that is no Helm or Argo CD hook.
func checkJobNoTTL(c *ObjectContext) []Finding {
	job, ok := c.Object.(*batchv1.Job)
	if !ok || job.Spec.TTLSecondsAfterFinished != nil {
		return nil
	}
	for _, ref := range job.OwnerReferences {
		if ref.Kind == "CronJob" && strings.HasPrefix(ref.APIVersion, "batch/") {
			return nil
		}
	}
	if _, ok := job.Annotations["helm.sh/hook"]; ok {
		return nil
	}
	if hook, ok := job.Annotations["argocd.argoproj.io/hook"]; ok && hook != "Skip" {
		return nil
	}
	return []Finding{{Path: "spec",
		Message: fmt.Sprintf("Job %s has no ttlSecondsAfterFinished and no CronJob owner: once finished it stays, with its pods, until someone deletes it", c.Name)}}
}
