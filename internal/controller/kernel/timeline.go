package kernel

import (
	"slices"
	"time"
)

// Sample is the pods of every revision (a ReplicaSet, or a controller revision) at one instant, after the
// controllers settled: what a picture of the rollout draws between two controller events.
type Sample struct {
	// At is the time since the start.
	At        time.Duration
	Revisions []RevisionSize
	// Pods counts every pod that exists, terminating ones included; Available the available
	// ones.
	Pods      int32
	Available int32
}

// recorder is a World that records a Sample after every settle in which the pods changed:
// pods turning Ready or Available and terminating pods going away between two controller
// events included, which the steps alone do not show.
type recorder struct {
	World
	sizes func() []RevisionSize
	at    func() time.Duration
}

// Recording wraps w for Drive so that its plan gets a Timeline (see Plan.Timeline). sizes
// returns the revisions now, at the time since the start now; the plan's End and Final, when
// the world leaves them empty, come from the last sample.
func Recording(w World, sizes func() []RevisionSize, at func() time.Duration) World {
	return &recorder{World: w, sizes: sizes, at: at}
}

// Settle settles w, then samples it.
func (r *recorder) Settle() error {
	if err := r.World.Settle(); err != nil {
		return err
	}
	s := Sample{At: r.at(), Revisions: r.sizes()}
	for _, rs := range s.Revisions {
		s.Pods += rs.Pods
		s.Available += rs.Available
	}
	plan := r.Plan()
	if n := len(plan.Timeline); n > 0 && slices.Equal(plan.Timeline[n-1].Revisions, s.Revisions) {
		return nil
	}
	plan.Timeline = append(plan.Timeline, s)
	return nil
}

// Finish finishes w, then fills the plan's End and Final from the last sample if w did not.
func (r *recorder) Finish() {
	r.World.Finish()
	plan := r.Plan()
	n := len(plan.Timeline)
	if n == 0 || len(plan.Final) > 0 {
		return
	}
	last := plan.Timeline[n-1]
	plan.Final = last.Revisions
	plan.End = last.At
	if k := len(plan.Steps); k > 0 {
		plan.End = max(plan.End, plan.Steps[k-1].At)
	}
}
