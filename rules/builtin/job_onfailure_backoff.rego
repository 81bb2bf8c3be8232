# METADATA
# title: Job with restartPolicy OnFailure loses its logs at the backoff limit
# description: |
#   With restartPolicy OnFailure a failing container is restarted in the same pod, and
#   the Job controller counts those restarts against spec.backoffLimit
#   (pastBackoffLimitOnFailure sums the restart counts of the running and pending
#   pods). When they reach the limit it fails the Job (BackoffLimitExceeded) and
#   deletes the active pods, so the failing container and its logs are gone; the
#   Job documentation suggests restartPolicy Never while debugging, which keeps every
#   failed pod. An unset backoffLimit counts: SetDefaults_Job sets it to 6 (for a
#   CronJob, on each Job created from the template). Skipped when backoffLimitPerIndex
#   is set without backoffLimit, because backoffLimit then defaults to 2147483647.
# custom:
#   id: job/onfailure-backoff
#   severity: info
#   remediation: Use restartPolicy Never, so that each failed attempt leaves its pod and logs, or ship container logs to a logging system.
package kubectl_workload.rules.job_onfailure_backoff

import rego.v1

# job_specs maps the path of each Job spec in the object to that spec.
job_specs[["spec"]] := input.object.spec if {
	input.object.apiVersion == "batch/v1"
	input.object.kind == "Job"
}

job_specs[["spec", "jobTemplate", "spec"]] := input.object.spec.jobTemplate.spec if {
	input.object.apiVersion == "batch/v1"
	input.object.kind == "CronJob"
}

findings contains f if {
	some prefix, spec in job_specs
	object.get(spec, ["template", "spec", "restartPolicy"], "") == "OnFailure"
	some limit in backoff_limit(spec)
	f := {
		"msg": sprintf(
			"restartPolicy OnFailure with %s: the Job controller counts container restarts against it, and %s it fails the Job and deletes its running pods, so the failing container's logs are lost",
			[limit.text, reached(limit.value)],
		),
		"path": concat(".", array.concat(prefix, ["template", "spec", "restartPolicy"])),
	}
}

# backoff_limit(spec) is the effective backoffLimit, as a one-element set, or empty
# when the per-index limit makes the global one unreachable.
backoff_limit(spec) := {{"value": spec.backoffLimit, "text": sprintf("backoffLimit %d", [spec.backoffLimit])}} if {
	is_number(spec.backoffLimit)
} else := set() if {
	object.get(spec, "backoffLimitPerIndex", null) != null
} else := {{"value": 6, "text": "the default backoffLimit 6"}}

reached(0) := "at the first restart"

reached(n) := sprintf("once they reach %d", [n]) if n > 0
