package deployment

import (
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// TestDeadlineCountsFromStoredSeconds: the API server stores condition times in whole
// seconds, so a rollout whose last progress is at 12:00:00.7 times out by the stored
// 12:00:00: the controller re-checks at 12:00:00 + 10s + 1s, 10.3s after the start, not 11s.
// A real v1.37.1 controller (test/e2e TestPredictDeploymentDifferential, fail-new-deadline)
// flips the condition at that second.
func TestDeadlineCountsFromStoredSeconds(t *testing.T) {
	strategy := "  progressDeadlineSeconds: 10\n" + defaultStrategy
	old := webDeployment(t, 3, "nginx:1.0", strategy)
	d := webDeployment(t, 3, "nginx:2.0", strategy)
	tests := []struct {
		name  string
		start time.Time
		want  time.Duration
	}{
		{name: "whole-second start", start: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), want: 11 * time.Second},
		{name: "start at .7s", start: time.Date(2026, 3, 1, 12, 0, 0, 700_000_000, time.UTC), want: 10300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Simulate(Input{Deployment: d, Old: old, Start: tt.start,
				Timing: kernel.Timing{ReadyAfter: time.Second, TerminateAfter: time.Second, FailNew: true}})
			if err != nil {
				t.Fatalf("Simulate() error: %v", err)
			}
			if !p.Summary.DeadlineExceeded || p.Summary.DeadlineAt != tt.want {
				t.Errorf("Simulate() deadline exceeded %v at %s, want true at %s", p.Summary.DeadlineExceeded, p.Summary.DeadlineAt, tt.want)
			}
			// The progress was at the start; its stored time is up to a second earlier, which
			// the summary reports as the start, never before it.
			if p.Summary.LastProgressAt != 0 {
				t.Errorf("Simulate() last progress at %s, want 0s", p.Summary.LastProgressAt)
			}
		})
	}
}
