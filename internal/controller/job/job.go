// Package job predicts how the Job controller (k8s.io/kubernetes v1.37.1, pkg/controller/job)
// runs a Job: the waves of pods that parallelism, completions and completionMode allow, the
// pod-failure backoff between replacements, and when backoffLimit, backoffLimitPerIndex or
// activeDeadlineSeconds ends it, under a deterministic failure model. It never prints and never
// reads the real clock.
package job

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	jobcontroller "k8s.io/kubernetes/pkg/controller/job"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// Outcomes and the condition reasons the controller writes.
const (
	OutcomeComplete = "Complete"
	OutcomeFailed   = "Failed"
	// OutcomeRunning means the simulation stopped (MaxPods) before the Job finished.
	OutcomeRunning = "Running"
	// OutcomeSuspended means spec.suspend is true: the controller creates no pods until the
	// Job is resumed.
	OutcomeSuspended = "Suspended"
	// ReasonSuspended and MessageSuspended are the reason and message of the Suspended
	// condition syncJob sets (job_controller.go).
	ReasonSuspended  = "JobSuspended"
	MessageSuspended = "Job suspended"

	ReasonCompletionsReached       = batchv1.JobReasonCompletionsReached
	ReasonBackoffLimitExceeded     = batchv1.JobReasonBackoffLimitExceeded
	ReasonDeadlineExceeded         = batchv1.JobReasonDeadlineExceeded
	ReasonFailedIndexes            = batchv1.JobReasonFailedIndexes
	ReasonMaxFailedIndexesExceeded = batchv1.JobReasonMaxFailedIndexesExceeded
)

// kubeletMaxBackoff is the kubelet's cap on container restart backoff (restartPolicy
// OnFailure); it starts at 10 s and doubles.
const kubeletMaxBackoff = 5 * time.Minute

const defaultMaxPods = 10_000

// FailureModel decides which pods fail. FailFirst makes the first N pods (or, under
// restartPolicy OnFailure, container runs) fail; otherwise each fails with probability
// FailRate, drawn from a math/rand source seeded with Seed, so a plan is reproducible.
type FailureModel struct {
	FailFirst int
	FailRate  float64
	Seed      int64
}

// Input is what Simulate needs. Job is defaulted (parallelism, completions, completionMode,
// backoffLimit as the API server sets them). Every pod runs RunFor, then succeeds or fails as
// Failure decides.
type Input struct {
	Job     *batchv1.Job
	Failure FailureModel
	RunFor  time.Duration
	Start   time.Time
	// MaxPods bounds the pods the simulation creates; 0 means 10,000.
	MaxPods int
}

// PodRun is one pod (one container run under OnFailure).
type PodRun struct {
	// Index is the completion index of an Indexed Job, -1 otherwise.
	Index int
	// Attempt counts the runs for this index (or, NonIndexed, overall), from 1.
	Attempt    int
	Wave       int
	StartedAt  time.Duration
	FinishedAt time.Duration
	Failed     bool
	// Killed is true when the Job ended while the pod ran and the controller deleted it.
	Killed bool
}

// Wave is the pods the controller creates in one sync.
type Wave struct {
	At      time.Duration
	Pods    int
	Indexes []int
	// Backoff is the pod-failure backoff the controller waited before this wave (0 if none).
	Backoff time.Duration
}

// Result is the predicted run.
type Result struct {
	Waves []Wave
	Pods  []PodRun
	// Succeeded and Failed count finished pods (Failed: pod failures; under OnFailure,
	// container restarts).
	Succeeded, Failed int
	Outcome           string
	// Reason is the Complete or Failed condition's reason; Message its message.
	Reason, Message string
	Duration        time.Duration
	// FailedIndexes lists the indexes that exhausted backoffLimitPerIndex.
	FailedIndexes []int
	Notes         []string
}

// BackoffDelay is the delay before the controller creates a replacement after failures
// consecutive pod failures (since the last success), mirroring getRemainingTimeForFailuresCount
// with no time elapsed: DefaultJobPodFailureBackOff (10 s) doubled per extra failure, capped at
// MaxJobPodFailureBackOff (10 min in v1.37; the docs say 6 min).
//
// Example: 1 → 10s, 2 → 20s, 3 → 40s, 6 → 5m20s, 7 and beyond → 10m.
func BackoffDelay(failures int) time.Duration {
	if failures <= 0 {
		return 0
	}
	d := jobcontroller.DefaultJobPodFailureBackOff
	for i := 1; i < failures; i++ {
		d *= 2
		if d >= jobcontroller.MaxJobPodFailureBackOff {
			return jobcontroller.MaxJobPodFailureBackOff
		}
	}
	return d
}

