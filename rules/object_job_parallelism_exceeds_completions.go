package rules

import (
	"fmt"
	"strings"
)

// jobParallelismExceedsCompletionsRule is job/parallelism-exceeds-completions.
var jobParallelismExceedsCompletionsRule = BuiltinRule{
	Meta: Rule{
		ID:       "job/parallelism-exceeds-completions",
		Title:    "Job parallelism above its completions",
		Severity: SeverityInfo,
		Kinds:    []string{"Job", "CronJob"},
		File:     "object_job_parallelism_exceeds_completions.go",
		Description: `When spec.completions is set, the Job controller (manageJob) wants as many active
pods as the completions still missing, capped by spec.parallelism: it never runs
more pods at once than completions minus succeeded. A parallelism above
completions therefore never takes effect; it usually means the two fields were
swapped, or that a work-queue Job (completions unset, so that the first success
ends the Job) was intended. Reported for Jobs and CronJob job templates when both
fields are written.`,
		Remediation: "Lower parallelism to completions or less, or raise completions; for a work queue, leave completions unset.",
	},
	Check: checkParallelismExceedsCompletions,
}

// checkParallelismExceedsCompletions reports a Job spec whose written
// parallelism exceeds its written completions (manageJob never runs more
// pods than the completions still missing).
func checkParallelismExceedsCompletions(c *ObjectContext) []Finding {
	prefix, spec := jobSpecs(c.Object)
	if spec == nil {
		return nil
	}
	// parallelism and completions are defaulted: both must be written.
	_, written := jobSpecs(c.Written())
	if written == nil || written.Parallelism == nil || written.Completions == nil || *written.Parallelism <= *written.Completions {
		return nil
	}
	p, n := *written.Parallelism, *written.Completions
	return []Finding{{Path: strings.Join(prefix, ".") + ".parallelism",
		Message: fmt.Sprintf("parallelism %d exceeds completions %d: the Job controller never runs more pods at once than the completions still missing, so at most %d run and the other %d never start",
			p, n, n, p-n)}}
}
