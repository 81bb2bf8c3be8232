package planreport

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/cronjob"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// clock renders an absolute time as the text format shows it: RFC 3339 in the CronJob's zone,
// with the weekday, since schedules are written in weekdays.
func clock(t time.Time) string {
	return t.Format(time.RFC3339) + " " + t.Format("Mon")
}

// writeSchedule writes a CronJob's schedule: its settings, the next times (or the concurrency
// runs), the decision after missed schedules or an outage, notes and a summary.
func writeSchedule(b *strings.Builder, p runner.Prediction) {
	s := p.Schedule
	row := func(k, v string) { fmt.Fprintf(b, "  %-19s %s\n", k, v) }
	row("baseline", p.Baseline)
	zone := s.TimeZone
	if zone == "" {
		zone = "UTC (no timeZone)"
	}
	row("schedule", fmt.Sprintf("%q in %s", s.Schedule, zone))
	row("concurrencyPolicy", string(s.ConcurrencyPolicy))
	if s.StartingDeadlineSeconds != nil {
		row("startingDeadline", fmt.Sprintf("%ds after each scheduled time", *s.StartingDeadlineSeconds))
	} else {
		row("startingDeadline", "none (a missed time starts however late)")
	}
	row("from", fmt.Sprintf("%s (%s)", clock(s.From), s.FromSource))
	b.WriteString("\n")
	if s.Concurrency != nil {
		writeConcurrency(b, s)
	} else {
		fmt.Fprintf(b, "  next %d scheduled %s\n", len(s.Next), plural(len(s.Next), "time", "times"))
		for _, t := range s.Next {
			fmt.Fprintf(b, "    %s  in %-10s  Job %s\n", clock(t.At), seconds(t.At.Sub(s.From)), t.Job)
		}
		b.WriteString("\n")
	}
	if s.Missed != nil {
		fmt.Fprintf(b, "  missed schedules: the controller syncs at %s, the last schedule was %s\n", clock(s.From), clock(s.LastSchedule.In(s.From.Location())))
		writeMissed(b, s.Missed, s.From.Location())
	}
	if s.Downtime != nil {
		fmt.Fprintf(b, "  controller down from %s to %s: its first sync after the outage\n", clock(s.DownFrom), clock(s.DownTo))
		if s.LastSchedule != nil {
			fmt.Fprintf(b, "    last schedule      %s (--last-schedule)\n", clock(s.LastSchedule.In(s.From.Location())))
		}
		writeMissed(b, s.Downtime, s.From.Location())
	}
	for _, n := range s.Notes {
		fmt.Fprintf(b, "  note: %s\n", n)
	}
	fmt.Fprintf(b, "  summary: %s\n", scheduleSummary(s))
}

func writeMissed(b *strings.Builder, r *runner.MissedResult, loc *time.Location) {
	m := &r.Missed
	row := func(k, v string) { fmt.Fprintf(b, "    %-18s %s\n", k, v) }
	switch {
	case r.Unmet == 0:
		row("unmet times", "none")
	case r.Unmet == 1:
		row("unmet times", "1: "+clock(r.FirstUnmet.In(loc)))
	default:
		row("unmet times", fmt.Sprintf("%d, %s … %s", r.Unmet, clock(r.FirstUnmet.In(loc)), clock(r.LastUnmet.In(loc))))
	}
	if m.Suspended {
		row("starts a Job", "no (suspended)")
		fmt.Fprintf(b, "    → %s\n\n", m.Explanation)
		return
	}
	row("counting from", clock(m.Earliest.In(loc))+" (the later of the last schedule and the sync − startingDeadlineSeconds)")
	row("missed", fmt.Sprintf("%d (the controller's estimate)", m.MissedSchedules))
	if m.ScheduledTime != nil {
		row("most recent", clock(m.ScheduledTime.In(loc)))
	} else {
		row("most recent", "none due")
	}
	switch {
	case m.StartsJob:
		row("starts a Job", "yes: "+m.JobName)
	case m.ScheduledTime != nil:
		row("starts a Job", "no")
	}
	for _, e := range m.Events {
		row("event", fmt.Sprintf("%s %s: %s", e.Type, e.Reason, e.Message))
	}
	if !m.NextRequeue.IsZero() {
		row("next sync", clock(m.NextRequeue.In(loc)))
	}
	fmt.Fprintf(b, "    → %s\n", m.Explanation)
	if r.Ignored {
		fmt.Fprintf(b, "    → %d unmet %s, all more than startingDeadlineSeconds before the sync: the controller does not look back that far, so no Job starts\n",
			r.Unmet, plural(r.Unmet, "time", "times"))
	}
	b.WriteString("\n")
}

