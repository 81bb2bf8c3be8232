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
