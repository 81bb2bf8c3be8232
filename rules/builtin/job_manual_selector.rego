# METADATA
# title: Job sets manualSelector
# description: |
#   With spec.manualSelector: true the API server does not generate the Job's
#   selector (controller-uid and job-name labels that only its own pods carry):
#   the selector written in the manifest is used as is. The Job documentation
#   warns that the selector must then be unique: if it also matches unrelated
#   pods, those may be deleted or counted as this Job's, and pods of another
#   Job with a matching selector may be counted toward this Job's completions,
#   or either Job may refuse to create pods or run to completion. The Job
#   controller adopts any orphaned pod its selector matches (ClaimPods), and
#   the API server does not check the selector for uniqueness. The usual reason for manualSelector, taking over the pods of a Job
#   deleted with --cascade=orphan, is a one-off operation, not a manifest to
#   keep applying.
# custom:
#   id: job/manual-selector
#   severity: warning
#   kinds: [Job]
#   remediation: Remove spec.manualSelector and spec.selector so that the API server generates a unique selector, unless the Job is meant to adopt an orphaned Job's pods.
package kubectl_workload.rules.job_manual_selector

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

findings contains f if {
	input.object.kind == "Job"
	input.object.spec.manualSelector == true
	sel := xref.selector_of(input.object)
	f := {
		"msg": sprintf(
			"Job %s sets manualSelector, so its selector %s is used as written instead of a generated, unique one: the Job adopts any orphaned pod it matches, counts it as its own and may delete it, and the Job documentation warns that pods of other Jobs with a matching selector can be counted as this Job's%s",
			[lib.display_name, xref.format_selector(sel), others(sel)],
		),
		"path": "spec.manualSelector",
	}
}

others(sel) := sprintf("; in this input it also selects the pods of %s: %s", [xref.quantity(count(keys), "other workload"), xref.describe_list(keys)]) if {
	keys := {key | some key in xref.all_workloads_selected_by(sel); key != input.key}
	count(keys) > 0
} else := ""
