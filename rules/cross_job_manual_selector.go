package rules

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
)

// jobManualSelectorRule is job/manual-selector.
var jobManualSelectorRule = BuiltinRule{
	Meta: Rule{
		ID:       "job/manual-selector",
		Title:    "Job sets manualSelector",
		Severity: SeverityWarning,
		Kinds:    []string{"Job"},
		File:     "cross_job_manual_selector.go",
		Description: `With spec.manualSelector: true the API server does not generate the Job's
selector (controller-uid and job-name labels that only its own pods carry):
the selector written in the manifest is used as is. The Job documentation
warns that the selector must then be unique: if it also matches unrelated
pods, those may be deleted or counted as this Job's, and pods of another
Job with a matching selector may be counted toward this Job's completions,
or either Job may refuse to create pods or run to completion. The Job
controller adopts any orphaned pod its selector matches (ClaimPods), and
the API server does not check the selector for uniqueness. The usual reason for manualSelector, taking over the pods of a Job
deleted with --cascade=orphan, is a one-off operation, not a manifest to
keep applying.`,
		Remediation: "Remove spec.manualSelector and spec.selector so that the API server generates a unique selector, unless the Job is meant to adopt an orphaned Job's pods.",
	},
	Cross: jobManualSelector,
}

// jobManualSelector reports a Job with manualSelector, naming the other
// workloads of the input its selector selects.
func jobManualSelector(c *CrossContext) []Finding {
	job, ok := c.Self.Written.(*batchv1.Job)
	if !ok || job.Spec.ManualSelector == nil || !*job.Spec.ManualSelector {
		return nil
	}
	sel := job.Spec.Selector
	others := ""
	if keys := KeysOf(except(c.NS.AllWorkloadsSelectedBy(sel), c.Self.Key)); len(keys) > 0 {
		others = fmt.Sprintf("; in this input it also selects the pods of %s: %s", Quantity(int64(len(keys)), "other workload"), DescribeList(keys))
	}
	return []Finding{{
		Message: fmt.Sprintf("Job %s sets manualSelector, so its selector %s is used as written instead of a generated, unique one: the Job adopts any orphaned pod it matches, counts it as its own and may delete it, and the Job documentation warns that pods of other Jobs with a matching selector can be counted as this Job's%s",
			displayName(c.Self), FormatSelector(sel), others),
		Path: "spec.manualSelector",
	}}
}
