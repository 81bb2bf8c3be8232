package cronjob

import (
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func newCronJob(schedule string, timeZone *string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "report", Namespace: "default",
			CreationTimestamp: metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))},
		Spec: batchv1.CronJobSpec{Schedule: schedule, TimeZone: timeZone, ConcurrencyPolicy: batchv1.AllowConcurrent},
	}
}

func ptr[T any](v T) *T { return &v }

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestNextTimesAgreeWithCron compares NextTimes with robfig/cron/v3 itself, parsed with the
// options upstream uses (cron.ParseStandard, "TZ=" prefix for timeZone).
func TestNextTimesAgreeWithCron(t *testing.T) {
	from := utc("2026-03-06T12:00:00Z")
	tests := []struct {
		schedule string
		timeZone *string
	}{
		{"@hourly", nil},
		{"@daily", nil},
		{"0 9-17 * * 1-5", nil},
		{"*/15 * * * *", nil},
		{"5-50/20 */3 * * *", nil},
		{"30 2 * * *", ptr("America/New_York")},
		{"0 * * * *", ptr("America/New_York")},
		{"0 9 * * MON-FRI", ptr("Europe/Berlin")},
	}
	for _, tt := range tests {
		t.Run(tt.schedule, func(t *testing.T) {
			cj := newCronJob(tt.schedule, tt.timeZone)
			got, err := NextTimes(cj, from, 50)
			if err != nil {
				t.Fatal(err)
			}
			spec := tt.schedule
			if tt.timeZone != nil {
				spec = "TZ=" + *tt.timeZone + " " + spec
			}
			sched, err := cron.ParseStandard(spec)
			if err != nil {
				t.Fatal(err)
			}
			next := from
			for i := range got {
				next = sched.Next(next)
				if !got[i].Equal(next) {
					t.Fatalf("NextTimes(%q)[%d] = %s, cron says %s", tt.schedule, i, got[i], next)
				}
			}
		})
	}
}

func TestNextTimesKnownValues(t *testing.T) {
	tests := []struct {
		name     string
		schedule string
		timeZone *string
		from     string
		want     []string
	}{
		{name: "@hourly", schedule: "@hourly", from: "2026-01-01T10:20:00Z",
			want: []string{"2026-01-01T11:00:00Z", "2026-01-01T12:00:00Z", "2026-01-01T13:00:00Z"}},
		{name: "range and step", schedule: "*/20 9-10 * * *", from: "2026-01-01T10:30:00Z",
			want: []string{"2026-01-01T10:40:00Z", "2026-01-02T09:00:00Z", "2026-01-02T09:20:00Z"}},
		{name: "New York across spring-forward: 02:30 does not exist on 8 March", schedule: "30 2 * * *", timeZone: ptr("America/New_York"),
			from: "2026-03-06T12:00:00Z",
			want: []string{"2026-03-07T07:30:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"}},
		{name: "New York across fall-back: 01:00 happens twice", schedule: "0 * * * *", timeZone: ptr("America/New_York"),
			from: "2026-11-01T04:30:00Z",
			want: []string{"2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NextTimes(newCronJob(tt.schedule, tt.timeZone), utc(tt.from), len(tt.want))
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range tt.want {
				if !got[i].Equal(utc(w)) {
					t.Errorf("NextTimes[%d] = %s, want %s", i, got[i].UTC().Format(time.RFC3339), w)
				}
			}
			if tt.timeZone != nil && got[0].Location().String() != *tt.timeZone {
				t.Errorf("location = %s, want %s", got[0].Location(), *tt.timeZone)
			}
		})
	}
}

func TestScheduleErrors(t *testing.T) {
	tests := []struct {
		name     string
		schedule string
		timeZone *string
		want     string
	}{
		{"CRON_TZ in schedule", "CRON_TZ=UTC 0 * * * *", nil, "cannot use TZ or CRON_TZ"},
		{"TZ in schedule", "TZ=UTC 0 * * * *", nil, "cannot use TZ or CRON_TZ"},
		{"unknown time zone", "0 * * * *", ptr("Mars/Olympus"), "invalid timeZone"},
		{"bad schedule", "61 * * * *", nil, "unparseable schedule"},
	}
	for _, tt := range tests {
		if _, err := Schedule(newCronJob(tt.schedule, tt.timeZone)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Schedule(%q) error = %v, want %q", tt.name, tt.schedule, err, tt.want)
		}
	}
}

