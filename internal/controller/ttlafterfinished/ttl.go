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
	// FinishedAt is the Job's Complete or Failed condition time; At is FinishedAt + TTL.
	FinishedAt, At time.Duration
	TTLSeconds     int32
}

// Propagation is the propagation policy processJob deletes the Job with: Foreground, so the
// garbage collector deletes its pods first and the Job last.
const Propagation = "Foreground"

// ExpireAt mirrors getFinishAndExpireTime (with needsCleanup): a Job that finished at
// finishedAt with ttlSecondsAfterFinished ttl is deleted at finishedAt + ttl; no TTL or a Job
// that has not finished is never deleted by this controller.
//
// Example: a Job complete at 32s with ttlSecondsAfterFinished 5 is deleted at 37s; with 0, at
// 32s, as soon as the controller sees it finished.
func ExpireAt(finished bool, finishedAt time.Duration, ttl *int32) (Deletion, bool) {
	if ttl == nil || !finished {
		return Deletion{}, false
	}
	return Deletion{FinishedAt: finishedAt, At: finishedAt + time.Duration(*ttl)*time.Second, TTLSeconds: *ttl}, true
}

// Describe says when and how d happens, for plans.
func (d Deletion) Describe(seconds func(time.Duration) string) string {
	return fmt.Sprintf("at %s (finished at %s + ttlSecondsAfterFinished %d): the TTL-after-finished controller deletes the Job with propagation %s, so its pods go first, then the Job",
		seconds(d.At), seconds(d.FinishedAt), d.TTLSeconds, Propagation)
}
