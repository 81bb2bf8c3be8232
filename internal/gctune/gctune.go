// Package gctune sets the Go garbage collector for kubectl-workload's runs:
// short batch jobs whose live heap is small next to what they allocate
// (each object is parsed, checked and dropped). With the default GOGC=100
// the collector runs every time the heap doubles: a cycle every few
// megabytes at the start of a run, and several during a pre-commit hook's
// run of a few files, each taking a core from the run for its marking. So
// the tuner turns the proportional trigger off and collects only at a soft
// memory limit that follows the live heap: Floor, or two and a half times
// the live heap once that is more (where GOGC=150 would put the next
// collection), so that a run over a large corpus, whose kept state outgrows
// Floor, is not made to collect continuously. Not twice (GOGC=100): a large
// run's live heap grows through its first pass, and collections that find
// it all live again cost more than the memory saved (bench/README.md has
// the figures). But never more than Headroom above the live heap: a run
// whose kept state grows with the repository would otherwise hold two and
// a half times that state (issue 41).
//
// Within that bound, a large run's limit looks ahead and never goes down.
// A run whose live heap grows through it (lint's first pass keeps what its
// second needs) peaks at its end, at that live heap plus Headroom. Before,
// the limit is the live heap the run is projected to reach (Progress: the
// share of the inputs done), when that is more than the live heap plus
// Headroom, and at most two and a half times the live heap; after, it stays
// at the highest limit set. Such a run collected every Headroom bytes it
// allocated, each collection marking all it kept so far, a cost growing
// with the square of the run's size; now it collects less often until late
// in its first pass and in its second, at about the same peak (issue 41:
// 100,000 objects, 70 collections instead of 106, peak RSS within 1%; the
// CPU 0.87 and 0.98 times as much in two pairs of runs on a loaded machine,
// bench/README.md).
//
// A user's own GOGC or GOMEMLIMIT wins: the tuner then changes nothing.
//
// ReleaseStartPages, the package's other half, takes the pages of the
// binary that only the package inits read out of the resident set.
//
// main starts the tuner explicitly, as its first statement; no package init
// changes runtime settings. The linked packages' inits (Kubernetes schemes,
// feature gates, OPA) run before it under Go's defaults, with a few small
// collections.
package gctune

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

const (
	// Percent is the GOGC the tuner sets: off; the memory limit triggers
	// collections.
	Percent = -1
	// Floor is the lowest soft memory limit the tuner sets. 128 MiB, not
	// 192 MiB since the second pass indexes 1,024 objects at a time: the
	// live heap of a 10,000-object run of many namespaces stays near 50 MB,
	// and the lower floor cut its peak RSS by a quarter (239 to 170 MB on the
	// repo-shaped corpus) at the same CPU time within the noise (the release
	// build, 5 alternating rounds; bench/README.md).
	Floor = 128 << 20
	// Headroom is the most the limit sets above the live heap, once that
	// is more than the floor allows. Without it, a run whose kept state
	// grows with the repository held two and a half times that state. A
	// 10,000-object run's limit is the floor, 60 to 90 MB above its live
	// heap, and this keeps a large run collecting about as often, each
	// collection marking more (bench/README.md has the figures).
	Headroom = 80 << 20
)

// Start applies the settings, unless GOGC or GOMEMLIMIT is set in the
// environment, and returns a function that stops following the live heap and
// puts Go's defaults back (GOGC=100, no limit).
func Start() (stop func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	debug.SetGCPercent(Percent)
	debug.SetMemoryLimit(Floor)
	t := &tuner{base: liveHeap()}
	t.arm()
	return func() {
		t.stopped.Store(true)
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// tuner re-sets the memory limit after every collection, from the live heap
// it measured and the run's progress.
type tuner struct {
	stopped atomic.Bool
	// base is the live heap when the tuner started (the package inits'
	// state), which does not grow with the inputs; high is the highest
	// limit set so far. Both are read and written by after alone, which
	// runs once per collection, one call at a time (each arms the next).
	base uint64
	high int64
}

// arm registers a sentinel whose cleanup runs after the next collection
// that finds it unreachable, that is, after each cycle.
// The sentinel holds a pointer, so that it is never batched with other
// objects by the tiny allocator (whose cleanups may not run).
func (t *tuner) arm() {
	sentinel := &struct{ p *tuner }{}
	runtime.AddCleanup(sentinel, func(*tuner) { t.after() }, t)
}

func (t *tuner) after() {
	if t.stopped.Load() {
		return
	}
	t.high = max(t.high, Ahead(liveHeap(), t.base, done()))
	debug.SetMemoryLimit(t.high)
	t.arm()
}

// Limit is the soft memory limit for a live heap of live bytes: Floor, or
// two and a half times the live heap, but never more than Headroom above
// it.
func Limit(live uint64) int64 {
	return max(Floor, min(int64(live*5/2), int64(live)+Headroom))
}

// Ahead is the soft memory limit for a live heap of live bytes when a
// share done (0 to 1) of the run's inputs is done, and the live heap was
// base before the first: Limit, or the live heap projected to the end of
// the inputs (base plus what the inputs done keep, scaled to all of them),
// but never more than two and a half times the live heap. With done 0 (not
// known) or 1, it is Limit. Not the projection plus Headroom: the live heap
// a collection measures includes what was allocated while it marked, more
// the longer a cycle, and that projected from half-way put the peak 80 MiB
// higher at 100,000 objects.
func Ahead(live, base uint64, done float64) int64 {
	limit := Limit(live)
	if done <= 0 || done >= 1 || live <= base {
		return limit
	}
	projected := float64(base) + float64(live-base)/done
	if projected > math.MaxInt64/2 {
		return max(limit, int64(live*5/2))
	}
	return max(limit, min(int64(live*5/2), int64(projected)))
}

// progress is the share of the inputs done, in millionths (Progress).
var progress atomic.Int64

// Progress reports that done of a run's total inputs are done: a lint run's
// files, which keep state until its end. Until it is called, and after
// done reaches total, the limit follows the live heap alone.
func Progress(done, total int) {
	if total <= 0 || done < 0 {
		return
	}
	progress.Store(int64(min(done, total)) * 1_000_000 / int64(total))
}

// done is the share of the inputs done, 0 when not known.
func done() float64 { return float64(progress.Load()) / 1_000_000 }

// liveHeap is the heap marked live by the last collection.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
