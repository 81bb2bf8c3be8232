# METADATA
# title: Job parallelism above its completions
# description: |
#   When spec.completions is set, the Job controller (manageJob) wants as many active
#   pods as the completions still missing, capped by spec.parallelism: it never runs
#   more pods at once than completions minus succeeded. A parallelism above
#   completions therefore never takes effect; it usually means the two fields were
#   swapped, or that a work-queue Job (completions unset, so that the first success
#   ends the Job) was intended. Reported for Jobs and CronJob job templates when both
#   fields are written.
# custom:
#   id: job/parallelism-exceeds-completions
#   severity: info
#   remediation: Lower parallelism to completions or less, or raise completions; for a work queue, leave completions unset.
package kubectl_workload.rules.job_parallelism_exceeds_completions

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
	is_number(spec.parallelism)
	is_number(spec.completions)
	spec.parallelism > spec.completions
	f := {
		"msg": sprintf(
			"parallelism %d exceeds completions %d: the Job controller never runs more pods at once than the completions still missing, so at most %d run and the other %d never start",
			[spec.parallelism, spec.completions, spec.completions, spec.parallelism - spec.completions],
		),
		"path": concat(".", array.concat(prefix, ["parallelism"])),
	}
}
