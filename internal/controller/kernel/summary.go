package kernel

import "time"

// The parts of a plan every rollout simulator (deployment/, statefulset/, daemon/) writes the
// same way: a step's totals, the summary's peaks as the world changes, and how it ended.

// SetRevisions sets the step's revisions and its totals over them: Pods and Available summed.
//
// Example: revisions web-1 (2 pods, 2 available) and web-2 (1 pod, 0 available) make a step of
// 3 pods, 2 available.
func (st *Step) SetRevisions(revisions []RevisionSize) {
	st.Revisions = revisions
	st.Pods, st.Available = 0, 0
	for _, r := range revisions {
		st.Pods += r.Pods
		st.Available += r.Available
	}
}

// Observe records the world's pods and available pods now in the peaks: PeakPods the most
// pods at once, MinAvailable the fewest available.
func (s *Summary) Observe(pods, available int32) {
	s.PeakPods = max(s.PeakPods, pods)
	s.MinAvailable = min(s.MinAvailable, available)
}

// End records how the simulation ended: completed at completedAt, or not completed at now,
// stalled for stall unless a reason is already set (Drive's event limit).
func (s *Summary) End(completed bool, completedAt, now time.Duration, stall string) {
	s.Completed = completed
	if completed {
		s.Duration = completedAt
		return
	}
	s.Duration = now
	if s.StallReason == "" {
		s.StallReason = stall
	}
}
