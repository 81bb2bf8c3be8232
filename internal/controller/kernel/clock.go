package kernel

import (
	"math"
	"math/rand/v2"
	"time"
)

// Instant is a moment of simulated time: a wall-clock time and, below it, the causal order of
// the API calls that led to it.
//
// A real controller's sync is a series of API calls, and what those calls start (pods created,
// pods deleted) happens after them. Two syncs at "the same time" are never simultaneous: the
// pods the later one creates are created later and turn Ready later, and the controllers sync
// in between (see shared/reference/controllers.md, "Pods created by different syncs never turn
// Ready in the same instant"). Wall-clock times in a plan stay what events show (whole seconds
// with the default timing); Cause orders the moments that share a wall-clock time.
//
// Example: at 0s a Deployment sync scales the new ReplicaSet 0→3 (calls of cause 1) and, after
// its own status write, a second sync scales it 3→4 (cause 3). With pods Ready 2s after
// creation, the three pods turn Ready at {2s, 1} and the fourth at {2s, 3}: the controller
// syncs at {2s, 1} and sees three pods available, not four.
type Instant struct {
	Time time.Time
	// Cause is the sequence number of the batch of API calls this moment follows from: 0 for
	// the starting state, larger for later batches. LastCause orders a user's change after
	// everything the simulation caused at the same wall-clock time.
	Cause uint64
}

// LastCause is the Cause of a change made from outside the simulation (kubectl apply at a given
// time): it comes after every moment the controllers caused at the same wall-clock time.
const LastCause = math.MaxUint64

// At is the instant of wall-clock time t with no cause before it.
func At(t time.Time) Instant { return Instant{Time: t} }

// Before reports whether i comes before j: an earlier wall-clock time, or the same time and an
// earlier cause.
func (i Instant) Before(j Instant) bool {
	if !i.Time.Equal(j.Time) {
		return i.Time.Before(j.Time)
	}
	return i.Cause < j.Cause
}

// After reports whether i comes after j.
func (i Instant) After(j Instant) bool { return j.Before(i) }

// Equal reports whether i and j are the same moment.
func (i Instant) Equal(j Instant) bool { return i.Time.Equal(j.Time) && i.Cause == j.Cause }

// Add is the moment d after i, caused by the same calls: a pod created by calls of cause c turns
// Ready ReadyAfter later, still of cause c.
func (i Instant) Add(d time.Duration) Instant { return Instant{Time: i.Time.Add(d), Cause: i.Cause} }

// NoteSmallerSteps is the plan note of a StatefulSet or DaemonSet plan in which several pods are
// created together: the deterministic causal plan has each sync's pods turn Ready together, and
// a real cluster may not.
const NoteSmallerSteps = "The real controller may take smaller steps than these: the pods created together turn Ready " +
	"milliseconds apart, and a sync may see some of them before the rest. The first sync's steps, the " +
	"bounds and the final state do not change. --ready-spread D --runs N shows the range."

// NoteSlowStartSteps is the plan note of a Deployment plan in which a sync creates several pods:
// the deterministic plan has its first batch turn Ready alone and the rest together (or all
// together, while pods are being deleted), and a real cluster may group them differently.
const NoteSlowStartSteps = "Steps may split or merge in a real cluster: the controller creates a sync's pods in " +
	"slow-start batches of 1, 2, 4, …, and this plan has the first batch (1 pod) turn Ready on its own and the later " +
	"batches of the sync together after it, with the controllers acting in between, except that the batches of a " +
	"sync made while pods are being deleted " +
	"turn Ready together (as they most often do on a real control plane), or, in a sync of 7 pods or more, the " +
	"first 3 pods together and the rest together after them, with the pods created right after them. The pods of a batch may turn Ready " +
	"milliseconds apart (smaller steps), and batches that turn Ready before the controller's next sync are seen " +
	"together (larger steps). The first sync's steps, the bounds and the final state do not change. " +
	"--ready-spread D --runs N shows the range. This grouping is the most frequent of real runs recorded on kwok " +
	"without minReadySeconds, not the output of a calibrated timing model: a model of the controllers' work queues " +
	"and Ready delays, fitted on half of those recordings, did not reproduce it (docs/predict.md, \"The physical model\")."

