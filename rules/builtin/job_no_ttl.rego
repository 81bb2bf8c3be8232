# METADATA
# title: Finished Job is never cleaned up
# description: |
#   A Job without spec.ttlSecondsAfterFinished is never deleted automatically: the
#   TTL-after-finished controller only acts on Jobs that set it, and a finished Job
#   keeps its finished pods (and their logs) until the Job is deleted. Jobs created
#   by a CronJob are exempt: the CronJob controller deletes its own finished Jobs
#   beyond successfulJobsHistoryLimit and failedJobsHistoryLimit (3 and 1 by default,
#   cleanupFinishedJobs), finding them by their controller ownerReference. So are
#   Helm and Argo CD hook Jobs (annotation helm.sh/hook, or argocd.argoproj.io/hook
#   other than Skip): without a hook-delete-policy both tools default to
#   before-hook-creation and delete the previous Job before creating the next, so
#   they do not accumulate. Other finished Jobs accumulate in the namespace.
# custom:
#   id: job/no-ttl
#   severity: info
#   remediation: Set spec.ttlSecondsAfterFinished (for example 86400, a day, to keep the logs for a while) or run the Job from a CronJob.
package kubectl_workload.rules.job_no_ttl

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	input.object.apiVersion == "batch/v1"
	input.object.kind == "Job"
	object.get(input.object, ["spec", "ttlSecondsAfterFinished"], null) == null
	not owned_by_cronjob
	not deployment_hook
	f := {
		"msg": sprintf(
			"Job %s has no ttlSecondsAfterFinished and no CronJob owner: once finished it stays, with its pods, until someone deletes it",
			[lib.display_name],
		),
		"path": "spec",
	}
}

owned_by_cronjob if {
	some ref in object.get(input.object, ["metadata", "ownerReferences"], [])
	ref.kind == "CronJob"
	startswith(object.get(ref, "apiVersion", ""), "batch/")
}

# deployment_hook: Helm and Argo CD delete a hook Job before creating it again
# (before-hook-creation, their default delete policy).
deployment_hook if object.get(input.object, ["metadata", "annotations", "helm.sh/hook"], null) != null

deployment_hook if {
	hook := object.get(input.object, ["metadata", "annotations", "argocd.argoproj.io/hook"], null)
	hook != null
	hook != "Skip"
}