func writeConcurrency(b *strings.Builder, s *runner.ScheduleResult) {
	c := s.Concurrency
	fmt.Fprintf(b, "  concurrencyPolicy %s, each Job running %s, over the next %d scheduled %s\n",
		c.Policy, exactly(s.RunFor), len(c.Runs), plural(len(c.Runs), "time", "times"))
	jobWidth := len("JOB")
	for _, r := range c.Runs {
		jobWidth = max(jobWidth, len(r.Job))
	}
	fmt.Fprintf(b, "    %-29s  %-11s  %-*s  %-9s  %-9s  %s\n", "SCHEDULED", "OUTCOME", jobWidth, "JOB", "STARTS", "ENDS", "RUNNING")
	for _, r := range c.Runs {
		job, start, end, running := "-", "-", "-", "-"
		if r.Job != "" {
			job, running = r.Job, fmt.Sprint(r.Concurrent)
			start, end = "+"+seconds(r.StartedAt.Sub(r.Scheduled)), "+"+seconds(r.EndsAt.Sub(r.Scheduled))
		}
		fmt.Fprintf(b, "    %-29s  %-11s  %-*s  %-9s  %-9s  %s\n", clock(r.Scheduled), r.Outcome, jobWidth, job, start, end, running)
		for _, e := range r.Events {
			fmt.Fprintf(b, "        %s %s: %s\n", e.Type, e.Reason, e.Message)
		}
		if r.Failed {
			fmt.Fprintf(b, "        the Job fails at +%s\n", seconds(r.EndsAt.Sub(r.Scheduled)))
		}
		if !r.HistoryDeletedAt.IsZero() {
			limit, n := "successfulJobsHistoryLimit", c.SuccessfulJobsHistoryLimit
			if r.Failed {
				limit, n = "failedJobsHistoryLimit", c.FailedJobsHistoryLimit
			}
			fmt.Fprintf(b, "        deleted at +%s by %s %d (Normal SuccessfulDelete: Deleted job %s)\n",
				seconds(r.HistoryDeletedAt.Sub(r.Scheduled)), limit, n, r.Job)
		}
	}
	fmt.Fprintf(b, "  (STARTS and ENDS are after the scheduled time; RUNNING counts the Jobs running once it started)\n")
	fmt.Fprintf(b, "  at most %d %s at once\n\n", c.MaxConcurrent, plural(c.MaxConcurrent, "Job runs", "Jobs run"))
}

