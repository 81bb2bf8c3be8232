package cronjob

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
)

func TestConcurrencyHistoryLimit(t *testing.T) {
	from := time.Date(2026, 3, 9, 5, 40, 0, 0, time.UTC)
	tests := []struct {
		name  string
		limit *int32
		// wantDeleted is, per run, the minutes after from when its Job is deleted (-1: kept).
		wantDeleted []int
	}{
		// Jobs at 05:50, 06:00, ... each running 4m: the third end (06:14) deletes the first.
		{name: "limit 2", limit: ptr[int32](2), wantDeleted: []int{34, 44, 54, 64, -1, -1}},
		// No limit in the spec: the API server's default 3.
		{name: "default 3", wantDeleted: []int{44, 54, 64, -1, -1, -1}},
		{name: "limit 0", limit: ptr[int32](0), wantDeleted: []int{14, 24, 34, 44, 54, 64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cj := &batchv1.CronJob{Spec: batchv1.CronJobSpec{Schedule: "*/10 * * * *", SuccessfulJobsHistoryLimit: tt.limit}}
			res, err := Concurrency(cj, from, 4*time.Minute, 6)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res.Runs {
				got := -1
				if !r.HistoryDeletedAt.IsZero() {
					got = int(r.HistoryDeletedAt.Sub(from) / time.Minute)
				}
				if got != tt.wantDeleted[i] {
					t.Errorf("Concurrency(limit %v) run %d (%s) deleted at +%dm, want +%dm", tt.limit, i, r.Job, got, tt.wantDeleted[i])
				}
			}
		})
	}
}

func TestConcurrencyFailedHistoryLimit(t *testing.T) {
	from := time.Date(2026, 3, 9, 5, 40, 0, 0, time.UTC)
	tests := []struct {
		name          string
		failed, succ  *int32
		end           JobEnd
		wantDeleted   []int
		wantAllFailed bool
	}{
		// Jobs at 05:50, 06:00, ... each failing after 4m: the second failure (06:04+10m)
		// deletes the first failed Job; the successful limit does not apply to them.
		{name: "failed, default limit 1", end: JobEnd{After: 4 * time.Minute, Failed: true},
			succ: ptr[int32](0), wantDeleted: []int{24, 34, 44, 54, 64, -1}, wantAllFailed: true},
		{name: "failed, limit 2", failed: ptr[int32](2), end: JobEnd{After: 4 * time.Minute, Failed: true},
			wantDeleted: []int{34, 44, 54, 64, -1, -1}, wantAllFailed: true},
		{name: "failed, limit 0: each goes when it fails", failed: ptr[int32](0), end: JobEnd{After: 4 * time.Minute, Failed: true},
			wantDeleted: []int{14, 24, 34, 44, 54, 64}, wantAllFailed: true},
		// Complete Jobs: failedJobsHistoryLimit 0 deletes none of them.
		{name: "complete, failed limit 0", failed: ptr[int32](0), end: JobEnd{After: 4 * time.Minute},
			wantDeleted: []int{44, 54, 64, -1, -1, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cj := &batchv1.CronJob{Spec: batchv1.CronJobSpec{Schedule: "*/10 * * * *", FailedJobsHistoryLimit: tt.failed, SuccessfulJobsHistoryLimit: tt.succ}}
			res, err := ConcurrencyEnding(cj, from, tt.end, 6)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res.Runs {
				got := -1
				if !r.HistoryDeletedAt.IsZero() {
					got = int(r.HistoryDeletedAt.Sub(from) / time.Minute)
				}
				if got != tt.wantDeleted[i] {
					t.Errorf("ConcurrencyEnding(%s) run %d (%s) deleted at +%dm, want +%dm", tt.name, i, r.Job, got, tt.wantDeleted[i])
				}
				// The last Job starts at 06:40, the horizon, and ends inside the plan (06:44):
				// its end is a sync whose cleanup deletes an older Job.
				if wantFailed := tt.wantAllFailed; r.Failed != wantFailed {
					t.Errorf("ConcurrencyEnding(%s) run %d failed = %v, want %v", tt.name, i, r.Failed, wantFailed)
				}
			}
		})
	}
}
