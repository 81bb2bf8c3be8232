package statefulset

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// The simulated cluster the StatefulSet controller (stateful_set_control.go,
// stateful_pod_control.go) acts on: the pods by ordinal, turning Ready and available and removed
// in simulated time, and the plan the controller's actions are recorded in.

// Event reasons and messages of the StatefulSet controller (recordPodEvent in
// pkg/controller/statefulset/stateful_pod_control.go): the verb is title-cased.
const (
	ReasonSuccessfulCreate = "SuccessfulCreate"
	ReasonSuccessfulDelete = "SuccessfulDelete"
)

// Input is what Simulate needs. StatefulSet is the desired state (the new manifest), defaulted
// as the API server stores it. The starting state is either Old (the previous version, assumed
// fully rolled out: every pod Running, Ready and available) or Pods (live or dumped pods, each
// named <set>-<ordinal>, labelled with its controller-revision-hash, and with its readiness);
// with neither, the StatefulSet starts from nothing.
type Input struct {
	StatefulSet *apps.StatefulSet
	Old         *apps.StatefulSet
	Pods        []*v1.Pod
	// CurrentRevision is status.currentRevision when the start is Pods. Empty means the most
	// common pod revision other than the update revision (or the update revision if none).
	CurrentRevision string
	// Timing: ReadyAfter is how long a created pod takes to become Running and Ready;
	// TerminateAfter how long a deleted pod takes to go away; FailNew keeps every pod of the
	// update revision from ever becoming Ready (a broken new template).
	Timing kernel.Timing
	// Start is the simulated wall time of the first sync; the zero value means a fixed epoch.
	Start time.Time
	// MaxEvents bounds the simulation; 0 means kernel.DefaultMaxEvents.
	MaxEvents int
	// MaxUnavailableGate overrides the MaxUnavailableStatefulSet feature gate; nil means the
	// v1.37 default, on.
	MaxUnavailableGate *bool
}

// pod is one StatefulSet pod in the simulated world, or a placeholder for a missing ordinal.
type pod struct {
	ordinal  int
	name     string
	revision string
	created  bool
	// failed pods (phase Failed or Succeeded) are deleted and recreated by processReplica.
	failed      bool
	neverReady  bool
	readyAt     kernel.Instant
	availableAt kernel.Instant
	deleted     bool
	goneAt      kernel.Instant
}

// runningAndReady mirrors isRunningAndReady: created, not terminating, past its ready time.
// A terminating pod counts as not ready (its containers are being stopped).
func (p *pod) runningAndReady(now kernel.Instant) bool {
	return p.created && !p.failed && !p.deleted && !p.neverReady && !now.Before(p.readyAt)
}

// available mirrors isRunningAndAvailable: ready for at least minReadySeconds.
func (p *pod) available(now kernel.Instant) bool {
	return p.runningAndReady(now) && !now.Before(p.availableAt)
}

// unavailable mirrors isUnavailable: not available, or terminating.
func (p *pod) unavailable(now kernel.Instant) bool {
	return !p.available(now) || p.deleted
}

type world struct {
	set           *apps.StatefulSet
	clock         *kernel.Clock
	calls         *kernel.SyncCalls
	timing        kernel.Timing
	minReady      time.Duration
	gate          bool
	failNew       bool
	currentRev    string
	updateRev     string
	revisionOrder []string
	pods          map[int]*pod
	plan          *kernel.Plan
	seq           int
	blocked       string
	done          bool
	completedAt   time.Duration
	lastActionAt  time.Duration
	stuckPod      string
	startReplicas int32
	// created and deleted count the current sync's calls, for batching: a real cluster may see
	// several pods of one sync change one by one.
	created, deleted int
	batching         kernel.Batching
}

// Simulate predicts how the StatefulSet controller takes in.StatefulSet from the starting state
// to the desired state: pod creations and deletions in the controller's order, with the sizes
// per controller revision after each, as a plan. Errors are failures of the input; a rollout
// that stalls is a plan whose summary says so.
//
// Step mapping: every pod create or delete is one step whose Reason and Message are the
// controller's event ("SuccessfulDelete", "Delete Pod web-2 in StatefulSet web successful");
// Step.Revisions holds one entry per controller revision (current first, update last) with
// Replicas = its pods that are not terminating, Pods = all its pods, Available = its available
// pods.
func Simulate(in Input) (*kernel.Plan, error) {
	w, err := newWorld(in)
	if err != nil {
		return nil, err
	}
	return kernel.Run(w, w.sizes, w.clock, in.MaxEvents, in.Timing.Spread)
}

// Advance moves the clock to t and applies the pod transitions due.
func (w *world) Advance(t kernel.Instant) {
	w.clock.Set(t)
	w.advance()
}

