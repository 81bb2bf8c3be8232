package kernel

import (
	"testing"
	"time"
)

// TestSummaryEnd: a completed simulation lasts until it completed; one that did not lasts until
// now and keeps a stall reason already set (the event limit's) over the world's own.
func TestSummaryEnd(t *testing.T) {
	tests := []struct {
		name         string
		completed    bool
		preset       string
		wantDuration time.Duration
		wantStall    string
	}{
		{name: "completed", completed: true, wantDuration: 5 * time.Second},
		{name: "stalled", wantDuration: 9 * time.Second, wantStall: "waiting"},
		{name: "event limit kept", preset: "simulation stopped after 3 events", wantDuration: 9 * time.Second, wantStall: "simulation stopped after 3 events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summary{StallReason: tt.preset}
			s.End(tt.completed, 5*time.Second, 9*time.Second, "waiting")
			if s.Completed != tt.completed || s.Duration != tt.wantDuration || s.StallReason != tt.wantStall {
				t.Errorf("End(%v) = %v %s %q, want %v %s %q", tt.completed, s.Completed, s.Duration, s.StallReason, tt.completed, tt.wantDuration, tt.wantStall)
			}
		})
	}
}
