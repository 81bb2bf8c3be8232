package kernel

import (
	"fmt"
	"time"
)

// World is a discrete-event world around a simulated controller, as Drive runs it.
type World interface {
	// Settle runs the controllers at the current instant until they have nothing left to do,
	// as their informers would.
	Settle() error
	// NextEventTime is the earliest future transition (a pod turning Ready or Available or
	// going away, a requeued sync, a timed change); false when none is left.
	NextEventTime() (Instant, bool)
	// Advance moves the clock to t and applies every transition due then.
	Advance(t Instant)
	// Finish writes the plan's summary.
	Finish()
	// Plan is the plan being written.
	Plan() *Plan
}

// Drive runs w: it settles the starting state, then advances to each next event and settles
// again, until no event is left or maxEvents events have happened (the plan's stall reason
// then says so), and finishes the plan. An error is a failure of the world, not a stall.
//
// window is how long after each event the controllers still see what happens (Spread.Window):
// the clock is advanced to the event plus window. 0 acts on each event alone.
func Drive(w World, maxEvents int, window time.Duration) (*Plan, error) {
	if err := w.Settle(); err != nil {
		return nil, err
	}
	for events := 0; ; events++ {
		t, ok := w.NextEventTime()
		if !ok {
			break
		}
		if events == maxEvents {
			w.Plan().Summary.StallReason = fmt.Sprintf("simulation stopped after %d events", maxEvents)
			break
		}
		w.Advance(t.Add(window))
		if err := w.Settle(); err != nil {
			return nil, err
		}
	}
	w.Finish()
	return w.Plan(), nil
}

// Epoch is the simulated wall time of the first sync when the input names none: a fixed date,
// so that a plan never depends on the real clock.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// StartOr is start, or Epoch when start is zero.
func StartOr(start time.Time) time.Time {
	if start.IsZero() {
		return Epoch
	}
	return start
}

// DefaultMaxEvents bounds a simulation whose input sets no limit: enough to roll out about
// 100,000 pods one at a time.
const DefaultMaxEvents = 200_000

// EventLimit is n, or DefaultMaxEvents when n is 0.
func EventLimit(n int) int {
	if n == 0 {
		return DefaultMaxEvents
	}
	return n
}

// MaxSyncsPerInstant bounds the syncs of one controller at one instant. The controllers reach
// a fixed point in a few syncs; more means the mirror loops.
const MaxSyncsPerInstant = 10_000

// UntilFixedPoint runs sync until it reports that it changed nothing, as the informers would
// requeue a controller after each of its own writes. After MaxSyncsPerInstant syncs it fails,
// naming what (for example "deployment web") and the time since the start.
func UntilFixedPoint(what string, now time.Duration, sync func() (changed bool, err error)) error {
	for i := 0; i < MaxSyncsPerInstant; i++ {
		changed, err := sync()
		if err != nil || !changed {
			return err
		}
	}
	return fmt.Errorf("predict: %s: no fixed point after %d syncs at %s", what, MaxSyncsPerInstant, now)
}

// Run drives w to its end (Drive) with a timeline (Recording of sizes on clock), under the
// event limit maxEvents (EventLimit) and the window of spread: the loop of every rollout
// simulator.
func Run(w World, sizes func() []RevisionSize, clock *Clock, maxEvents int, spread *Spread) (*Plan, error) {
	return Drive(Recording(w, sizes, clock.Elapsed), EventLimit(maxEvents), spread.Window())
}