// Plan is the plan being written.
func (w *world) Plan() *kernel.Plan { return w.plan }

func newWorld(in Input) (*world, error) {
	set := in.StatefulSet
	if set == nil {
		return nil, errors.New("statefulset: no statefulset")
	}
	if set.Spec.Replicas == nil || set.Spec.UpdateStrategy.Type == "" || set.Spec.PodManagementPolicy == "" {
		return nil, fmt.Errorf("statefulset %s: not defaulted (spec.replicas, updateStrategy or podManagementPolicy missing)", set.Name)
	}
	if in.Old != nil && len(in.Pods) > 0 {
		return nil, fmt.Errorf("statefulset %s: give either an old statefulset or pods, not both", set.Name)
	}
	start := kernel.StartOr(in.Start)
	updateRev, err := RevisionName(set)
	if err != nil {
		return nil, err
	}
	w := &world{
		set:       set.DeepCopy(),
		clock:     kernel.NewClock(start),
		timing:    in.Timing,
		minReady:  time.Duration(set.Spec.MinReadySeconds) * time.Second,
		gate:      in.MaxUnavailableGate == nil || *in.MaxUnavailableGate,
		updateRev: updateRev,
		pods:      map[int]*pod{},
		plan:      &kernel.Plan{Kind: "StatefulSet", TargetRevision: updateRev},
	}
	switch {
	case in.Old != nil:
		if in.Old.Spec.Replicas == nil {
			return nil, fmt.Errorf("statefulset %s: old statefulset not defaulted (spec.replicas missing)", set.Name)
		}
		oldRev, err := RevisionName(in.Old)
		if err != nil {
			return nil, err
		}
		w.currentRev = oldRev
		first := getStartOrdinal(in.Old)
		readyAt := kernel.At(start.Add(-time.Hour))
		for ord := first; ord < first+int(*in.Old.Spec.Replicas); ord++ {
			w.pods[ord] = &pod{ordinal: ord, name: getPodName(set, ord), revision: oldRev, created: true, readyAt: readyAt, availableAt: readyAt}
		}
	case len(in.Pods) > 0:
		if err := w.addPods(in.Pods, in.CurrentRevision); err != nil {
			return nil, err
		}
	default:
		w.currentRev = updateRev
	}
	w.failNew = in.Timing.FailNew && w.currentRev != w.updateRev
	w.startReplicas = int32(len(w.pods))
	w.revisionOrder = w.orderRevisions()
	w.plan.Header = w.header()
	w.plan.Summary.MinAvailable = w.countAvailable()
	w.plan.Summary.PeakPods = int32(len(w.pods))
	return w, nil
}

