// Package cronjob predicts what the CronJob controller does (k8s.io/kubernetes v1.37.1,
// pkg/controller/cronjob, cronjob_controllerv2.go and utils.go): the next scheduled times in the
// object's timeZone, whether a Job starts after missed schedules, and how concurrencyPolicy
// plays out when runs overlap. It never prints and never reads the real clock.
package cronjob

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/kubernetes/pkg/util/parsers"
)

// Event reasons the controller records, as in cronjob_controllerv2.go and utils.go.
const (
	ReasonSuccessfulCreate   = "SuccessfulCreate"
	ReasonJobAlreadyActive   = "JobAlreadyActive"
	ReasonMissSchedule       = "MissSchedule"
	ReasonTooManyMissedTimes = "TooManyMissedTimes"
	ReasonSuccessfulDelete   = "SuccessfulDelete"
	ReasonSawCompletedJob    = "SawCompletedJob"
)

// tooManyMissed is the count above which the controller warns (mostRecentScheduleTime).
const tooManyMissed = 100

// nextScheduleDelta is the padding the controller adds when it requeues for the next time.
const nextScheduleDelta = 100 * time.Millisecond

// Schedule parses cj's schedule exactly as the controller does: formatSchedule prefixes
// "TZ=<timeZone> " when spec.timeZone is set and loads, and
// parsers.ParseCronScheduleWithPanicRecovery runs cron.ParseStandard (robfig/cron/v3, five
// fields plus @descriptors). A schedule that itself contains TZ or CRON_TZ is rejected, as API
// validation rejects it for new objects; an unknown timeZone is an error (the controller records
// UnknownTimeZone and never starts a Job).
func Schedule(cj *batchv1.CronJob) (cron.Schedule, error) {
	if strings.Contains(cj.Spec.Schedule, "TZ") {
		return nil, fmt.Errorf("cronjob %s: schedule %q: cannot use TZ or CRON_TZ in schedule, use timeZone field instead", cj.Name, cj.Spec.Schedule)
	}
	spec := cj.Spec.Schedule
	if cj.Spec.TimeZone != nil {
		if _, err := time.LoadLocation(*cj.Spec.TimeZone); err != nil {
			return nil, fmt.Errorf("cronjob %s: invalid timeZone %q: %w", cj.Name, *cj.Spec.TimeZone, err)
		}
		spec = fmt.Sprintf("TZ=%s %s", *cj.Spec.TimeZone, cj.Spec.Schedule)
	}
	sched, err := parsers.ParseCronScheduleWithPanicRecovery(spec)
	if err != nil {
		return nil, fmt.Errorf("cronjob %s: unparseable schedule %q: %w", cj.Name, cj.Spec.Schedule, err)
	}
	return sched, nil
}

// NextTimes returns the next n scheduled times strictly after from, in cj's timeZone (UTC, the
// controller's local zone in a cluster, when unset).
func NextTimes(cj *batchv1.CronJob, from time.Time, n int) ([]time.Time, error) {
	sched, err := Schedule(cj)
	if err != nil {
		return nil, err
	}
	loc := location(cj)
	out := make([]time.Time, 0, n)
	t := from.In(loc)
	for len(out) < n {
		next := sched.Next(t)
		if next.IsZero() {
			break // the schedule never fires (e.g. 30 February)
		}
		out = append(out, next)
		t = next
	}
	return out, nil
}

// JobName is the name the controller gives the Job for a scheduled time (getJobName):
// "<cronjob>-<minutes since the epoch>".
func JobName(cj *batchv1.CronJob, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, scheduled.Unix()/60)
}

// Event is a controller event.
type Event struct {
	Type    string
	Reason  string
	Message string
}

