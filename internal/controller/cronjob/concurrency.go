package cronjob

import (
	"fmt"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// Outcome is what happened to one scheduled time.
type Outcome string

// Outcomes of a scheduled time.
const (
	// Started: a Job started at (about) the scheduled time.
	Started Outcome = "Started"
	// StartedLate: Forbid skipped the time while a Job ran, and the controller started it when
	// that Job finished (it is still the most recent unmet time, within any
	// startingDeadlineSeconds).
	StartedLate Outcome = "StartedLate"
	// Skipped: Forbid kept it from starting and a later time superseded it, or the starting
	// deadline passed.
	Skipped Outcome = "Skipped"
	// Replaced: the Job started, deleting the still-running previous Job (Replace).
	Replaced Outcome = "Replaced"
	// Suspended: spec.suspend is true; syncCronJob returns before it looks at the schedule,
	// so no Job starts and no event is recorded.
	Suspended Outcome = "Suspended"
)

// Run is one scheduled time and its fate.
type Run struct {
	Scheduled time.Time
	Outcome   Outcome
	// Job is the Job's name when one started.
	Job string
	// StartedAt and EndsAt bound the Job's run (EndsAt is when it finishes or is deleted).
	StartedAt time.Time
	EndsAt    time.Time
	// ReplacedJob names the Job deleted to make room (Replace).
	ReplacedJob string
	// Concurrent is the number of Jobs running right after this one started, itself included.
	Concurrent int
	// Events are the controller's events for this time, in order.
	Events []Event
	// Failed is true when the Job ended Failed (JobEnd.Failed) rather than Complete within the
	// predicted times.
	Failed bool
	// HistoryDeletedAt is when the history limit of its kind (successfulJobsHistoryLimit for a
	// Complete Job, failedJobsHistoryLimit for a Failed one) deletes the finished Job (zero:
	// kept within the predicted times).
	HistoryDeletedAt time.Time
}

// JobEnd is how each Job of a CronJob ends: After its creation, Complete or Failed. Every Job
// of a CronJob has the same template, so each ends the same way.
type JobEnd struct {
	After  time.Duration
	Failed bool
}

// ConcurrencyResult is the outcome of n scheduled times with Jobs that each run RunFor.
type ConcurrencyResult struct {
	Policy batchv1.ConcurrencyPolicy
	Runs   []Run
	// MaxConcurrent is the most Jobs that ran at once.
	MaxConcurrent int
	// SuccessfulJobsHistoryLimit and FailedJobsHistoryLimit are the limits the history
	// cleanup keeps to (the API server's defaults 3 and 1 when the spec has none).
	SuccessfulJobsHistoryLimit int32
	FailedJobsHistoryLimit     int32
}

// DefaultSuccessfulJobsHistoryLimit and DefaultFailedJobsHistoryLimit are what the API
// server's SetDefaults_CronJob (pkg/apis/batch/v1/defaults.go) stores when the spec has none.
const (
	DefaultSuccessfulJobsHistoryLimit int32 = 3
	DefaultFailedJobsHistoryLimit     int32 = 1
)

// removeOldestJobs mirrors ControllerV2.removeOldestJobs, called from cleanupFinishedJobs
// (pkg/controller/cronjob/cronjob_controllerv2.go) at every sync: of the finished Jobs
// (indexes into runs), the oldest by start time (byJobStartTime: then by name) beyond
// maxJobs are deleted at now. It returns the Jobs kept.
//
// For example, with maxJobs 3 and Jobs started at 10:00, 10:01, 10:02 and 10:03 all finished
// at the sync of 10:03's end, 4-3 = 1 is deleted: the Job of 10:00.
func removeOldestJobs(runs []Run, finished []int, maxJobs int32, now time.Time) []int {
	numToDelete := len(finished) - int(maxJobs)
	if numToDelete <= 0 {
		return finished
	}
	sort.SliceStable(finished, func(a, b int) bool {
		ra, rb := runs[finished[a]], runs[finished[b]]
		if !ra.StartedAt.Equal(rb.StartedAt) {
			return ra.StartedAt.Before(rb.StartedAt)
		}
		return ra.Job < rb.Job
	})
	for _, i := range finished[:numToDelete] {
		runs[i].HistoryDeletedAt = now
	}
	return append([]int{}, finished[numToDelete:]...)
}

type activeJob struct {
	name string
	run  int
	// endsAt is when the Job finishes: its creation's instant plus runFor, so it comes after a
	// scheduled time of the same wall-clock time (see Concurrency).
	endsAt kernel.Instant
}

// Concurrency predicts the first n scheduled times after from when every Job runs for runFor,
// under cj's concurrencyPolicy, by replaying syncCronJob at each scheduled time and at each
// Job's end (the controller syncs when a Job finishes):
//   - Allow: every time starts a Job; Jobs overlap when runFor exceeds the interval.
//   - Forbid: a time that comes while a Job is active records JobAlreadyActive and waits; when
//     the Job finishes, the most recent unmet time starts at once (late) if it is still within
//     startingDeadlineSeconds; earlier unmet times are lost.
//   - Replace: the active Job is deleted and the new one starts.
//
// At each sync the finished Jobs beyond successfulJobsHistoryLimit are deleted, oldest first
// (removeOldestJobs), so each Run tells when its Job goes (HistoryDeletedAt).
//
// A suspended CronJob starts nothing: every time is Suspended.
func Concurrency(cj *batchv1.CronJob, from time.Time, runFor time.Duration, n int) (ConcurrencyResult, error) {
	return ConcurrencyEnding(cj, from, JobEnd{After: runFor}, n)
}

// ConcurrencyEnding is Concurrency with Jobs that each end as end says. Failed Jobs are
// kept to failedJobsHistoryLimit as Complete ones are to successfulJobsHistoryLimit, each
// kind counted on its own (cleanupFinishedJobs).
//
// For example, under failedJobsHistoryLimit 1 (the default), Jobs failing 4m after starting
// at 05:50, 06:00 and 06:10: the sync at 06:04's failure keeps the 05:50 Job; the one at 06:14
// deletes it, keeping the 06:00 Job, and so on: each failed Job goes when the next fails.
func ConcurrencyEnding(cj *batchv1.CronJob, from time.Time, end JobEnd, n int) (ConcurrencyResult, error) {
	runFor := end.After
	times, err := NextTimes(cj, from, n)
	if err != nil {
		return ConcurrencyResult{}, err
	}
	policy := cj.Spec.ConcurrencyPolicy
	if policy == "" {
		policy = batchv1.AllowConcurrent
	}
	res := ConcurrencyResult{Policy: policy, SuccessfulJobsHistoryLimit: DefaultSuccessfulJobsHistoryLimit, FailedJobsHistoryLimit: DefaultFailedJobsHistoryLimit}
	if cj.Spec.SuccessfulJobsHistoryLimit != nil {
		res.SuccessfulJobsHistoryLimit = *cj.Spec.SuccessfulJobsHistoryLimit
	}
	if cj.Spec.FailedJobsHistoryLimit != nil {
		res.FailedJobsHistoryLimit = *cj.Spec.FailedJobsHistoryLimit
	}
	runs := make([]Run, len(times))
	// Keyed by the instant, not by time.Time: NextTimes and MissedSchedule each load the
	// timeZone, and two time.Times of the same instant with different *Location pointers are
	// different map keys.
	index := map[int64]int{}
	for i, t := range times {
		runs[i] = Run{Scheduled: t, Outcome: Skipped}
		index[t.UnixNano()] = i
	}
	if len(times) == 0 {
		return res, nil
	}
	if suspended(cj) {
		for i := range runs {
			runs[i].Outcome = Suspended
		}
		res.Runs = runs
		return res, nil
	}
	horizon := times[len(times)-1]
	last := from
	var active []activeJob
	// finished are the runs whose Jobs completed (or, when end.Failed, failed) and are not
	// yet deleted: every Job ends the same way, so one history limit applies to them all.
	var finished []int
	limit := res.SuccessfulJobsHistoryLimit
	if end.Failed {
		limit = res.FailedJobsHistoryLimit
	}

	// Sync points on the kernel clock: every scheduled time, and every Job end, earliest
	// first. A Job's end is caused by its creation, so a Job that runs exactly one interval is
	// still active at the next scheduled time, as in a cluster, where the Job's pods start
	// after the create call and finish after it.
	clock := kernel.NewClock(from)
	pending := make([]kernel.Instant, 0, len(times))
	for _, t := range times {
		pending = append(pending, kernel.At(t))
	}
	for len(pending) > 0 {
		next := kernel.NewEarliest(clock.Now())
		for _, p := range pending {
			next.Consider(p)
		}
		at, _ := next.Result()
		kept := pending[:0]
		for _, p := range pending {
			if !p.Equal(at) {
				kept = append(kept, p)
			}
		}
		pending = kept
		clock.Set(at)
		now := at.Time
		// Past the last scheduled time only Jobs end: their ends are still syncs, whose
		// cleanup can delete an older Job inside the plan, but nothing new starts.
		pastHorizon := now.After(horizon)
		stillActive := active[:0]
		for _, j := range active {
			if j.endsAt.After(at) {
				stillActive = append(stillActive, j)
			} else {
				finished = append(finished, j.run)
				runs[j.run].Failed = end.Failed
			}
		}
		active = stillActive
		// A Job's end is a sync (the controller watches its Jobs), and every sync ends with
		// cleanupFinishedJobs.
		finished = removeOldestJobs(runs, finished, limit, now)
		if pastHorizon {
			continue
		}

		lastCopy := last
		m, err := MissedSchedule(cj, &lastCopy, now)
		if err != nil {
			return res, err
		}
		if m.ScheduledTime == nil {
			continue
		}
		i, tracked := index[m.ScheduledTime.UnixNano()]
		if m.TooLate {
			if tracked {
				runs[i].Events = append(runs[i].Events, m.Events...)
			}
			continue
		}
		if policy == batchv1.ForbidConcurrent && len(active) > 0 {
			if tracked {
				runs[i].Events = append(runs[i].Events, Event{Type: "Normal", Reason: ReasonJobAlreadyActive,
					Message: "Not starting job because prior execution is running and concurrency policy is Forbid"})
			}
			continue
		}
		if !tracked {
			continue
		}
		r := &runs[i]
		if policy == batchv1.ReplaceConcurrent && len(active) > 0 {
			for _, j := range active {
				r.ReplacedJob = j.name
				runs[j.run].EndsAt = now
				r.Events = append(r.Events, Event{Type: "Normal", Reason: ReasonSuccessfulDelete, Message: "Deleted job " + j.name})
			}
			active = nil
			r.Outcome = Replaced
		} else if at.Equal(kernel.At(r.Scheduled)) {
			r.Outcome = Started
		} else {
			r.Outcome = StartedLate
		}
		r.Job = m.JobName
		r.StartedAt = now
		end := clock.Issue().Add(runFor)
		r.EndsAt = end.Time
		r.Events = append(r.Events, Event{Type: "Normal", Reason: ReasonSuccessfulCreate, Message: "Created job " + m.JobName})
		active = append(active, activeJob{name: m.JobName, run: i, endsAt: end})
		r.Concurrent = len(active)
		res.MaxConcurrent = max(res.MaxConcurrent, len(active))
		last = *m.ScheduledTime
		pending = append(pending, end)
	}
	res.Runs = runs
	return res, nil
}

// String renders a run for diagnostics, e.g. "10:00 Started web-29000 (1 running)".
func (r Run) String() string {
	s := fmt.Sprintf("%s %s", r.Scheduled.Format(time.RFC3339), r.Outcome)
	if r.Job != "" {
		s += " " + r.Job
	}
	if r.ReplacedJob != "" {
		s += " replacing " + r.ReplacedJob
	}
	return s
}
