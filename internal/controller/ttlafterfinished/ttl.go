// Package ttlafterfinished mirrors the TTL-after-finished controller
// (pkg/controller/ttlafterfinished/ttlafterfinished_controller.go): when a finished Job with
// spec.ttlSecondsAfterFinished is deleted, and how.
package ttlafterfinished

import (
	"fmt"
	"time"
)

// Deletion is when and how the controller deletes a finished Job.
type Deletion struct {
	// FinishedAt is when the Job finished; Stored is its Complete or Failed condition's
	// lastTransitionTime, which the API stores in whole seconds (FinishedAt floored, when the
	// Job's wall-clock start is known); At is Stored + TTL.
	FinishedAt, Stored, At time.Duration
	TTLSeconds             int32
	// StartKnown: the Job's wall-clock start was known, so Stored is FinishedAt's second.
	StartKnown bool
}

// Propagation is the propagation policy processJob deletes the Job with: Foreground, so the
// garbage collector deletes its pods first and the Job last.
const Propagation = "Foreground"

// ExpireAt mirrors getFinishAndExpireTime and jobFinishTime (with needsCleanup): the
// controller reads the finish from the Job's Complete (or Failed) condition's
// lastTransitionTime, a metav1.Time the API stores in whole seconds, so a Job that finished
// at finishedAt (since start, its wall-clock creation) with ttlSecondsAfterFinished ttl is
// deleted at the finish second, floored, + ttl: up to a second less than ttl after the real
// finish. With start unknown (zero) the finish is taken at a whole second. No TTL or a Job
// that has not finished is never deleted by this controller.
//
// Example: a Job created at 10:00:00.6 and complete 32s later (10:00:32.6, stored as
// 10:00:32) with ttlSecondsAfterFinished 5 is deleted at 10:00:37, 36.4s after its creation
// and 4.4s after its finish.
func ExpireAt(finished bool, finishedAt time.Duration, ttl *int32, start time.Time) (Deletion, bool) {
	if ttl == nil || !finished {
		return Deletion{}, false
	}
	d := Deletion{FinishedAt: finishedAt, Stored: finishedAt, TTLSeconds: *ttl}
	if !start.IsZero() {
		d.StartKnown = true
		d.Stored = start.Add(finishedAt).Truncate(time.Second).Sub(start)
	}
	d.At = d.Stored + time.Duration(*ttl)*time.Second
	return d, true
}

// Describe says when and how d happens, and why then, for plans.
func (d Deletion) Describe(seconds func(time.Duration) string) string {
	why := "the Complete condition's time is stored in whole seconds: the finish second, floored"
	if !d.StartKnown {
		why += ", up to 1s before the finish in a real run; without the Job's creation time the plan takes the finish at a whole second"
	}
	return fmt.Sprintf("at %s (finished at %s, stored as %s, + ttlSecondsAfterFinished %d; %s): the TTL-after-finished controller deletes the Job with propagation %s, so its pods go first, then the Job",
		seconds(d.At), seconds(d.FinishedAt), seconds(d.Stored), d.TTLSeconds, why, Propagation)
}
