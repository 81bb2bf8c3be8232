package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	if Floor != 128<<20 || Headroom != 80<<20 {
		t.Fatalf("Floor %d, Headroom %d: the cases below are written for 128 and 80 MiB", Floor, Headroom)
	}
	for _, tt := range []struct {
		live uint64
		want int64
	}{
		// With Floor 128 MiB and Headroom 80 MiB:
		{0, Floor},
		{Floor * 2 / 5, Floor},
		{52 << 20, 130 << 20}, // 2.5 × live
		{56 << 20, 136 << 20}, // live + Headroom, less than 2.5 × live
		{Floor, Floor + Headroom},
		{1 << 30, 1<<30 + Headroom},
	} {
		if got := Limit(tt.live); got != tt.want {
			t.Errorf("Limit(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}

// TestStartFollowsLiveHeap checks, in this process, that Start sets GOGC
// and a soft memory limit, and that the limit rises with a live heap
// larger than two fifths of the floor, after collections, Headroom above
// it at most.
func TestAhead(t *testing.T) {
	const mb = 1 << 20
	for _, tt := range []struct {
		name       string
		live, base uint64
		done       float64
		want       int64
	}{
		{"progress unknown: Limit", 200 * mb, 8 * mb, 0, Limit(200 * mb)},
		{"inputs all done: Limit", 200 * mb, 8 * mb, 1, Limit(200 * mb)},
		{"small run: the floor", 20 * mb, 8 * mb, 0.5, Floor},
		// Half the inputs keep 100 MiB: the end keeps 8 + 200, and the
		// limit is that, not yet 2.5 × 108 = 270.
		{"half done: the projected live heap", 108 * mb, 8 * mb, 0.5, 208 * mb},
		// A tenth done: the projection (8 + 400) is capped at 2.5 × live.
		{"early: at most 2.5 × live", 48 * mb, 8 * mb, 0.1, 120 * mb},
		// Near the end the projection is below live + Headroom.
		{"near the end: Limit", 200 * mb, 8 * mb, 0.95, Limit(200 * mb)},
		{"live below base: Limit", 4 * mb, 8 * mb, 0.5, Floor},
	} {
		want := max(tt.want, Limit(tt.live))
		if got := Ahead(tt.live, tt.base, tt.done); got != want {
			t.Errorf("%s: Ahead(%d MiB, %d MiB, %v) = %d MiB, want %d MiB", tt.name, tt.live/mb, tt.base/mb, tt.done, got/mb, want/mb)
		}
	}
}

func TestAfterKeepsTheHighestLimit(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set")
	}
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	tu := &tuner{high: 1 << 40} // higher than any limit of this test's heap
	tu.stopped.Store(false)
	tu.after()
	tu.stopped.Store(true) // the cleanup armed by after does nothing
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("memory limit after a collection = %d, want the highest set so far, %d", got, int64(1<<40))
	}
}

func TestProgress(t *testing.T) {
	defer progress.Store(0)
	Progress(1, 4)
	if got := done(); got != 0.25 {
		t.Errorf("done() after Progress(1, 4) = %v, want 0.25", got)
	}
	Progress(5, 4)
	if got := done(); got != 1 {
		t.Errorf("done() after Progress(5, 4) = %v, want 1", got)
	}
	Progress(1, 0) // ignored
	if got := done(); got != 1 {
		t.Errorf("done() after Progress(1, 0) = %v, want 1 (unchanged)", got)
	}
}

func TestStartFollowsLiveHeap(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: Start leaves the collector alone")
	}
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	defer func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}()
	stop := Start()
	defer stop()
	if got := debug.SetGCPercent(Percent); got != Percent {
		t.Errorf("GOGC after Start = %d, want %d", got, Percent)
	}
	if got := debug.SetMemoryLimit(-1); got != Floor {
		t.Errorf("memory limit after Start = %d, want the floor %d", got, Floor)
	}
	const size = 3 * Floor / 2 // live: more than the floor
	live := make([][]byte, 0, size>>20)
	for range size >> 20 {
		b := make([]byte, 1<<20)
		b[0] = 1
		live = append(live, b)
	}
	want := Limit(size) // above the floor
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) < want {
		if time.Now().After(deadline) {
			t.Fatalf("memory limit %d after collections with %d bytes live, want at least %d", debug.SetMemoryLimit(-1), size, want)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
}