// kubeletBackoff is the kubelet's crash-loop delay before restart k (1-based) of a container.
func kubeletBackoff(k int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < k; i++ {
		d *= 2
		if d >= kubeletMaxBackoff {
			return kubeletMaxBackoff
		}
	}
	return d
}

type running struct {
	run    int // index into Result.Pods
	index  int
	endsAt time.Time
	failed bool
	// restarts counts container restarts (OnFailure) of this pod.
	restarts int
}

type sim struct {
	in        Input
	job       *batchv1.Job
	clock     *kernel.Clock
	now       time.Time // clock's wall-clock time, read once per sync
	start     time.Time
	rng       *rand.Rand
	res       *Result
	active    []*running
	created   int
	succeeded map[int]bool // Indexed: succeeded indexes
	idxFail   map[int]int  // Indexed: failures per index
	idxLast   map[int]time.Time
	failedIdx map[int]bool
	// backoff record: failures since the last success, and when the last one happened.
	failuresAfterSuccess int
	lastFailure          time.Time
	wakeAt               []time.Time
	attempts             map[int]int
	onFailure            bool
	restartsTotal        int
}

// Simulate predicts the Job's run. Errors are failures of the input; a Job that fails is a
// result whose Outcome says so.
//
// The model: the controller syncs whenever a pod finishes, a backoff delay or the deadline
// expires (the 1 s sync batching is not modelled); it keeps min(parallelism, completions −
// succeeded) pods active; a failed pod is replaced after BackoffDelay (per index with
// backoffLimitPerIndex); the Job fails when failures exceed backoffLimit
// (BackoffLimitExceeded), when activeDeadlineSeconds has passed since it started
// (DeadlineExceeded), or when indexes fail (FailedIndexes, MaxFailedIndexesExceeded). Under
// restartPolicy OnFailure a failure restarts the container in place after the kubelet's
// backoff (10 s doubling, capped at 5 min) and the Job fails once the pods' restarts reach
// backoffLimit (pastBackoffLimitOnFailure).
func Simulate(in Input) (*Result, error) {
	j := in.Job
	if j == nil {
		return nil, errors.New("job: no job")
	}
	if j.Spec.Parallelism == nil || j.Spec.BackoffLimit == nil {
		return nil, fmt.Errorf("job %s: not defaulted (parallelism or backoffLimit missing)", j.Name)
	}
	if isIndexed(j) && j.Spec.Completions == nil {
		return nil, fmt.Errorf("job %s: Indexed completion mode needs completions", j.Name)
	}
	if in.Failure.FailRate < 0 || in.Failure.FailRate > 1 {
		return nil, fmt.Errorf("job %s: fail rate %v, want 0 to 1", j.Name, in.Failure.FailRate)
	}
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		// syncJob with suspend true deletes active pods, creates none and sets the Suspended
		// condition; nothing happens until the Job is resumed.
		return &Result{Outcome: OutcomeSuspended, Reason: ReasonSuspended, Message: MessageSuspended,
			Notes: []string{"spec.suspend is true: the controller creates no pods until the Job is resumed (suspend: false); activeDeadlineSeconds counts from then"}}, nil
	}
	start := kernel.StartOr(in.Start)
	s := &sim{
		in: in, job: j, clock: kernel.NewClock(start), now: start, start: start,
		rng:       rand.New(rand.NewSource(in.Failure.Seed)),
		res:       &Result{Outcome: OutcomeRunning},
		succeeded: map[int]bool{}, idxFail: map[int]int{}, idxLast: map[int]time.Time{}, failedIdx: map[int]bool{},
		attempts:  map[int]int{},
		onFailure: j.Spec.Template.Spec.RestartPolicy == v1.RestartPolicyOnFailure,
	}
	maxPods := in.MaxPods
	if maxPods == 0 {
		maxPods = defaultMaxPods
	}
	if j.Spec.ActiveDeadlineSeconds != nil {
		s.wakeAt = append(s.wakeAt, start.Add(time.Duration(*j.Spec.ActiveDeadlineSeconds)*time.Second))
	}
	for {
		if done := s.sync(); done {
			break
		}
		if s.created >= maxPods {
			s.res.Notes = append(s.res.Notes, fmt.Sprintf("simulation stopped after %d pods", maxPods))
			break
		}
		next, ok := s.next()
		if !ok {
			s.res.Notes = append(s.res.Notes, "no further progress possible")
			break
		}
		s.clock.Set(next)
		s.now = next.Time
	}
	s.res.Duration = s.now.Sub(start)
	for i := range s.failedIdx {
		s.res.FailedIndexes = append(s.res.FailedIndexes, i)
	}
	sort.Ints(s.res.FailedIndexes)
	if s.res.Outcome != OutcomeRunning {
		s.res.Notes = append(s.res.Notes, fmt.Sprintf("pod-failure backoff: 10s doubling per consecutive failure, capped at %s in v1.37 (the docs say 6m)",
			jobcontroller.MaxJobPodFailureBackOff))
	}
	return s.res, nil
}

