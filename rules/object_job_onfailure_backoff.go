package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// jobOnfailureBackoffRule is job/onfailure-backoff.
var jobOnfailureBackoffRule = BuiltinRule{
	Meta: Rule{
		ID:       "job/onfailure-backoff",
		Title:    "Job with restartPolicy OnFailure loses its logs at the backoff limit",
		Severity: SeverityInfo,
		Kinds:    []string{"Job", "CronJob"},
		File:     "object_job_onfailure_backoff.go",
		OptIn:    true,
		Measured: "0 of 24 true on 12 inputs",
		Description: `With restartPolicy OnFailure a failing container is restarted in the same pod, and
the Job controller counts those restarts against spec.backoffLimit
(pastBackoffLimitOnFailure sums the restart counts of the running and pending
pods). When they reach the limit it fails the Job (BackoffLimitExceeded) and
deletes the active pods, so the failing container and its logs are gone; the
Job documentation suggests restartPolicy Never while debugging, which keeps every
failed pod. An unset backoffLimit counts: SetDefaults_Job sets it to 6 (for a
CronJob, on each Job created from the template). Skipped when backoffLimitPerIndex
is set without backoffLimit, because backoffLimit then defaults to 2147483647.`,
		Remediation: "Use restartPolicy Never, so that each failed attempt leaves its pod and logs, or ship container logs to a logging system.",
	},
	Check: checkOnFailureBackoff,
}

// checkOnFailureBackoff reports a Job spec (a Job's, or a CronJob's job
// template) with restartPolicy OnFailure and a reachable backoffLimit:
// written, or SetDefaults_Job's 6 (none when backoffLimitPerIndex is written
// without it, which defaults it to MaxInt32).
func checkOnFailureBackoff(c *ObjectContext) []Finding {
	prefix, spec := jobSpecs(c.Object)
	if spec == nil || spec.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		return nil
	}
	// backoffLimit is defaulted (6, or MaxInt32 with backoffLimitPerIndex):
	// whether it was written decides.
	_, written := jobSpecs(c.Written())
	if written == nil {
		return nil
	}
	var limit int32
	var text string
	if b := written.BackoffLimit; b != nil {
		limit, text = *b, fmt.Sprintf("backoffLimit %d", *b)
	} else if written.BackoffLimitPerIndex != nil {
		return nil
	} else {
		limit, text = 6, "the default backoffLimit 6"
	}
	reached := "at the first restart"
	if limit > 0 {
		reached = fmt.Sprintf("once they reach %d", limit)
	} else if limit < 0 {
		return nil
	}
	return []Finding{{Path: strings.Join(prefix, ".") + ".template.spec.restartPolicy",
		Message: fmt.Sprintf("restartPolicy OnFailure with %s: the Job controller counts container restarts against it, and %s it fails the Job and deletes its running pods, so the failing container's logs are lost",
			text, reached)}}
}
