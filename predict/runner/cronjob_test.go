package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const reportCronJob = `apiVersion: batch/v1
kind: CronJob
metadata:
  name: report
spec:
  schedule: "*/30 1-3 * * *"
  timeZone: America/New_York
  startingDeadlineSeconds: 600
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: report
            image: busybox
`

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestMissedScheduleFailure: a missed schedule that starts no Job fails the run (exit 1), and
// the count of really missed times says why, since the controller looks back only
// startingDeadlineSeconds.
func TestMissedScheduleFailure(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cronjob.yaml")
	if err := os.WriteFile(file, []byte(reportCronJob), 0o644); err != nil {
		t.Fatal(err)
	}
	last := at("2026-03-09T05:00:00Z") // 01:00 EDT
	tests := []struct {
		name       string
		req        Request
		wantUnmet  int
		wantJob    bool
		wantFailed bool
	}{
		{
			// 01:30 … 03:30 missed; at 04:00 the controller looks back to 03:50 and sees none.
			name: "down until past the deadline", req: Request{DownFrom: at("2026-03-09T05:10:00Z"), DownTo: at("2026-03-09T08:00:00Z")},
			wantUnmet: 5, wantFailed: true,
		},
		{
			// At 03:32 the 03:30 time is within 600s: its Job starts.
			name: "missed within the deadline", req: Request{LastSchedule: &last, Now: at("2026-03-09T07:32:00Z")},
			wantUnmet: 5, wantJob: true,
		},
		{
			name: "nothing missed", req: Request{LastSchedule: &last, Now: at("2026-03-09T05:20:00Z")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Files = []string{file}
			res, err := Run(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Predictions) != 1 || res.Predictions[0].Schedule == nil {
				t.Fatalf("Run = %+v %+v, want one schedule", res.Predictions, res.Problems)
			}
			s := res.Predictions[0].Schedule
			m := s.Missed
			if m == nil {
				m = s.Downtime
			}
			if m == nil || m.Unmet != tt.wantUnmet || m.StartsJob != tt.wantJob || res.Failed() != tt.wantFailed {
				t.Errorf("Run = %+v, failed %v; want %d unmet, starts a Job %v, failed %v", m, res.Failed(), tt.wantUnmet, tt.wantJob, tt.wantFailed)
			}
		})
	}
}

// TestScheduleFromTheClock: without --now the next times count from the injected clock.
func TestScheduleFromTheClock(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cronjob.yaml")
	if err := os.WriteFile(file, []byte(reportCronJob), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Request{Files: []string{file}, Next: 2, Clock: func() time.Time { return at("2026-03-09T05:40:00Z") }})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Predictions[0].Schedule
	if len(s.Next) != 2 || !s.Next[0].At.Equal(at("2026-03-09T06:00:00Z")) || s.Next[0].At.Location().String() != "America/New_York" ||
		s.Next[0].Job != "report-29550600" || s.FromSource != "the current time" {
		t.Errorf("Run(next 2) = %+v, want 02:00 EDT (report-29550600) first, of 2, from the clock", s)
	}
}