// addPods builds the starting state from live or dumped pods.
func (w *world) addPods(pods []*v1.Pod, currentRevision string) error {
	counts := map[string]int{}
	for i, p := range pods {
		m := statefulPodRegex.FindStringSubmatch(p.Name)
		if m == nil || m[1] != w.set.Name {
			return fmt.Errorf("statefulset %s: pod %d (%s): not a pod of this statefulset", w.set.Name, i, p.Name)
		}
		ord, err := strconv.Atoi(m[2])
		if err != nil {
			return fmt.Errorf("statefulset %s: pod %s: ordinal: %w", w.set.Name, p.Name, err)
		}
		if _, dup := w.pods[ord]; dup {
			return fmt.Errorf("statefulset %s: pod %s given twice", w.set.Name, p.Name)
		}
		rev := p.Labels[apps.StatefulSetRevisionLabel]
		sp := &pod{ordinal: ord, name: p.Name, revision: rev, created: true}
		switch {
		case p.DeletionTimestamp != nil:
			sp.deleted, sp.goneAt = true, w.clock.Start().Add(w.timing.TerminateAfter)
		case p.Status.Phase == v1.PodFailed || p.Status.Phase == v1.PodSucceeded:
			sp.failed = true
		case p.Status.Phase == v1.PodRunning && podutil.IsPodReady(p):
			readyAt := w.clock.Start()
			if c := podutil.GetPodReadyCondition(p.Status); c != nil && !c.LastTransitionTime.IsZero() && c.LastTransitionTime.Time.Before(readyAt.Time) {
				readyAt = kernel.At(c.LastTransitionTime.Time)
			}
			sp.readyAt, sp.availableAt = readyAt, kernel.AvailableAt(readyAt, w.minReady)
		default:
			sp.readyAt = w.clock.Start().Add(w.timing.ReadyAfter)
			sp.availableAt = kernel.AvailableAt(sp.readyAt, w.minReady)
			sp.neverReady = w.timing.FailNew && rev == w.updateRev
		}
		w.pods[ord] = sp
		if rev != w.updateRev {
			counts[rev]++
		}
	}
	w.currentRev = currentRevision
	if w.currentRev == "" {
		w.currentRev = w.updateRev
		best := 0
		for _, rev := range sortedKeys(counts) {
			if counts[rev] > best {
				w.currentRev, best = rev, counts[rev]
			}
		}
	}
	return nil
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// orderRevisions lists the revisions for Step.Revisions: current first, update last, any
// other revision a starting pod carries in between, by name.
func (w *world) orderRevisions() []string {
	seen := map[string]bool{w.currentRev: true, w.updateRev: true}
	others := []string{}
	for _, p := range w.pods {
		if !seen[p.revision] {
			seen[p.revision] = true
			others = append(others, p.revision)
		}
	}
	sort.Strings(others)
	order := append([]string{w.currentRev}, others...)
	if w.updateRev != w.currentRev {
		order = append(order, w.updateRev)
	}
	return order
}

// ordinals lists the existing pods' ordinals in ascending order.
func (w *world) ordinals() []int {
	ords := make([]int, 0, len(w.pods))
	for ord := range w.pods {
		ords = append(ords, ord)
	}
	sort.Ints(ords)
	return ords
}

// Settle runs the controller at the current instant until it has nothing left to do, as pod
// events would requeue it, then applies completeRollingUpdate and checks completion.
func (w *world) Settle() error {
	if err := kernel.UntilFixedPoint("statefulset "+w.set.Name, w.clock.Elapsed(), func() (bool, error) { return w.updateStatefulSet(), nil }); err != nil {
		return err
	}
	w.completeRollingUpdate()
	w.observe()
	if done := w.complete(); done && !w.done {
		w.completedAt = w.clock.Elapsed()
		w.done = true
	}
	return nil
}

// complete reports whether the controller has nothing left to do: every ordinal exists,
// available and not terminating, nothing condemned, and every pod from the partition up (all
// pods under OnDelete) at the update revision.
func (w *world) complete() bool {
	replicas := int(*w.set.Spec.Replicas)
	first := getStartOrdinal(w.set)
	if len(w.pods) != replicas {
		return false
	}
	for ord := first; ord < first+replicas; ord++ {
		p, ok := w.pods[ord]
		if !ok || p.deleted || !p.available(w.clock.Now()) {
			return false
		}
		if ord-first >= w.partition() && p.revision != w.updateRev {
			return false
		}
	}
	return true
}

// record appends a step with the sizes after the action.
func (w *world) record(reason, message string) {
	w.seq++
	at := w.clock.Elapsed()
	w.lastActionAt = at
	step := kernel.Step{At: at, Seq: w.seq, Reason: reason, Message: message}
	step.SetRevisions(w.sizes())
	w.plan.Steps = append(w.plan.Steps, step)
	w.observe()
}

func (w *world) sizes() []kernel.RevisionSize {
	sizes := make([]kernel.RevisionSize, 0, len(w.revisionOrder))
	for _, rev := range w.revisionOrder {
		s := kernel.RevisionSize{Name: rev}
		for _, p := range w.pods {
			if p.revision != rev || !p.created {
				continue
			}
			s.Pods++
			if !p.deleted {
				s.Replicas++
			} else {
				s.Terminating++
			}
			if p.runningAndReady(w.clock.Now()) {
				s.Ready++
			}
			if p.available(w.clock.Now()) && !p.deleted {
				s.Available++
			}
		}
		sizes = append(sizes, s)
	}
	return sizes
}

func (w *world) countAvailable() int32 {
	n := int32(0)
	for _, p := range w.pods {
		if p.available(w.clock.Now()) && !p.deleted {
			n++
		}
	}
	return n
}

func (w *world) observe() {
	w.plan.Summary.Observe(int32(len(w.pods)), w.countAvailable())
}

// NextEventTime is the earliest future readiness, availability or disappearance.
func (w *world) NextEventTime() (kernel.Instant, bool) {
	e := kernel.NewEarliest(w.clock.Now())
	for _, p := range w.pods {
		switch {
		case p.deleted:
			// Due now or later: advance removes it at that instant.
			e.Consider(p.goneAt)
		case p.created && !p.failed && !p.neverReady:
			e.ConsiderAfter(p.readyAt)
			e.ConsiderAfter(p.availableAt)
		}
	}
	return e.Result()
}

// advance removes pods whose termination has finished.
func (w *world) advance() {
	for ord, p := range w.pods {
		if p.deleted && !p.goneAt.After(w.clock.Now()) {
			delete(w.pods, ord)
		}
	}
	w.observe()
}