func TestMissedSchedule(t *testing.T) {
	tests := []struct {
		name      string
		schedule  string
		deadline  *int64
		last      string
		now       string
		starts    bool
		scheduled string
		missed    int64
		tooMany   bool
	}{
		{name: "on time", schedule: "@hourly", last: "2026-01-01T12:00:00Z", now: "2026-01-01T13:00:00Z",
			starts: true, scheduled: "2026-01-01T13:00:00Z", missed: 1},
		{name: "three missed: one Job for the most recent", schedule: "@hourly", last: "2026-01-01T10:00:00Z", now: "2026-01-01T13:30:00Z",
			starts: true, scheduled: "2026-01-01T13:00:00Z", missed: 3},
		{name: "nothing due", schedule: "@hourly", last: "2026-01-01T13:00:00Z", now: "2026-01-01T13:30:00Z"},
		{name: "more than 100 missed: warned, still starts in v1.37", schedule: "@hourly", last: "2026-01-01T00:00:00Z", now: "2026-01-06T00:30:00Z",
			starts: true, scheduled: "2026-01-06T00:00:00Z", missed: 120, tooMany: true},
		{name: "startingDeadlineSeconds narrows the window below 100", schedule: "*/1 * * * *", deadline: ptr(int64(600)),
			last: "2026-01-01T00:00:00Z", now: "2026-01-06T00:30:30Z", starts: true, scheduled: "2026-01-06T00:30:00Z", missed: 10},
		{name: "startingDeadlineSeconds past every missed time", schedule: "@hourly", deadline: ptr(int64(60)),
			last: "2026-01-01T10:00:00Z", now: "2026-01-01T13:30:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cj := newCronJob(tt.schedule, nil)
			cj.Spec.StartingDeadlineSeconds = tt.deadline
			last := utc(tt.last)
			m, err := MissedSchedule(cj, &last, utc(tt.now))
			if err != nil {
				t.Fatal(err)
			}
			if m.StartsJob != tt.starts || m.MissedSchedules != tt.missed || m.TooManyMissed != tt.tooMany {
				t.Errorf("MissedSchedule = starts %v, missed %d, tooMany %v (%s), want %v, %d, %v",
					m.StartsJob, m.MissedSchedules, m.TooManyMissed, m.Explanation, tt.starts, tt.missed, tt.tooMany)
			}
			if tt.scheduled != "" && (m.ScheduledTime == nil || !m.ScheduledTime.Equal(utc(tt.scheduled))) {
				t.Errorf("ScheduledTime = %v, want %s", m.ScheduledTime, tt.scheduled)
			}
			if tt.starts && m.JobName != JobName(cj, utc(tt.scheduled)) {
				t.Errorf("JobName = %s, want %s", m.JobName, JobName(cj, utc(tt.scheduled)))
			}
			hasWarning := false
			for _, e := range m.Events {
				hasWarning = hasWarning || e.Reason == ReasonTooManyMissedTimes
			}
			if hasWarning != tt.tooMany {
				t.Errorf("TooManyMissedTimes event = %v, want %v", hasWarning, tt.tooMany)
			}
		})
	}
}