// Missed is the controller's decision at one sync after schedules may have been missed.
type Missed struct {
	// Earliest is where the controller starts counting: the last schedule time (or creation
	// time), moved forward to now − startingDeadlineSeconds when that is later.
	Earliest time.Time
	// MissedSchedules is the controller's own estimate of unmet schedule times since Earliest
	// (numberOfMissedSchedules: elapsed time since the first divided by the interval between
	// the first two, plus one); 1 when only one time is due, 0 when none is.
	MissedSchedules int64
	// TooManyMissed is true above 100: the controller records TooManyMissedTimes.
	TooManyMissed bool
	// ScheduledTime is the most recent unmet time, the one a Job would be for; nil if none.
	ScheduledTime *time.Time
	// StartsJob is true when the controller creates a Job now, named JobName.
	StartsJob bool
	JobName   string
	// TooLate is true when ScheduledTime + startingDeadlineSeconds is already past.
	TooLate bool
	Events  []Event
	// Explanation says in one sentence what happens and why.
	Explanation string
	// NextRequeue is when the controller looks again (the next schedule + 100ms).
	NextRequeue time.Time
	// Suspended is true when spec.suspend is true: the controller returns before it looks at
	// the schedule, starts no Job and does not requeue.
	Suspended bool
}

// suspended reports whether cj's spec.suspend is true.
func suspended(cj *batchv1.CronJob) bool {
	return cj.Spec.Suspend != nil && *cj.Spec.Suspend
}

// location is the zone cj's times are computed in: its timeZone, else UTC (the
// kube-controller-manager's local zone in most clusters).
func location(cj *batchv1.CronJob) *time.Location {
	if cj.Spec.TimeZone != nil {
		if loc, err := time.LoadLocation(*cj.Spec.TimeZone); err == nil {
			return loc
		}
	}
	return time.UTC
}

// mostRecentScheduleTime mirrors mostRecentScheduleTime in pkg/controller/cronjob/utils.go.
//
// Example: hourly, last schedule 10:00, now 13:30: t1 = 11:00, t2 = 12:00, interval 3600 s,
// elapsed since t1 9000 s → 9000/3600 + 1 = 3 missed; the most recent is 13:00.
func mostRecentScheduleTime(earliestTime, now time.Time, sched cron.Schedule) (*time.Time, int64, error) {
	t1 := sched.Next(earliestTime)
	t2 := sched.Next(t1)
	if now.Before(t1) {
		return nil, 0, nil
	}
	if now.Before(t2) {
		return &t1, 1, nil
	}
	between := int64(t2.Sub(t1).Round(time.Second).Seconds())
	if between < 1 {
		return nil, 0, errors.New("time difference between two schedules is less than 1 second")
	}
	elapsed := int64(now.Sub(t1).Seconds())
	missed := elapsed/between + 1
	var mostRecent time.Time
	potentialEarliest := t1.Add(time.Duration((missed-1-1)*between) * time.Second)
	for t := sched.Next(potentialEarliest); !t.After(now); t = sched.Next(t) {
		mostRecent = t
	}
	if mostRecent.IsZero() {
		return nil, missed, nil
	}
	return &mostRecent, missed, nil
}

