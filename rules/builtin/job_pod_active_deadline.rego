# METADATA
# title: activeDeadlineSeconds on the pod template instead of the Job
# description: |
#   A Job and its pod template both have an activeDeadlineSeconds field. On the pod
#   template it bounds each pod: the kubelet's active deadline handler fails a pod
#   that has been running that long (reason DeadlineExceeded). The Job controller
#   counts that pod as failed and creates a replacement, as for any failed pod, until
#   backoffLimit is exceeded (6 by default, SetDefaults_Job). Only the Job's own
#   spec.activeDeadlineSeconds bounds the Job as a whole (pastActiveDeadline in the
#   Job controller, which then fails the Job with reason DeadlineExceeded and deletes
#   its active pods). Reported when the pod template sets a deadline and the Job spec
#   does not, for Jobs and for CronJob job templates.
# custom:
#   id: job/pod-active-deadline
#   severity: warning
#   remediation: Move activeDeadlineSeconds from the pod template to the Job spec (spec.activeDeadlineSeconds, or spec.jobTemplate.spec.activeDeadlineSeconds in a CronJob), or set both.
package kubectl_workload.rules.job_pod_active_deadline

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
	pod_deadline := object.get(spec, ["template", "spec", "activeDeadlineSeconds"], null)
	pod_deadline != null
	object.get(spec, "activeDeadlineSeconds", null) == null
	f := {
		"msg": sprintf(
			"activeDeadlineSeconds %d is set on the pod template but not on the Job: it bounds each pod, not the Job; a pod that reaches it is failed (DeadlineExceeded) and the Job controller starts a replacement, %s, so the Job itself has no deadline",
			[pod_deadline, retries(spec)],
		),
		"path": concat(".", array.concat(prefix, ["template", "spec", "activeDeadlineSeconds"])),
	}
}

retries(spec) := sprintf("until backoffLimit %d is exceeded", [spec.backoffLimit]) if {
	object.get(spec, "backoffLimit", null) != null
} else := sprintf("until an index exceeds backoffLimitPerIndex %d", [spec.backoffLimitPerIndex]) if {
	object.get(spec, "backoffLimitPerIndex", null) != null
} else := "until the default backoffLimit 6 is exceeded"
