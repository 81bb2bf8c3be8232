package planreport

import (
	"fmt"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/job"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/ttlafterfinished"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// maxTextPods is the most pod runs the text format lists; -o json and -o yaml list them all.
const maxTextPods = 50

// writeJob writes a Job's run: the defaulted spec that decides it, the failure model, the
// waves of pods with the backoff before each, every pod run, notes and the ending.
func writeJob(b *strings.Builder, p runner.Prediction) {
	j := p.Job
	r := j.Result
	row := func(k, v string) { fmt.Fprintf(b, "  %-19s %s\n", k, v) }
	row("baseline", p.Baseline)
	if j.Completions != nil {
		row("completions", fmt.Sprintf("%d (%s)", *j.Completions, j.CompletionMode))
	} else {
		row("completions", "unset: a work queue, done when any pod succeeds and the others have finished")
	}
	row("parallelism", fmt.Sprint(j.Parallelism))
	if j.BackoffLimitPerIndex != nil {
		v := fmt.Sprintf("%d failures per index", *j.BackoffLimitPerIndex)
		if j.MaxFailedIndexes != nil {
			v += fmt.Sprintf(", at most %d failed indexes", *j.MaxFailedIndexes)
		}
		row("backoff per index", v)
	} else if j.RestartPolicy == "OnFailure" {
		// pastBackoffLimitOnFailure: the pods' container restarts reach backoffLimit (any
		// restart when it is 0).
		row("backoffLimit", fmt.Sprintf("%d: the Job fails at container restart %d", j.BackoffLimit, max(j.BackoffLimit, 1)))
	} else {
		row("backoffLimit", fmt.Sprintf("%d: the Job fails at pod failure %d", j.BackoffLimit, j.BackoffLimit+1))
	}
	if j.ActiveDeadlineSeconds != nil {
		row("activeDeadline", fmt.Sprintf("%ds after the Job starts", *j.ActiveDeadlineSeconds))
	} else {
		row("activeDeadline", "none")
	}
	row("restartPolicy", j.RestartPolicy)
	row("failure model", failureText(j.Failure, j.RestartPolicy))
	row("pods run", fmt.Sprintf("%s each (%s)", exactly(j.RunFor), j.RunForSource))
	b.WriteString("\n")
	if r.Outcome == job.OutcomeSuspended {
		for _, n := range r.Notes {
			fmt.Fprintf(b, "  note: %s\n", n)
		}
		fmt.Fprintf(b, "  summary: %s\n", jobSummary(r))
		return
	}

	fmt.Fprintf(b, "  %4s  %8s  %4s  %8s  %s\n", "WAVE", "TIME", "PODS", "BACKOFF", "INDEXES")
	for i, w := range r.Waves {
		backoff := "-"
		if w.Backoff > 0 {
			backoff = seconds(w.Backoff)
		}
		fmt.Fprintf(b, "  %4d  %8s  %4d  %8s  %s\n", i+1, seconds(w.At), w.Pods, backoff, indexList(w.Indexes))
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "  %4s  %4s  %5s  %7s  %8s  %8s  %s\n", "RUN", "WAVE", "INDEX", "ATTEMPT", "START", "END", "RESULT")
	for i, pr := range r.Pods {
		if i == maxTextPods {
			fmt.Fprintf(b, "  ... %d more runs (-o json lists them all)\n", len(r.Pods)-maxTextPods)
			break
		}
		// A NonIndexed Job's attempts count every pod, the POD column already.
		index, attempt := "-", "-"
		if pr.Index >= 0 {
			index, attempt = fmt.Sprint(pr.Index), fmt.Sprint(pr.Attempt)
		}
		start, end, result := seconds(pr.StartedAt), seconds(pr.FinishedAt), "succeeded"
		switch {
		case pr.Killed && pr.FinishedAt < pr.StartedAt:
			// A container restart (OnFailure) still in its kubelet backoff.
			start, end, result = "-", "-", fmt.Sprintf("restart due at %s; the Job ended first", seconds(pr.StartedAt))
		case pr.Killed:
			result = "deleted when the Job ended"
		case pr.FinishedAt <= pr.StartedAt:
			// Every run lasts RunFor > 0, so this one had not finished when the simulation stopped.
			end, result = "-", "running"
		case pr.Failed:
			result = "failed"
		}
		fmt.Fprintf(b, "  %4d  %4d  %5s  %7s  %8s  %8s  %s\n", i+1, pr.Wave+1, index, attempt, start, end, result)
	}
	b.WriteString("\n")
	if len(r.FailedIndexes) > 0 {
		fmt.Fprintf(b, "  failed indexes: %s\n", indexList(r.FailedIndexes))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(b, "  note: %s\n", n)
	}
	if j.TTL != nil {
		fmt.Fprintf(b, "  deleted: %s\n", j.TTL.Describe(exactly))
	}
	fmt.Fprintf(b, "  summary: %s\n", jobSummary(r))
}

// failureText describes the failure model; under restartPolicy OnFailure it decides each
// container run, since a failed container restarts in place.
func failureText(f job.FailureModel, restartPolicy string) string {
	one, many := "pod", "pods"
	if restartPolicy == "OnFailure" {
		one, many = "container run", "container runs"
	}
	switch {
	case f.FailFirst > 0:
		return fmt.Sprintf("the first %d %s fail, the rest succeed (--fail-first)", f.FailFirst, plural(f.FailFirst, one, many))
	case f.FailRate > 0:
		return fmt.Sprintf("each %s fails with probability %g (--fail-rate, --seed %d)", one, f.FailRate, f.Seed)
	}
	return fmt.Sprintf("every %s succeeds (--fail-first N or --fail-rate F to model failures)", one)
}

func indexList(indexes []int) string {
	if len(indexes) == 0 {
		return "-"
	}
	parts := make([]string, len(indexes))
	for i, x := range indexes {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}

func jobSummary(r *job.Result) string {
	counts := fmt.Sprintf("%d succeeded, %d failed", r.Succeeded, r.Failed)
	switch r.Outcome {
	case job.OutcomeSuspended:
		return "Suspended (JobSuspended: Job suspended): no pods are created until the Job is resumed"
	case job.OutcomeComplete, job.OutcomeFailed:
		return fmt.Sprintf("%s (%s: %s) after %s; %s", r.Outcome, r.Reason, r.Message, seconds(r.Duration), counts)
	}
	return fmt.Sprintf("still %s when the simulation stopped after %s; %s", r.Outcome, seconds(r.Duration), counts)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

type jobDoc struct {
	Completions           *int32     `json:"completions"`
	Parallelism           int32      `json:"parallelism"`
	CompletionMode        string     `json:"completionMode"`
	BackoffLimit          int32      `json:"backoffLimit"`
	BackoffLimitPerIndex  *int32     `json:"backoffLimitPerIndex"`
	MaxFailedIndexes      *int32     `json:"maxFailedIndexes"`
	ActiveDeadlineSeconds *int64     `json:"activeDeadlineSeconds"`
	RestartPolicy         string     `json:"restartPolicy"`
	Failure               failureDoc `json:"failure"`
	RunForSeconds         float64    `json:"runForSeconds"`
	RunForSource          string     `json:"runForSource"`
	Waves                 []waveDoc  `json:"waves"`
	Pods                  []podRun   `json:"pods"`
	Succeeded             int        `json:"succeeded"`
	Failed                int        `json:"failed"`
	Outcome               string     `json:"outcome"`
	Reason                string     `json:"reason"`
	Message               string     `json:"message"`
	DurationSeconds       float64    `json:"durationSeconds"`
	FailedIndexes         []int      `json:"failedIndexes"`
	Notes                 []string   `json:"notes"`
	// TTL: when the TTL-after-finished controller deletes the Job (absent without one).
	TTL *ttlDoc `json:"ttlAfterFinished,omitempty"`
}

type ttlDoc struct {
	TTLSecondsAfterFinished int32   `json:"ttlSecondsAfterFinished"`
	FinishedAtSeconds       float64 `json:"finishedAtSeconds"`
	// FinishStoredAtSeconds is the finish as the Complete condition stores it (whole
	// seconds of wall-clock time), which the controller adds the TTL to.
	FinishStoredAtSeconds float64 `json:"finishStoredAtSeconds"`
	DeletedAtSeconds      float64 `json:"deletedAtSeconds"`
	PropagationPolicy     string  `json:"propagationPolicy"`
}

type failureDoc struct {
	FailFirst int     `json:"failFirst"`
	FailRate  float64 `json:"failRate"`
	Seed      int64   `json:"seed"`
}

type waveDoc struct {
	AtSeconds      float64 `json:"atSeconds"`
	Pods           int     `json:"pods"`
	Indexes        []int   `json:"indexes"`
	BackoffSeconds float64 `json:"backoffSeconds"`
}

type podRun struct {
	Index             int     `json:"index"`
	Attempt           int     `json:"attempt"`
	Wave              int     `json:"wave"`
	StartedAtSeconds  float64 `json:"startedAtSeconds"`
	FinishedAtSeconds float64 `json:"finishedAtSeconds"`
	Failed            bool    `json:"failed"`
	Killed            bool    `json:"killed"`
}

func toJob(j *runner.JobResult) *jobDoc {
	if j == nil {
		return nil
	}
	r := j.Result
	d := &jobDoc{Completions: j.Completions, Parallelism: j.Parallelism, CompletionMode: string(j.CompletionMode), BackoffLimit: j.BackoffLimit,
		BackoffLimitPerIndex: j.BackoffLimitPerIndex, MaxFailedIndexes: j.MaxFailedIndexes, ActiveDeadlineSeconds: j.ActiveDeadlineSeconds,
		RestartPolicy: j.RestartPolicy, Failure: failureDoc(j.Failure), RunForSeconds: secs(j.RunFor), RunForSource: j.RunForSource,
		Waves: []waveDoc{}, Pods: []podRun{}, Succeeded: r.Succeeded, Failed: r.Failed, Outcome: r.Outcome, Reason: r.Reason,
		Message: r.Message, DurationSeconds: secs(r.Duration), FailedIndexes: append([]int{}, r.FailedIndexes...), Notes: append([]string{}, r.Notes...)}
	if t := j.TTL; t != nil {
		d.TTL = &ttlDoc{TTLSecondsAfterFinished: t.TTLSeconds, FinishedAtSeconds: secs(t.FinishedAt), FinishStoredAtSeconds: secs(t.Stored), DeletedAtSeconds: secs(t.At), PropagationPolicy: ttlafterfinished.Propagation}
	}
	for _, w := range r.Waves {
		d.Waves = append(d.Waves, waveDoc{AtSeconds: secs(w.At), Pods: w.Pods, Indexes: append([]int{}, w.Indexes...), BackoffSeconds: secs(w.Backoff)})
	}
	for _, p := range r.Pods {
		d.Pods = append(d.Pods, podRun{Index: p.Index, Attempt: p.Attempt, Wave: p.Wave, StartedAtSeconds: secs(p.StartedAt),
			FinishedAtSeconds: secs(p.FinishedAt), Failed: p.Failed, Killed: p.Killed})
	}
	return d
}