func isIndexed(j *batchv1.Job) bool {
	return j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
}

func (s *sim) perIndex() bool {
	return isIndexed(s.job) && s.job.Spec.BackoffLimitPerIndex != nil
}

func (s *sim) since() time.Duration { return s.now.Sub(s.start) }

// next is the earliest future event: a pod finishing, a backoff or the deadline expiring.
func (s *sim) next() (kernel.Instant, bool) {
	e := kernel.NewEarliest(s.clock.Now())
	for _, a := range s.active {
		e.ConsiderAfter(kernel.At(a.endsAt))
	}
	for _, t := range s.wakeAt {
		e.ConsiderAfter(kernel.At(t))
	}
	return e.Result()
}

// fails draws the outcome of the next run.
func (s *sim) fails() bool {
	s.created++
	if s.in.Failure.FailFirst > 0 {
		return s.created <= s.in.Failure.FailFirst
	}
	return s.in.Failure.FailRate > 0 && s.rng.Float64() < s.in.Failure.FailRate
}

// sync is one syncJob at s.now; it reports whether the Job finished.
func (s *sim) sync() bool {
	j := s.job
	// Pods that finished by now.
	var newSucceeded, newFailed int
	kept := s.active[:0]
	for _, a := range s.active {
		if a.endsAt.After(s.now) {
			kept = append(kept, a)
			continue
		}
		run := &s.res.Pods[a.run]
		run.FinishedAt = s.since()
		run.Failed = a.failed
		if a.failed && s.onFailure {
			// The container restarts in place after the kubelet's backoff.
			a.restarts++
			s.restartsTotal++
			s.res.Failed++
			s.attempts[a.index]++
			r := PodRun{Index: run.Index, Attempt: s.attempts[a.index], Wave: run.Wave}
			restartAt := s.now.Add(kubeletBackoff(a.restarts))
			r.StartedAt = restartAt.Sub(s.start)
			s.res.Pods = append(s.res.Pods, r)
			a.run = len(s.res.Pods) - 1
			a.failed = s.fails()
			a.endsAt = restartAt.Add(s.in.RunFor)
			kept = append(kept, a)
			continue
		}
		if a.failed {
			newFailed++
			s.res.Failed++
			s.idxFail[a.index]++
			s.idxLast[a.index] = s.now
		} else {
			newSucceeded++
			s.res.Succeeded++
			s.succeeded[a.index] = true
		}
	}
	s.active = kept
	// newBackoffRecord: a success resets the count (failures at the same instant do not
	// come after it); failures add up.
	switch {
	case newSucceeded > 0:
		s.failuresAfterSuccess = 0
	case newFailed > 0:
		s.failuresAfterSuccess += newFailed
		s.lastFailure = s.now
	}

	// Failure scenarios, in the controller's order.
	switch {
	case s.res.Failed > int(*j.Spec.BackoffLimit) && !s.onFailure,
		s.onFailure && s.pastBackoffLimitOnFailure():
		return s.finish(OutcomeFailed, ReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")
	case j.Spec.ActiveDeadlineSeconds != nil && s.since() >= time.Duration(*j.Spec.ActiveDeadlineSeconds)*time.Second:
		return s.finish(OutcomeFailed, ReasonDeadlineExceeded, "Job was active longer than specified deadline")
	}
	completions := 0
	if j.Spec.Completions != nil {
		completions = int(*j.Spec.Completions)
	}
	succeeded := s.res.Succeeded
	if isIndexed(j) {
		succeeded = len(s.succeeded)
		if s.perIndex() {
			for i, n := range s.idxFail {
				if n > int(*j.Spec.BackoffLimitPerIndex) && !s.succeeded[i] {
					s.failedIdx[i] = true
				}
			}
			if j.Spec.MaxFailedIndexes != nil && len(s.failedIdx) > int(*j.Spec.MaxFailedIndexes) {
				return s.finish(OutcomeFailed, ReasonMaxFailedIndexesExceeded, "Job has exceeded the specified maximal number of failed indexes")
			}
			if len(s.failedIdx) > 0 && len(s.failedIdx)+succeeded >= completions {
				return s.finish(OutcomeFailed, ReasonFailedIndexes, "Job has failed indexes")
			}
		}
	}

	s.manageJob(succeeded, completions)

	// Success scenarios.
	if j.Spec.Completions == nil {
		if succeeded > 0 && len(s.active) == 0 {
			return s.finish(OutcomeComplete, ReasonCompletionsReached, "Reached expected number of succeeded pods")
		}
	} else if succeeded >= completions && len(s.active) == 0 {
		return s.finish(OutcomeComplete, ReasonCompletionsReached, "Reached expected number of succeeded pods")
	}
	return false
}

// manageJob mirrors manageJob (pkg/controller/job/job_controller.go) with succeeded pods (or
// indexes) out of completions: it keeps min(parallelism, completions − succeeded) pods active
// (parallelism, until the first success, without completions), creating the missing ones as one
// wave once the pod-failure backoff has passed (per index with backoffLimitPerIndex), Indexed
// Jobs at their lowest pending indexes.
//
// Example: parallelism 3, completions 5, 4 succeeded and 1 active: nothing is created; with 2
// failures since the last success, the next pod waits BackoffDelay(2) = 20s after the last one.
func (s *sim) manageJob(succeeded, completions int) {
	j := s.job
	active := len(s.active)
	parallelism := int(*j.Spec.Parallelism)
	var wantActive int
	if j.Spec.Completions == nil {
		wantActive = parallelism
		if succeeded > 0 {
			wantActive = active
		}
	} else {
		wantActive = max(min(completions-succeeded, parallelism), 0)
	}
	if diff := wantActive - active; diff > 0 {
		var indexes []int
		backoff := time.Duration(0)
		if isIndexed(j) {
			indexes = s.pendingIndexes(diff, completions)
			if s.perIndex() {
				indexes, backoff = s.readyIndexes(indexes)
			}
		}
		if !s.perIndex() {
			delay := BackoffDelay(s.failuresAfterSuccess)
			if remaining := delay - s.now.Sub(s.lastFailure); s.failuresAfterSuccess > 0 && remaining > 0 {
				s.wakeAt = append(s.wakeAt, s.now.Add(remaining))
				diff = 0
			} else if s.failuresAfterSuccess > 0 {
				backoff = delay
			}
		}
		if isIndexed(j) {
			diff = min(diff, len(indexes))
		}
		if diff > 0 {
			w := Wave{At: s.since(), Pods: diff, Backoff: backoff}
			for k := 0; k < diff; k++ {
				idx := -1
				if isIndexed(j) {
					idx = indexes[k]
					w.Indexes = append(w.Indexes, idx)
				}
				s.attempts[idx]++
				s.res.Pods = append(s.res.Pods, PodRun{Index: idx, Attempt: s.attempts[idx], Wave: len(s.res.Waves), StartedAt: s.since()})
				s.active = append(s.active, &running{run: len(s.res.Pods) - 1, index: idx, endsAt: s.now.Add(s.in.RunFor), failed: s.fails()})
			}
			s.res.Waves = append(s.res.Waves, w)
		}
	}
}

// pastBackoffLimitOnFailure mirrors pastBackoffLimitOnFailure: the running pods' container
// restarts reach backoffLimit (any restart when it is 0).
func (s *sim) pastBackoffLimitOnFailure() bool {
	total := 0
	for _, a := range s.active {
		total += a.restarts
	}
	if *s.job.Spec.BackoffLimit == 0 {
		return total > 0
	}
	return total >= int(*s.job.Spec.BackoffLimit)
}

// pendingIndexes mirrors firstPendingIndexes: the lowest indexes neither succeeded, active nor
// failed.
func (s *sim) pendingIndexes(count, completions int) []int {
	busy := map[int]bool{}
	for _, a := range s.active {
		busy[a.index] = true
	}
	var out []int
	for i := 0; i < completions && len(out) < count; i++ {
		if !s.succeeded[i] && !busy[i] && !s.failedIdx[i] {
			out = append(out, i)
		}
	}
	return out
}

// readyIndexes keeps the indexes whose own backoff (getRemainingTimePerIndex) has passed and
// schedules a wake-up for the first of the others.
func (s *sim) readyIndexes(indexes []int) ([]int, time.Duration) {
	var ready []int
	backoff := time.Duration(0)
	wake := time.Duration(math.MaxInt64)
	for _, i := range indexes {
		n := s.idxFail[i]
		if n == 0 {
			ready = append(ready, i)
			continue
		}
		delay := BackoffDelay(n)
		if remaining := delay - s.now.Sub(s.idxLast[i]); remaining > 0 {
			wake = min(wake, remaining)
			continue
		}
		backoff = max(backoff, delay)
		ready = append(ready, i)
	}
	if wake != time.Duration(math.MaxInt64) {
		s.wakeAt = append(s.wakeAt, s.now.Add(wake))
	}
	return ready, backoff
}

// finish ends the Job: active pods are deleted.
func (s *sim) finish(outcome, reason, message string) bool {
	for _, a := range s.active {
		run := &s.res.Pods[a.run]
		run.Killed = true
		run.FinishedAt = s.since()
	}
	s.active = nil
	s.res.Outcome, s.res.Reason, s.res.Message = outcome, reason, message
	return true
}
