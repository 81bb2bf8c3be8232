package runner

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	batchdefaults "k8s.io/kubernetes/pkg/apis/batch/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/cronjob"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/job"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// DefaultNext is how many scheduled times a CronJob prediction lists when Request.Next is 0.
const DefaultNext = 5

// epoch is the clock of a Request with neither Now nor Clock: a fixed time, so that library
// callers and tests get the same answer on every run.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ScheduleResult is a CronJob's predicted schedule: the next times from From, and, when asked,
// the controller's decision after missed schedules, after a controller outage, and how
// concurrencyPolicy plays out when each Job runs RunFor.
type ScheduleResult struct {
	// Schedule and TimeZone are the CronJob's spec.schedule and spec.timeZone ("" when unset:
	// the controller's local zone, UTC in a cluster).
	Schedule          string
	TimeZone          string
	ConcurrencyPolicy batchv1.ConcurrencyPolicy
	// StartingDeadlineSeconds is nil when unset (no deadline).
	StartingDeadlineSeconds *int64
	Suspend                 bool
	// From is the time the next times are counted from (--now, else the clock), and
	// FromSource says which.
	From       time.Time
	FromSource string
	// Next are the next scheduled times after From in TimeZone, each with the Job it starts.
	// Empty when Concurrency is set: its runs list the same times.
	Next []ScheduledTime
	// LastSchedule is the --last-schedule time Missed (and Downtime) start from; nil if not
	// given.
	LastSchedule *time.Time
	// Missed is the controller's sync at From after LastSchedule (--last-schedule).
	Missed *MissedResult
	// DownFrom and DownTo bound a controller outage; Downtime is the first sync after it.
	DownFrom, DownTo time.Time
	Downtime         *MissedResult
	// RunFor is how long each Job runs in Concurrency (--run-for).
	RunFor      time.Duration
	Concurrency *cronjob.ConcurrencyResult
	Notes       []string
}

// MissedResult is the controller's decision at one sync (cronjob.MissedSchedule), with the
// times that were really missed since the last schedule: the controller only looks back
// startingDeadlineSeconds, so it may see none of them.
type MissedResult struct {
	cronjob.Missed
	// SyncAt is when the controller syncs.
	SyncAt time.Time
	// Unmet counts the scheduled times after the last schedule (or, after an outage without
	// --last-schedule, after it began) up to SyncAt, at most maxUnmet; FirstUnmet and
	// LastUnmet bound them.
	Unmet                 int
	FirstUnmet, LastUnmet time.Time
	// Ignored is true when times were missed but the controller starts no Job, because every
	// one is more than startingDeadlineSeconds old: it does not look that far back.
	Ignored bool
}

// maxUnmet bounds the count of missed times (a per-minute schedule missed for a year).
const maxUnmet = 10_000

// ScheduledTime is one scheduled time and the name of the Job the controller creates for it.
type ScheduledTime struct {
	At  time.Time
	Job string
}

// Failed reports whether a missed schedule (or the schedule after an outage) starts no Job:
// the most recent unmet time is past startingDeadlineSeconds, or the schedule is invalid.
func (s *ScheduleResult) Failed() bool {
	return missedFails(s.Missed) || missedFails(s.Downtime)
}

func missedFails(m *MissedResult) bool {
	if m == nil {
		return false
	}
	if m.Ignored {
		return true
	}
	for _, e := range m.Events {
		if e.Reason == reasonInvalidSchedule {
			return true
		}
	}
	return m.ScheduledTime != nil && !m.StartsJob
}

// reasonInvalidSchedule is the event cronjob.MissedSchedule records for a schedule whose
// times are less than a second apart.
const reasonInvalidSchedule = "InvalidSchedule"

