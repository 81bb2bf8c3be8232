package report

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// TestSeconds: durations in the text output are whole seconds (or milliseconds below one
// second), never "103h43m30.387s", which breaks the columns.
func TestSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{100 * time.Millisecond, "100ms"},
		{7*time.Second + time.Millisecond, "7s"},
		{103*time.Hour + 43*time.Minute + 30387*time.Millisecond, "103h43m30s"},
		{21*time.Second + 600*time.Millisecond, "22s"},
	}
	for _, tt := range tests {
		if got := seconds(tt.d); got != tt.want {
			t.Errorf("seconds(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestSubtitlesKeepValuesAndFit: the SVG subtitles name each setting with its value and wrap
// inside the picture instead of running off its edge.
func TestSubtitlesKeepValuesAndFit(t *testing.T) {
	plan := &kernel.Plan{Header: kernel.Header{Strategy: "RollingUpdate", Replicas: 3, Settings: []kernel.Setting{
		{Name: "podManagementPolicy", Value: "OrderedReady", Arithmetic: "one pod at a time, in ordinal order, each Running and Ready before the next; deletions in reverse order"},
		{Name: "partition", Value: "0", Arithmetic: "0: every pod is updated"},
		{Name: "minReadySeconds", Value: "0", Arithmetic: "0s Ready before a pod counts as available"},
	}}, Summary: kernel.Summary{Completed: true, Duration: 21 * time.Second}}
	lines := subtitles(plan)
	all := strings.Join(lines, " ")
	if !strings.Contains(all, "podManagementPolicy OrderedReady: one pod at a time") {
		t.Errorf("subtitles = %q, want podManagementPolicy with its value", lines)
	}
	for _, l := range lines {
		if len([]rune(l)) > svgSubtitleChars {
			t.Errorf("subtitle %q is %d characters, want at most %d", l, len([]rune(l)), svgSubtitleChars)
		}
	}
}