// Batching records when a simulation first created or deleted several pods in one sync, for
// NoteSmallerSteps: the real controller can take smaller steps only after such a batch.
type Batching struct {
	seen bool
	at   time.Duration
}

// Saw records a sync at elapsed time at that created or deleted n pods.
func (b *Batching) Saw(n int, at time.Duration) {
	if n > 1 && !b.seen {
		b.seen, b.at = true, at
	}
}

// Note appends NoteSmallerSteps to p's notes when a batch of several pods came before a later
// step (the only steps a split batch can change), and the plan is the deterministic one.
func (b *Batching) Note(p *Plan, spread *Spread) { b.NoteWith(p, spread, NoteSmallerSteps) }

// NoteWith is Note with the note text of the simulator (NoteSlowStartSteps for a Deployment).
func (b *Batching) NoteWith(p *Plan, spread *Spread, note string) {
	if !b.seen || spread.Active() {
		return
	}
	for _, s := range p.Steps {
		if s.At > b.at {
			p.Notes = append(p.Notes, note)
			return
		}
	}
}

// Clock is a simulation's clock: the current instant, and the sequence of API-call batches.
// Every simulator owns one; none reads the real clock.
type Clock struct {
	start Instant
	now   Instant
	cause uint64
}

// NewClock starts a clock at wall-clock time start.
func NewClock(start time.Time) *Clock {
	return &Clock{start: At(start), now: At(start)}
}

// Now is the current instant.
func (c *Clock) Now() Instant { return c.now }

// Start is the instant the simulation started.
func (c *Clock) Start() Instant { return c.start }

// Since is the wall-clock time from the start to i, as a plan prints it.
func (c *Clock) Since(i Instant) time.Duration { return i.Time.Sub(c.start.Time) }

// Elapsed is Since(Now()).
func (c *Clock) Elapsed() time.Duration { return c.Since(c.now) }

// Set moves the clock to i. Time never runs backwards: an earlier i leaves the clock where it
// is.
func (c *Clock) Set(i Instant) {
	if i.After(c.now) {
		c.now = i
	}
	if i.Cause != LastCause && i.Cause > c.cause {
		c.cause = i.Cause
	}
}

// Issue is the instant of a new batch of API calls made now: the current wall-clock time with
// a cause after every earlier batch. A controller sync that creates pods issues one batch; its
// deletions, which the controllers issue after the creations (the DaemonSet controller's
// syncNodes, the StatefulSet controller's processReplica before processCondemned), issue the
// next.
func (c *Clock) Issue() Instant {
	c.cause++
	return Instant{Time: c.now.Time, Cause: c.cause}
}

// Earliest collects candidate event instants and keeps the earliest that is not before a floor:
// the shared core of every world's NextEventTime.
type Earliest struct {
	floor Instant
	next  Instant
	found bool
}

// NewEarliest collects instants not before floor (usually the clock's Now).
func NewEarliest(floor Instant) *Earliest { return &Earliest{floor: floor} }

// Consider offers i.
func (e *Earliest) Consider(i Instant) {
	if i.Before(e.floor) {
		i = e.floor
	}
	if !e.found || i.Before(e.next) {
		e.next, e.found = i, true
	}
}

// ConsiderAfter offers i only if it is after the floor: a transition that has already
// happened (a pod Ready long ago) is no event.
func (e *Earliest) ConsiderAfter(i Instant) {
	if i.After(e.floor) {
		e.Consider(i)
	}
}

// Result is the earliest instant offered, and whether there was one.
func (e *Earliest) Result() (Instant, bool) { return e.next, e.found }

// Spread draws each pod's extra time to Ready, for --ready-spread: uniformly in [0, D). The zero
// Spread draws nothing, and the plan is the deterministic causal plan.
type Spread struct {
	D   time.Duration
	rng *rand.Rand
}