// cronJobEnd is how each Job of cj ends when its pods run req.RunFor: Complete after RunFor,
// unless the request's failure model (--fail-first, --fail-rate) or the template's
// activeDeadlineSeconds decides otherwise. Then job.Simulate runs the Job the CronJob
// controller creates from the template (getJobFromTemplate2), defaulted as the API server
// defaults it (SetDefaults_Job), and note says how it ends.
func cronJobEnd(cj *batchv1.CronJob, req Request) (cronjob.JobEnd, string, error) {
	tpl := cj.Spec.JobTemplate.Spec
	if req.Failure == (job.FailureModel{}) && tpl.ActiveDeadlineSeconds == nil {
		return cronjob.JobEnd{After: req.RunFor}, "", nil
	}
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: cj.Name, Namespace: cj.Namespace}, Spec: *tpl.DeepCopy()}
	batchdefaults.SetDefaults_Job(j)
	res, err := job.Simulate(job.Input{Job: j, Failure: req.Failure, RunFor: req.RunFor})
	if err != nil {
		return cronjob.JobEnd{}, "", fmt.Errorf("the Job of its jobTemplate: %w", err)
	}
	switch res.Outcome {
	case job.OutcomeFailed:
		return cronjob.JobEnd{After: res.Duration, Failed: true},
			fmt.Sprintf("each Job fails (%s) %s after it starts, as predict says of the jobTemplate's Job with its pods running %s; failedJobsHistoryLimit keeps the failed Jobs", res.Reason, res.Duration, req.RunFor), nil
	case job.OutcomeComplete:
		return cronjob.JobEnd{After: res.Duration},
			fmt.Sprintf("each Job completes %s after it starts, as predict says of the jobTemplate's Job with its pods running %s", res.Duration, req.RunFor), nil
	}
	return cronjob.JobEnd{After: req.RunFor},
		fmt.Sprintf("the jobTemplate's Job does not finish by itself (%s): the plan has each Job end after --run-for %s", res.Outcome, req.RunFor), nil
}

// now is the request's current time: --now, else the injected clock, else the fixed epoch.
func (req Request) now() (time.Time, string) {
	switch {
	case !req.Now.IsZero():
		return req.Now, "--now"
	case req.Clock != nil:
		return req.Clock(), "the current time"
	}
	return epoch, "a fixed epoch (no clock given)"
}