func scheduleSummary(s *runner.ScheduleResult) string {
	var parts []string
	switch {
	case s.Concurrency != nil:
		counts := map[cronjob.Outcome]int{}
		for _, r := range s.Concurrency.Runs {
			counts[r.Outcome]++
		}
		var c []string
		for _, o := range []cronjob.Outcome{cronjob.Started, cronjob.StartedLate, cronjob.Replaced, cronjob.Skipped, cronjob.Suspended} {
			if counts[o] > 0 {
				c = append(c, fmt.Sprintf("%d %s", counts[o], o))
			}
		}
		parts = append(parts, fmt.Sprintf("of the next %d times: %s; at most %d at once", len(s.Concurrency.Runs), strings.Join(c, ", "), s.Concurrency.MaxConcurrent))
	case len(s.Next) > 0:
		parts = append(parts, fmt.Sprintf("next run at %s, in %s", clock(s.Next[0].At), seconds(s.Next[0].At.Sub(s.From))))
	default:
		parts = append(parts, "the schedule never fires")
	}
	for _, m := range []*runner.MissedResult{s.Missed, s.Downtime} {
		switch {
		case m == nil:
		case m.Suspended:
			parts = append(parts, "suspended: no Job starts")
		case m.StartsJob:
			parts = append(parts, fmt.Sprintf("%s starts at %s for the missed time %s", m.JobName, clock(m.SyncAt), clock(m.ScheduledTime.In(m.SyncAt.Location()))))
		case m.Ignored, m.ScheduledTime != nil:
			parts = append(parts, fmt.Sprintf("%d missed %s, no Job starts", m.Unmet, plural(m.Unmet, "time", "times")))
		default:
			parts = append(parts, "no time was missed")
		}
	}
	return strings.Join(parts, "; ")
}

// stamp renders an absolute time in -o json and -o yaml: RFC 3339 in the CronJob's zone, with
// fractional seconds only when there are some (a requeue is 100ms after a scheduled time).
func stamp(t time.Time) string { return t.Format(time.RFC3339Nano) }

type scheduleDoc struct {
	Schedule                string         `json:"schedule"`
	TimeZone                string         `json:"timeZone"`
	ConcurrencyPolicy       string         `json:"concurrencyPolicy"`
	StartingDeadlineSeconds *int64         `json:"startingDeadlineSeconds"`
	Suspend                 bool           `json:"suspend"`
	From                    string         `json:"from"`
	FromSource              string         `json:"fromSource"`
	Next                    []scheduledDoc `json:"next"`
	LastSchedule            string         `json:"lastSchedule,omitempty"`
	Missed                  *missedDoc     `json:"missed,omitempty"`
	DownFrom                string         `json:"downFrom,omitempty"`
	DownTo                  string         `json:"downTo,omitempty"`
	Downtime                *missedDoc     `json:"downtime,omitempty"`
	RunForSeconds           float64        `json:"runForSeconds,omitempty"`
	Concurrency             *concurrency   `json:"concurrency,omitempty"`
	Notes                   []string       `json:"notes"`
}

type scheduledDoc struct {
	At  string `json:"at"`
	Job string `json:"job"`
}

type eventDoc struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type missedDoc struct {
	SyncAt          string     `json:"syncAt"`
	Unmet           int        `json:"unmet"`
	FirstUnmet      string     `json:"firstUnmet,omitempty"`
	LastUnmet       string     `json:"lastUnmet,omitempty"`
	Ignored         bool       `json:"ignored"`
	Earliest        string     `json:"earliest"`
	MissedSchedules int64      `json:"missedSchedules"`
	TooManyMissed   bool       `json:"tooManyMissed"`
	ScheduledTime   string     `json:"scheduledTime,omitempty"`
	StartsJob       bool       `json:"startsJob"`
	JobName         string     `json:"jobName,omitempty"`
	TooLate         bool       `json:"tooLate"`
	Events          []eventDoc `json:"events"`
	Explanation     string     `json:"explanation"`
	Suspended       bool       `json:"suspended,omitempty"`
	NextRequeue     string     `json:"nextRequeue,omitempty"`
}

type concurrency struct {
	Policy                     string   `json:"policy"`
	MaxConcurrent              int      `json:"maxConcurrent"`
	SuccessfulJobsHistoryLimit int32    `json:"successfulJobsHistoryLimit"`
	FailedJobsHistoryLimit     int32    `json:"failedJobsHistoryLimit"`
	Runs                       []runDoc `json:"runs"`
}

