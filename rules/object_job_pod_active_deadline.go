package rules

import (
	"fmt"
	"strings"
)

// jobPodActiveDeadlineRule is job/pod-active-deadline.
var jobPodActiveDeadlineRule = BuiltinRule{
	Meta: Rule{
		ID:       "job/pod-active-deadline",
		Title:    "activeDeadlineSeconds on the pod template instead of the Job",
		Severity: SeverityWarning,
		Kinds:    []string{"Job", "CronJob"},
		File:     "object_job_pod_active_deadline.go",
		Description: `A Job and its pod template both have an activeDeadlineSeconds field. On the pod
template it bounds each pod: the kubelet's active deadline handler fails a pod
that has been running that long (reason DeadlineExceeded). The Job controller
counts that pod as failed and creates a replacement, as for any failed pod, until
backoffLimit is exceeded (6 by default, SetDefaults_Job). Only the Job's own
spec.activeDeadlineSeconds bounds the Job as a whole (pastActiveDeadline in the
Job controller, which then fails the Job with reason DeadlineExceeded and deletes
its active pods). Reported when the pod template sets a deadline and the Job spec
does not, for Jobs and for CronJob job templates.`,
		Remediation: "Move activeDeadlineSeconds from the pod template to the Job spec (spec.activeDeadlineSeconds, or spec.jobTemplate.spec.activeDeadlineSeconds in a CronJob), or set both.",
	},
	Check: checkPodActiveDeadline,
}

// checkPodActiveDeadline reports a Job spec whose pod template sets
// activeDeadlineSeconds and whose own spec does not.
func checkPodActiveDeadline(c *ObjectContext) []Finding {
	prefix, spec := jobSpecs(c.Object)
	if spec == nil || spec.Template.Spec.ActiveDeadlineSeconds == nil || spec.ActiveDeadlineSeconds != nil {
		return nil
	}
	retries := "until the default backoffLimit 6 is exceeded"
	// backoffLimit is defaulted: the message names what was written.
	if _, written := jobSpecs(c.Written()); written != nil && written.BackoffLimit != nil {
		retries = fmt.Sprintf("until backoffLimit %d is exceeded", *written.BackoffLimit)
	} else if written != nil && written.BackoffLimitPerIndex != nil {
		retries = fmt.Sprintf("until an index exceeds backoffLimitPerIndex %d", *written.BackoffLimitPerIndex)
	}
	return []Finding{{Path: strings.Join(prefix, ".") + ".template.spec.activeDeadlineSeconds",
		Message: fmt.Sprintf("activeDeadlineSeconds %d is set on the pod template but not on the Job: it bounds each pod, not the Job; a pod that reaches it is failed (DeadlineExceeded) and the Job controller starts a replacement, %s, so the Job itself has no deadline",
			*spec.Template.Spec.ActiveDeadlineSeconds, retries)}}
}
