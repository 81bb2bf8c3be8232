package planreport

import (
	"testing"
	"time"
)

// TestTimeScaleShortensQuietSpans: 10 seconds of evictions, then refusals repeating until a
// 30-minute timeout: the 10 seconds take most of the axis and the half hour a break.
func TestTimeScaleShortensQuietSpans(t *testing.T) {
	end := 30*time.Minute + 10*time.Second
	sc := newTimeScale([]time.Duration{0, 5 * time.Second, 10 * time.Second, end}, end)
	if len(sc.gaps) != 1 || sc.gaps[0].from != 10*time.Second || sc.gaps[0].to != end {
		t.Fatalf("newTimeScale gaps = %v, want one from 10s to %s", sc.gaps, end)
	}
	if x := sc.x(10 * time.Second); x < upPlotX+upPlotW-upGapWidth-1 {
		t.Errorf("x(10s) = %.1f, want the axis up to the break (%d)", x, upPlotX+upPlotW-upGapWidth)
	}
	if x := sc.x(end); x > upPlotX+upPlotW+0.5 || x < upPlotX+upPlotW-0.5 {
		t.Errorf("x(end) = %.1f, want the axis' end %d", x, upPlotX+upPlotW)
	}
	// Evenly busy: no break.
	if sc := newTimeScale([]time.Duration{0, time.Minute, 2 * time.Minute, 3 * time.Minute}, 3*time.Minute); len(sc.gaps) != 0 {
		t.Errorf("newTimeScale(every minute) gaps = %v, want none", sc.gaps)
	}
}

// TestAddCounts: a group of nodes counts the pods of all of them.
func TestAddCounts(t *testing.T) {
	a := []upCount{{0, 3}, {5 * time.Second, 1}}
	b := []upCount{{0, 2}, {7 * time.Second, 0}}
	got := addCounts(a, b)
	want := []upCount{{0, 5}, {5 * time.Second, 3}, {7 * time.Second, 1}}
	if len(got) != len(want) {
		t.Fatalf("addCounts = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("addCounts = %v, want %v", got, want)
		}
	}
}