type runDoc struct {
	Scheduled   string     `json:"scheduled"`
	Outcome     string     `json:"outcome"`
	Job         string     `json:"job,omitempty"`
	StartedAt   string     `json:"startedAt,omitempty"`
	EndsAt      string     `json:"endsAt,omitempty"`
	ReplacedJob string     `json:"replacedJob,omitempty"`
	Concurrent  int        `json:"concurrent"`
	Events      []eventDoc `json:"events"`
	// Failed: the Job ended Failed (at EndsAt), and failedJobsHistoryLimit keeps it.
	Failed bool `json:"failed,omitempty"`
	// HistoryDeletedAt is when the history limit of its kind deletes the finished Job.
	HistoryDeletedAt string `json:"historyDeletedAt,omitempty"`
}

func toEvents(events []cronjob.Event) []eventDoc {
	out := []eventDoc{}
	for _, e := range events {
		out = append(out, eventDoc(e))
	}
	return out
}

func toMissed(r *runner.MissedResult) *missedDoc {
	if r == nil {
		return nil
	}
	m, loc := &r.Missed, r.SyncAt.Location()
	d := &missedDoc{SyncAt: stamp(r.SyncAt), Unmet: r.Unmet, Ignored: r.Ignored, Earliest: stamp(m.Earliest.In(loc)), MissedSchedules: m.MissedSchedules, TooManyMissed: m.TooManyMissed,
		StartsJob: m.StartsJob, JobName: m.JobName, TooLate: m.TooLate, Events: toEvents(m.Events), Explanation: m.Explanation, Suspended: m.Suspended}
	if r.Unmet > 0 {
		d.FirstUnmet, d.LastUnmet = stamp(r.FirstUnmet.In(loc)), stamp(r.LastUnmet.In(loc))
	}
	if m.ScheduledTime != nil {
		d.ScheduledTime = stamp(m.ScheduledTime.In(loc))
	}
	if !m.NextRequeue.IsZero() {
		d.NextRequeue = stamp(m.NextRequeue.In(loc))
	}
	return d
}

func toSchedule(s *runner.ScheduleResult) *scheduleDoc {
	if s == nil {
		return nil
	}
	loc := s.From.Location()
	d := &scheduleDoc{Schedule: s.Schedule, TimeZone: s.TimeZone, ConcurrencyPolicy: string(s.ConcurrencyPolicy),
		StartingDeadlineSeconds: s.StartingDeadlineSeconds, Suspend: s.Suspend, From: stamp(s.From), FromSource: s.FromSource,
		Next: []scheduledDoc{}, Missed: toMissed(s.Missed), RunForSeconds: secs(s.RunFor), Notes: append([]string{}, s.Notes...)}
	for _, t := range s.Next {
		d.Next = append(d.Next, scheduledDoc{At: stamp(t.At), Job: t.Job})
	}
	if s.LastSchedule != nil {
		d.LastSchedule = stamp(s.LastSchedule.In(loc))
	}
	if s.Downtime != nil {
		d.DownFrom, d.DownTo, d.Downtime = stamp(s.DownFrom), stamp(s.DownTo), toMissed(s.Downtime)
	}
	if c := s.Concurrency; c != nil {
		d.Concurrency = &concurrency{Policy: string(c.Policy), MaxConcurrent: c.MaxConcurrent, SuccessfulJobsHistoryLimit: c.SuccessfulJobsHistoryLimit, FailedJobsHistoryLimit: c.FailedJobsHistoryLimit, Runs: []runDoc{}}
		for _, r := range c.Runs {
			rd := runDoc{Scheduled: stamp(r.Scheduled), Outcome: string(r.Outcome), Job: r.Job, ReplacedJob: r.ReplacedJob,
				Concurrent: r.Concurrent, Events: toEvents(r.Events), Failed: r.Failed}
			if r.Job != "" {
				rd.StartedAt, rd.EndsAt = stamp(r.StartedAt.In(loc)), stamp(r.EndsAt.In(loc))
			}
			if !r.HistoryDeletedAt.IsZero() {
				rd.HistoryDeletedAt = stamp(r.HistoryDeletedAt.In(loc))
			}
			d.Concurrency.Runs = append(d.Concurrency.Runs, rd)
		}
	}
	return d
}
