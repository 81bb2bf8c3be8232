package predict

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
