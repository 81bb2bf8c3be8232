package planreport

import (
	"fmt"
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
	lines := subtitles(plan, nil)
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

// TestWriteDistributionListsSequences: --runs lists each distinct step sequence with its count
// in the compact form, marks the plan's, and bounds the list with how many more there are.
func TestWriteDistributionListsSequences(t *testing.T) {
	plan := &kernel.Plan{Steps: []kernel.Step{{Revisions: []kernel.RevisionSize{{Name: "web-old"}, {Name: "web-new"}}}}}
	d := &kernel.Distribution{Runs: 20, Seed: 1, Spread: 100 * time.Millisecond, DeterministicRuns: 2}
	for i := range shownSequences + 2 {
		d.Sequences = append(d.Sequences, kernel.SequenceCount{Runs: 2, Plan: i == 1, Steps: []string{
			"Scaled up replica set web-new from 0 to 1",
			fmt.Sprintf("Scaled down replica set web-old from 9 to %d", i),
		}})
	}
	var b strings.Builder
	writeDistribution(&b, d, plan)
	out := b.String()
	for _, want := range []string{
		"step sequences   10 distinct; the plan above in 2 of 20 runs",
		" 2 runs  B 0→1, A 9→0\n",
		" 2 runs  B 0→1, A 9→1  (the plan)\n",
		" 2 runs  B 0→1, A 9→7\n",
		"and 2 more sequences (4 runs); -o json lists them all",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("writeDistribution() =\n%s\nwant it to contain %q", out, want)
		}
	}
	if strings.Contains(out, "A 9→8") {
		t.Errorf("writeDistribution() =\n%s\nwant the 9th sequence left to -o json", out)
	}
}

func TestCompactStep(t *testing.T) {
	labels := map[string]string{"web-1": "A"}
	tests := []struct{ msg, want string }{
		{"Scaled up replica set web-1 from 0 to 3", "A 0→3"},
		{"Scaled down replica set other from 3 to 2", "other 3→2"},
		{"Create Pod db-3 in StatefulSet db successful", "+db-3"},
		{"Delete Pod db-2 in StatefulSet db successful", "−db-2"},
		{"Created 2 new pods (2 nodes at a time)", "+2"},
		{"Deleted 1 old pod (1 node at a time)", "−1"},
		{"Deployment web has timed out progressing.", "Deployment web has timed out progressing."},
	}
	for _, tt := range tests {
		if got := compactStep(tt.msg, labels); got != tt.want {
			t.Errorf("compactStep(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}