// MissedSchedule predicts one syncCronJob at now with the given last schedule time (nil: the
// CronJob's creation time, as the controller falls back to), no Job active. A suspended
// CronJob starts nothing: syncCronJob returns before nextScheduleTime. Otherwise it
// mirrors nextScheduleTime and the checks after it: the most recent unmet time starts a Job
// unless startingDeadlineSeconds has passed since it (MissSchedule). Only one Job starts, for
// the most recent time, however many were missed.
//
// In v1.37 more than 100 missed times do not stop the Job: the controller records
// TooManyMissedTimes ("Set or decrease .spec.startingDeadlineSeconds or check clock skew") and
// still starts it. (Before the v2 controller, 1.20 and older, it gave up; the docs still
// describe that.) startingDeadlineSeconds narrows the window the count looks at.
func MissedSchedule(cj *batchv1.CronJob, lastScheduleTime *time.Time, now time.Time) (Missed, error) {
	sched, err := Schedule(cj)
	if err != nil {
		return Missed{}, err
	}
	// The explanations name times in the CronJob's zone, as the rest of the prediction does.
	loc := location(cj)
	now = now.In(loc)
	if suspended(cj) {
		return Missed{Suspended: true, Earliest: now,
			Explanation: "suspend is true: the controller starts no Job until the CronJob is resumed"}, nil
	}
	earliest := cj.CreationTimestamp.Time
	if lastScheduleTime != nil {
		earliest = *lastScheduleTime
	}
	earliest = earliest.In(loc)
	if cj.Spec.StartingDeadlineSeconds != nil {
		if deadline := now.Add(-time.Second * time.Duration(*cj.Spec.StartingDeadlineSeconds)); deadline.After(earliest) {
			earliest = deadline
		}
	}
	m := Missed{Earliest: earliest}
	mostRecent, missed, err := mostRecentScheduleTime(earliest, now, sched)
	if err != nil {
		m.Events = append(m.Events, Event{Type: "Warning", Reason: "InvalidSchedule", Message: fmt.Sprintf("invalid schedule: %s : %s", cj.Spec.Schedule, err)})
		m.Explanation = "the schedule is invalid; the controller never starts a Job"
		return m, nil
	}
	m.MissedSchedules = missed
	m.ScheduledTime = mostRecent
	m.NextRequeue = nextRequeue(sched, earliest, mostRecent, now)
	if mostRecent == nil {
		m.Explanation = fmt.Sprintf("no schedule was due since %s; the next is at %s", earliest.Format(time.RFC3339), sched.Next(earliest).Format(time.RFC3339))
		return m, nil
	}
	if missed > tooManyMissed {
		m.TooManyMissed = true
		m.Events = append(m.Events, Event{Type: "Warning", Reason: ReasonTooManyMissedTimes,
			Message: "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"})
	}
	if cj.Spec.StartingDeadlineSeconds != nil && mostRecent.Add(time.Second*time.Duration(*cj.Spec.StartingDeadlineSeconds)).Before(now) {
		m.TooLate = true
		m.Events = append(m.Events, Event{Type: "Warning", Reason: ReasonMissSchedule,
			Message: "Missed scheduled time to start a job: " + mostRecent.UTC().Format(time.RFC1123Z)})
		m.Explanation = fmt.Sprintf("the most recent missed time %s is more than startingDeadlineSeconds (%d s) ago: no Job starts",
			mostRecent.Format(time.RFC3339), *cj.Spec.StartingDeadlineSeconds)
		return m, nil
	}
	m.StartsJob = true
	m.JobName = JobName(cj, *mostRecent)
	m.Events = append(m.Events, Event{Type: "Normal", Reason: ReasonSuccessfulCreate, Message: "Created job " + m.JobName})
	m.Explanation = fmt.Sprintf("%d unmet schedule time(s); one Job, %s, starts now for the most recent time %s", missed, m.JobName, mostRecent.Format(time.RFC3339))
	if m.TooManyMissed {
		m.Explanation += "; more than 100 were missed, so the controller also warns TooManyMissedTimes (it still starts the Job in v1.37)"
	}
	return m, nil
}

// nextRequeue mirrors nextScheduleTimeDuration: the next time after the most recent one (or
// after earliest, or now), plus 100ms.
func nextRequeue(sched cron.Schedule, earliest time.Time, mostRecent *time.Time, now time.Time) time.Time {
	base := now
	switch {
	case mostRecent != nil:
		base = *mostRecent
	case !now.Before(sched.Next(earliest)):
	default:
		base = earliest
	}
	return sched.Next(base).Add(nextScheduleDelta)
}

// Downtime predicts the first sync after the controller was down from down to up. The last
// schedule time before the outage is lastScheduleTime if given, else the last scheduled time at
// or before down (the controller was keeping up until then).
func Downtime(cj *batchv1.CronJob, lastScheduleTime *time.Time, down, up time.Time) (Missed, error) {
	if up.Before(down) {
		return Missed{}, fmt.Errorf("cronjob %s: controller up at %s, before it went down at %s", cj.Name, up, down)
	}
	last := lastScheduleTime
	if last == nil {
		sched, err := Schedule(cj)
		if err != nil {
			return Missed{}, err
		}
		from := cj.CreationTimestamp.Time
		if from.IsZero() || from.After(down) {
			from = down.Add(-366 * 24 * time.Hour)
		}
		if t, _, err := mostRecentScheduleTime(from, down, sched); err == nil && t != nil {
			last = t
		}
	}
	return MissedSchedule(cj, last, up)
}