// NewSpread spreads Ready times over d with the pseudo-random sequence of seed, so that a run is
// reproducible.
func NewSpread(d time.Duration, seed uint64) *Spread {
	return &Spread{D: d, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Draw is one pod's extra time to Ready: 0 without a spread.
func (s *Spread) Draw() time.Duration {
	if s == nil || s.D <= 0 {
		return 0
	}
	return time.Duration(s.rng.Int64N(int64(s.D)))
}

// Window is how long after an event a controller sync still sees what happens: the informer's
// delivery, the work queue and the sync itself take time. With a spread of D, transitions up to
// D/4 after the event that woke the controller are seen by the same sync. Without a spread, 0:
// the deterministic plan acts on each batch alone.
//
// D/4 is fitted to the three real runs of controllers.md (kwok, pods Ready about 20ms after
// creation): with D 100ms, 300 seeds produce all three, and with a window of 0 or D none but
// run 1 or none at all.
//
// Example: D 100ms; pods Ready at 2.000s, 2.020s and 2.070s: the sync woken at 2.000s sees the
// first two (up to 2.025s), the next one the third.
func (s *Spread) Window() time.Duration {
	if !s.Active() {
		return 0
	}
	return s.D / 4
}

// Active reports whether pods get different Ready times.
func (s *Spread) Active() bool { return s != nil && s.D > 0 }

// SyncCalls hands out the instants of one controller sync's API calls. Its pod creations are one
// batch and its deletions the next: the controllers issue creations first (the ReplicaSet
// controller's manageReplicas handles one direction per sync; the DaemonSet controller's
// syncNodes creates, then deletes; the StatefulSet controller's processReplica comes before
// processCondemned and the rolling update). A sync that makes no call issues nothing.
type SyncCalls struct {
	clock     *Clock
	creations *Instant
	deletions *Instant
	// batches are the instants of the creation batches issued so far (Batch).
	batches []Instant
}

// NewSync starts the calls of one sync at the current instant.
func (c *Clock) NewSync() *SyncCalls { return &SyncCalls{clock: c} }

// Create is the instant of the sync's pod creations.
func (s *SyncCalls) Create() Instant {
	if s.creations == nil {
		i := s.clock.Issue()
		s.creations = &i
	}
	return *s.creations
}

// Delete is the instant of the sync's pod deletions, after its creations.
func (s *SyncCalls) Delete() Instant {
	if s.deletions == nil {
		s.Create()
		i := s.clock.Issue()
		s.deletions = &i
	}
	return *s.deletions
}

// Batch is the instant of the sync's k-th batch of pod creations (from 0), issuing the batches
// up to it: the first is the sync's Create instant, each later one a batch of API calls after
// the one before. The ReplicaSet mirror's SlowStartBatch (internal/controller/replicaset) says
// which batch each creation falls in.
func (s *SyncCalls) Batch(k int) Instant {
	for len(s.batches) <= k {
		if len(s.batches) == 0 {
			s.batches = append(s.batches, s.Create())
		} else {
			s.batches = append(s.batches, s.clock.Issue())
		}
	}
	return s.batches[k]
}

// AvailableAt is when a pod Ready at readyAt becomes available with minReadySeconds minReady,
// as podutil.IsPodAvailable decides it: without minReadySeconds, at once (the same instant);
// with it, minReady after the Ready condition's lastTransitionTime, which the API server stores
// in whole seconds. The controllers re-check at that wall-clock time
// (FindMinNextPodAvailabilityCheck), so every pod whose Ready condition carries the same
// second becomes available in the same sync, whichever sync created it: the moment has no
// cause of its own.
//
// Example: pods Ready at 10.30s (cause 1) and 10.45s (cause 3) with minReadySeconds 1 carry
// lastTransitionTime 10s and both become available at {11s, 0}.
func AvailableAt(readyAt Instant, minReady time.Duration) Instant {
	if minReady <= 0 {
		return readyAt
	}
	return At(readyAt.Time.Truncate(time.Second).Add(minReady))
}