// predictCronJob runs the API tier on a CronJob of the new manifests, then the CronJob
// engine: the next times, and the missed-schedule, downtime and concurrency questions the
// request asks.
func predictCronJob(ctx context.Context, req Request, checker *apicheck.Checker, obj *manifest.Object, p Prediction, ns string) (Prediction, error) {
	versioned, ok := checkNew(ctx, checker, obj, &p, ns)
	if !ok {
		return p, nil
	}
	cj, ok := versioned.(*batchv1.CronJob)
	if !ok {
		return Prediction{}, fmt.Errorf("%s: document %d: %s: unexpected %T", obj.File, obj.Document, obj.Ref(), versioned)
	}
	cj = cj.DeepCopy()
	cj.Namespace = p.Namespace
	wrap := func(err error) error {
		return fmt.Errorf("%s: document %d: %s: %w", obj.File, obj.Document, obj.Ref(), err)
	}

	from, source := req.now()
	s := &ScheduleResult{Schedule: cj.Spec.Schedule, ConcurrencyPolicy: cj.Spec.ConcurrencyPolicy,
		StartingDeadlineSeconds: cj.Spec.StartingDeadlineSeconds, From: from, FromSource: source,
		LastSchedule: req.LastSchedule, RunFor: req.RunFor}
	if cj.Spec.TimeZone != nil {
		s.TimeZone = *cj.Spec.TimeZone
	}
	s.From = from.UTC()
	if s.TimeZone != "" {
		// API validation has loaded the zone already.
		if loc, err := time.LoadLocation(s.TimeZone); err == nil {
			s.From = from.In(loc)
		}
	} else {
		s.Notes = append(s.Notes, "no timeZone: times are in the kube-controller-manager's local zone, UTC here (and in most clusters)")
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		s.Suspend = true
		s.Notes = append(s.Notes, "suspend is true: the controller starts no Job until it is resumed; the times below apply from then")
	}
	n := req.Next
	if n <= 0 {
		n = DefaultNext
	}
	if req.RunFor > 0 {
		end, note, err := cronJobEnd(cj, req)
		if err != nil {
			return Prediction{}, wrap(err)
		}
		if note != "" {
			s.Notes = append(s.Notes, note)
		}
		c, err := cronjob.ConcurrencyEnding(cj, s.From, end, n)
		if err != nil {
			return Prediction{}, wrap(err)
		}
		s.Concurrency = &c
	} else if req.Failure != (job.FailureModel{}) {
		s.Notes = append(s.Notes, "--fail-first and --fail-rate decide how a CronJob's Jobs end only with --run-for: without it no Job is run")
	} else {
		times, err := cronjob.NextTimes(cj, s.From, n)
		if err != nil {
			return Prediction{}, wrap(err)
		}
		for _, t := range times {
			s.Next = append(s.Next, ScheduledTime{At: t, Job: cronjob.JobName(cj, t)})
		}
		if len(times) < n {
			s.Notes = append(s.Notes, fmt.Sprintf("the schedule fires only %d more %s", len(times), plural(len(times), "time", "times")))
		}
	}
	switch {
	case !req.DownFrom.IsZero():
		s.DownFrom, s.DownTo = req.DownFrom.In(s.From.Location()), req.DownTo.In(s.From.Location())
		m, err := cronjob.Downtime(cj, req.LastSchedule, req.DownFrom, req.DownTo)
		if err != nil {
			return Prediction{}, wrap(err)
		}
		since := req.DownFrom
		if req.LastSchedule != nil {
			since = *req.LastSchedule
		}
		if s.Downtime, err = withUnmet(cj, m, since, s.DownTo); err != nil {
			return Prediction{}, wrap(err)
		}
	case req.LastSchedule != nil:
		m, err := cronjob.MissedSchedule(cj, req.LastSchedule, s.From)
		if err != nil {
			return Prediction{}, wrap(err)
		}
		if s.Missed, err = withUnmet(cj, m, *req.LastSchedule, s.From); err != nil {
			return Prediction{}, wrap(err)
		}
	}
	p.Baseline = "the manifest (a CronJob's schedule does not depend on a previous version)"
	p.Schedule = s
	return p, nil
}

// withUnmet counts the scheduled times in (since, at] beside the controller's decision m at
// at, and marks the decision Ignored when there were some and no Job starts.
//
// Example: "*/30 1-3 * * *" with startingDeadlineSeconds 600, last schedule 01:00, the
// controller down until 04:00: 01:30 … 03:30 are 5 unmet times, but the controller looks back
// only to 03:50, sees none, and starts no Job.
func withUnmet(cj *batchv1.CronJob, m cronjob.Missed, since, at time.Time) (*MissedResult, error) {
	r := &MissedResult{Missed: m, SyncAt: at}
	sched, err := cronjob.Schedule(cj)
	if err != nil {
		return nil, err
	}
	for t := sched.Next(since.In(at.Location())); !t.IsZero() && !t.After(at) && r.Unmet < maxUnmet; t = sched.Next(t) {
		if r.Unmet == 0 {
			r.FirstUnmet = t
		}
		r.Unmet++
		r.LastUnmet = t
	}
	r.Ignored = r.Unmet > 0 && !m.StartsJob && m.ScheduledTime == nil && !m.Suspended
	return r, nil
}

// checkNew runs the API tier's create path on obj and records what it rejects in p. It
// returns the defaulted object, and false when there is none to predict from.
func checkNew(ctx context.Context, checker *apicheck.Checker, obj *manifest.Object, p *Prediction, ns string) (runtime.Object, bool) {
	return checkAPI(ctx, checker, obj, p, ns, nil)
}