func TestDowntime(t *testing.T) {
	cj := newCronJob("@hourly", nil)
	m, err := Downtime(cj, nil, utc("2026-01-01T10:05:00Z"), utc("2026-01-01T15:10:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if !m.StartsJob || !m.ScheduledTime.Equal(utc("2026-01-01T15:00:00Z")) || m.MissedSchedules != 5 {
		t.Errorf("Downtime = %+v, want one Job for 15:00 after 5 missed", m)
	}
	if want := utc("2026-01-01T16:00:00.1Z"); !m.NextRequeue.Equal(want) {
		t.Errorf("NextRequeue = %s, want %s", m.NextRequeue, want)
	}
}

func TestConcurrency(t *testing.T) {
	from := utc("2026-01-01T00:00:00Z").Add(-time.Second)
	tests := []struct {
		policy        batchv1.ConcurrencyPolicy
		want          []Outcome
		maxConcurrent int
	}{
		{batchv1.AllowConcurrent, []Outcome{Started, Started, Started, Started, Started, Started}, 3},
		// 00:00 runs to 00:25; 00:10 and 00:20 find it active; at 00:25 the most recent unmet
		// time, 00:20, starts late and runs to 00:50, so 00:30 and 00:40 are refused. At 00:50
		// the Job, created after the 00:25 sync's call, is still running: 00:50 is refused too,
		// and starts late, at 00:50 still, once the Job ends.
		{batchv1.ForbidConcurrent, []Outcome{Started, Skipped, StartedLate, Skipped, Skipped, StartedLate}, 1},
		{batchv1.ReplaceConcurrent, []Outcome{Started, Replaced, Replaced, Replaced, Replaced, Replaced}, 1},
	}
	for _, tt := range tests {
		t.Run(string(tt.policy), func(t *testing.T) {
			cj := newCronJob("*/10 * * * *", nil)
			cj.Spec.ConcurrencyPolicy = tt.policy
			res, err := Concurrency(cj, from, 25*time.Minute, 6)
			if err != nil {
				t.Fatal(err)
			}
			var got []Outcome
			for _, r := range res.Runs {
				got = append(got, r.Outcome)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("runs = %v, want %v", res.Runs, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("runs = %v, want %v", res.Runs, tt.want)
					break
				}
			}
			if res.MaxConcurrent != tt.maxConcurrent {
				t.Errorf("MaxConcurrent = %d, want %d", res.MaxConcurrent, tt.maxConcurrent)
			}
		})
	}
}

// TestConcurrencyInNamedTimeZone: a CronJob with a timeZone starts its Jobs as one without.
// The scheduled times of NextTimes and MissedSchedule come from separate LoadLocation calls,
// so they must be matched by instant, not as time.Time values.
func TestConcurrencyInNamedTimeZone(t *testing.T) {
	for _, zone := range []string{"UTC", "Etc/UTC", "Europe/Berlin", "Asia/Tokyo", "America/New_York"} {
		t.Run(zone, func(t *testing.T) {
			cj := newCronJob("30 2 * * *", ptr(zone))
			cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
			cj.Spec.StartingDeadlineSeconds = ptr(int64(3600))
			res, err := Concurrency(cj, utc("2026-05-01T00:00:00Z"), 30*time.Minute, 3)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Runs {
				if r.Outcome != Started {
					t.Errorf("Concurrency(%s) run %v, want Started", zone, r)
				}
			}
			if res.MaxConcurrent != 1 {
				t.Errorf("Concurrency(%s).MaxConcurrent = %d, want 1", zone, res.MaxConcurrent)
			}
		})
	}
}

// TestSuspendedCronJobStartsNothing: syncCronJob returns before the schedule when suspend is
// true, so neither --run-for nor a missed schedule starts a Job.
func TestSuspendedCronJobStartsNothing(t *testing.T) {
	cj := newCronJob("*/10 * * * *", ptr("Europe/Berlin"))
	cj.Spec.Suspend = ptr(true)
	res, err := Concurrency(cj, utc("2026-01-01T00:00:00Z"), 5*time.Minute, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Outcome != Suspended || r.Job != "" || len(r.Events) != 0 {
			t.Errorf("Concurrency(suspended) run %v with %d events, want Suspended, no Job, no events", r, len(r.Events))
		}
	}
	if res.MaxConcurrent != 0 {
		t.Errorf("Concurrency(suspended).MaxConcurrent = %d, want 0", res.MaxConcurrent)
	}
	last := utc("2026-01-01T00:00:00Z")
	m, err := MissedSchedule(cj, &last, utc("2026-01-01T01:05:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if m.StartsJob || !m.Suspended || len(m.Events) != 0 {
		t.Errorf("MissedSchedule(suspended) = %+v, want no Job, Suspended, no events", m)
	}
}

// TestExplanationInTimeZone: the explanation names times in the CronJob's zone, as the rest of
// the output does, even when the last schedule is given in UTC.
func TestExplanationInTimeZone(t *testing.T) {
	cj := newCronJob("30 * * * *", ptr("America/New_York"))
	last := utc("2026-03-09T05:30:00Z")
	for _, now := range []time.Time{utc("2026-03-09T06:40:00Z"), utc("2026-03-09T05:40:00Z")} {
		m, err := MissedSchedule(cj, &last, now)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(m.Explanation, "Z") || !strings.Contains(m.Explanation, "-04:00") {
			t.Errorf("MissedSchedule(now %s).Explanation = %q, want times in -04:00", now, m.Explanation)
		}
	}
}

// TestConcurrencyJobOfExactlyOneInterval: a Job that runs exactly one interval is still
// running at the next scheduled time (it was created by the previous sync's call, after that
// scheduled time), so Forbid refuses the time with JobAlreadyActive and starts it, late, when
// the Job ends at the same wall-clock second.
func TestConcurrencyJobOfExactlyOneInterval(t *testing.T) {
	cj := newCronJob("*/10 * * * *", nil)
	cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
	res, err := Concurrency(cj, utc("2026-01-01T00:00:00Z").Add(-time.Second), 10*time.Minute, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[1]
	var reasons []string
	for _, e := range r.Events {
		reasons = append(reasons, e.Reason)
	}
	if r.Outcome != StartedLate || !r.StartedAt.Equal(r.Scheduled) ||
		strings.Join(reasons, ",") != ReasonJobAlreadyActive+","+ReasonSuccessfulCreate || res.MaxConcurrent != 1 {
		t.Errorf("second run = %v at %s with events %v (max %d concurrent), want StartedLate at its scheduled time after JobAlreadyActive, 1 concurrent",
			r, r.StartedAt, reasons, res.MaxConcurrent)
	}
}
