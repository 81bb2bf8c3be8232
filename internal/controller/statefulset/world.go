package statefulset

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

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
		first := startOrdinal(in.Old)
		readyAt := kernel.At(start.Add(-time.Hour))
		for ord := first; ord < first+int(*in.Old.Spec.Replicas); ord++ {
			w.pods[ord] = &pod{ordinal: ord, name: podName(set, ord), revision: oldRev, created: true, readyAt: readyAt, availableAt: readyAt}
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

// statefulPodRegex mirrors the controller's: a pod name is the parent's name, a dash, and the
// ordinal.
var statefulPodRegex = regexp.MustCompile("(.*)-([0-9]+)$")

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

func startOrdinal(set *apps.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

func podName(set *apps.StatefulSet, ordinal int) string {
	return fmt.Sprintf("%s-%d", set.Name, ordinal)
}

func (w *world) partition() int {
	if w.set.Spec.UpdateStrategy.Type == apps.RollingUpdateStatefulSetStrategyType && w.set.Spec.UpdateStrategy.RollingUpdate != nil &&
		w.set.Spec.UpdateStrategy.RollingUpdate.Partition != nil {
		return int(*w.set.Spec.UpdateStrategy.RollingUpdate.Partition)
	}
	return 0
}

// versionFor mirrors newVersionedStatefulSetPod: under RollingUpdate a missing ordinal below
// start+partition is recreated at the current revision, every other one at the update
// revision (OnDelete included).
func (w *world) versionFor(ordinal int) string {
	ru := w.set.Spec.UpdateStrategy.RollingUpdate
	if w.set.Spec.UpdateStrategy.Type == apps.RollingUpdateStatefulSetStrategyType && ru != nil && ru.Partition != nil &&
		ordinal < startOrdinal(w.set)+int(*ru.Partition) {
		return w.currentRev
	}
	return w.updateRev
}

// create starts a pod: created by this sync's creations, Ready Timing.ReadyAfter later (plus
// its draw from the ready spread), available minReadySeconds after that.
func (w *world) create(p *pod) {
	p.created = true
	p.readyAt = w.calls.Create().Add(w.timing.ReadyAfter + w.timing.Spread.Draw())
	p.availableAt = kernel.AvailableAt(p.readyAt, w.minReady)
	p.neverReady = w.failNew && p.revision == w.updateRev
	w.created++
	w.batching.Saw(w.created, w.clock.Elapsed())
	w.pods[p.ordinal] = p
	w.record(ReasonSuccessfulCreate, fmt.Sprintf("Create Pod %s in StatefulSet %s successful", p.name, w.set.Name))
}

// remove deletes a pod: it terminates for Timing.TerminateAfter, then it is gone.
func (w *world) remove(p *pod) {
	p.deleted = true
	p.goneAt = w.calls.Delete().Add(w.timing.TerminateAfter)
	w.deleted++
	w.batching.Saw(w.deleted, w.clock.Elapsed())
	w.record(ReasonSuccessfulDelete, fmt.Sprintf("Delete Pod %s in StatefulSet %s successful", p.name, w.set.Name))
}

func (w *world) block(format string, args ...interface{}) {
	w.blocked = fmt.Sprintf(format, args...)
}

// sync mirrors one pass of updateStatefulSet (stateful_set_control.go) over the simulated pods
// and reports whether it created or deleted any. The steps, in the controller's order:
//  1. split pods into replicas (ordinals in [start, start+replicas)) and condemned (the rest,
//     highest ordinal first); a missing ordinal gets a placeholder at the revision
//     newVersionedStatefulSetPod would give it;
//  2. processReplica for each replica (runForAll): OrderedReady creates one pod and returns, and
//     blocks on any pod that is terminating, not Running and Ready, or not available; Parallel
//     creates every missing pod at once;
//  3. processCondemned, highest ordinal first (runForAll): OrderedReady deletes one pod per pass
//     and only while every replica is healthy (scaling before updates);
//  4. OnDelete stops here; RollingUpdate deletes old-revision pods, highest ordinal first, down
//     to the partition, one at a time (gate off) or up to maxUnavailable (gate on).
func (w *world) sync() bool {
	set := w.set
	w.calls = w.clock.NewSync()
	w.created, w.deleted = 0, 0
	// What blocks the rollout is what blocked the last sync: a pod the controller waited for
	// at 2s and that is Ready at 4s blocks nothing any more.
	w.blocked = ""
	if set.Spec.UpdateStrategy.Type == apps.RecreateStatefulSetStrategyType {
		// StatefulSetRecreateStrategy is alpha and off in v1.37: updateStatefulSet records
		// UnknownStrategy and returns before touching any pod, scaling included.
		w.block("updateStrategy Recreate needs the StatefulSetRecreateStrategy feature gate (alpha, off by default in v1.37); the controller records UnknownStrategy and does nothing")
		return false
	}
	replicaCount := int(*set.Spec.Replicas)
	first := startOrdinal(set)
	replicas := make([]*pod, replicaCount)
	var condemned []*pod
	for _, ord := range w.ordinals() {
		p := w.pods[ord]
		if ord >= first && ord < first+replicaCount {
			replicas[ord-first] = p
		} else {
			condemned = append(condemned, p)
		}
	}
	for i := range replicas {
		if replicas[i] == nil {
			ord := first + i
			replicas[i] = &pod{ordinal: ord, name: podName(set, ord), revision: w.versionFor(ord)}
		}
	}
	sort.Slice(condemned, func(i, j int) bool { return condemned[i].ordinal > condemned[j].ordinal })
	var firstUnavailable *pod
	for _, p := range replicas {
		if p.unavailable(w.clock.Now()) && firstUnavailable == nil {
			firstUnavailable = p
		}
	}
	for i := len(condemned) - 1; i >= 0; i-- {
		if condemned[i].unavailable(w.clock.Now()) && firstUnavailable == nil {
			firstUnavailable = condemned[i]
		}
	}
	monotonic := set.Spec.PodManagementPolicy != apps.ParallelPodManagement
	exit, acted := runForAll(replicas, func(p *pod) (bool, bool) { return w.processReplica(p, monotonic) }, monotonic)
	if exit {
		return acted
	}
	exit, actedCondemned := runForAll(condemned, func(p *pod) (bool, bool) { return w.processCondemned(p, firstUnavailable, monotonic) }, monotonic)
	acted = acted || actedCondemned
	if exit {
		return acted
	}

	if set.Spec.UpdateStrategy.Type != apps.RollingUpdateStatefulSetStrategyType {
		return acted
	}
	if w.gate {
		return w.updateAfterInvariantEstablished(replicas) || acted
	}
	// Gate off: delete the highest-ordinal pod not at the update revision, then wait for it.
	for target := len(replicas) - 1; target >= w.partition(); target-- {
		p := replicas[target]
		if p.revision != w.updateRev && !p.deleted {
			w.remove(p)
			return true
		}
		if p.unavailable(w.clock.Now()) {
			w.noteWaiting(p)
			return acted
		}
	}
	return acted
}

// runForAll mirrors runForAll (stateful_set_control.go): OrderedReady runs fn over the pods
// in order and stops at the first that says to exit; Parallel runs it over all of them (upstream
// in slow-start batches of goroutines, whose calls are one batch here). It returns whether to
// exit the sync and whether any pod was created or deleted.
func runForAll(pods []*pod, fn func(*pod) (exit, acted bool), monotonic bool) (bool, bool) {
	actedAny := false
	for _, p := range pods {
		exit, acted := fn(p)
		actedAny = actedAny || acted
		if exit && monotonic {
			return true, actedAny
		}
	}
	return false, actedAny
}

// processReplica mirrors processReplica (stateful_set_control.go) for one replica: a failed pod
// is deleted (and recreated once gone); a missing one is created, and OrderedReady then exits
// the sync; OrderedReady also exits on a pod that is terminating, not Running and Ready, or not
// available (minReadySeconds), which is where a rollout waits.
func (w *world) processReplica(p *pod, monotonic bool) (exit, acted bool) {
	if p.failed {
		if !p.deleted {
			w.remove(p)
			acted = true
		}
		return monotonic, acted
	}
	if !p.created {
		w.create(p)
		if monotonic {
			return true, true
		}
		acted = true
	}
	if !monotonic {
		return false, acted
	}
	switch {
	case p.deleted:
		w.block("waiting for pod %s to terminate", p.name)
		return true, acted
	case !p.runningAndReady(w.clock.Now()):
		w.block("waiting for pod %s to be Running and Ready", p.name)
		if p.neverReady {
			w.stuckPod = p.name
		}
		return true, acted
	case !p.available(w.clock.Now()):
		w.block("waiting for pod %s to be available (minReadySeconds %d)", p.name, w.set.Spec.MinReadySeconds)
		return true, acted
	}
	return false, acted
}

// processCondemned mirrors processCondemned (stateful_set_control.go) for one pod beyond the
// replicas, highest ordinal first: OrderedReady waits for a terminating pod, and deletes only
// while every pod is healthy (firstUnavailable being this pod itself or none), one per sync;
// Parallel deletes them all at once.
func (w *world) processCondemned(p *pod, firstUnavailable *pod, monotonic bool) (exit, acted bool) {
	if p.deleted {
		if monotonic {
			w.block("waiting for pod %s to terminate before scaling down", p.name)
			return true, false
		}
		return false, false
	}
	if monotonic && p != firstUnavailable && !p.available(w.clock.Now()) {
		w.block("waiting for pod %s to be Running and available before scaling down", firstUnavailable.name)
		return true, false
	}
	w.remove(p)
	return monotonic, true
}

func (w *world) noteWaiting(p *pod) {
	w.block("waiting for pod %s to update", p.name)
	if p.neverReady {
		w.stuckPod = p.name
	}
}

// maxUnavailable mirrors getStatefulSetMaxUnavailable: the field (default 1) scaled against
// replicas rounding down, at least 1. An invalid value resolves to 1.
//
// Example: "25%" of 5 replicas is 1.25 → 1; "10%" of 5 is 0.5 → 0 → 1.
func maxUnavailable(set *apps.StatefulSet) int {
	ru := set.Spec.UpdateStrategy.RollingUpdate
	if ru == nil {
		return 1
	}
	n, _, err := scaleMaxUnavailable(ru.MaxUnavailable, int(*set.Spec.Replicas))
	if err != nil {
		return 1
	}
	return n
}

// updateAfterInvariantEstablished mirrors updateStatefulSetAfterInvariantEstablished (v1.37,
// MaxUnavailableStatefulSet on): count unavailable replicas (all ordinals, below the partition
// too); stop when the budget is used and, for Parallel, no old unavailable pod waits; Parallel
// then deletes in two phases (old pods that are already unavailable, then available old pods
// up to the remaining budget), OrderedReady in one pass of maxUnavailable − unavailable pods,
// highest ordinal first, down to the partition.
//
// Example (upstream TestStatefulSetControlRollingUpdateWithMaxUnavailable): Parallel, 6
// replicas, partition 3, maxUnavailable 2: pods 5 and 4 are deleted together; once 4 is back
// and available while 5 is not, pod 3 is deleted.
func (w *world) updateAfterInvariantEstablished(replicas []*pod) bool {
	maxUnavail := maxUnavailable(w.set)
	parallel := w.set.Spec.PodManagementPolicy == apps.ParallelPodManagement
	unavailablePods, needingUpdate := 0, 0
	for _, p := range replicas {
		if p.unavailable(w.clock.Now()) {
			unavailablePods++
			if parallel && p.revision != w.updateRev && !p.deleted {
				needingUpdate++
			}
		}
	}
	if unavailablePods >= maxUnavail && needingUpdate == 0 {
		for target := len(replicas) - 1; target >= w.partition(); target-- {
			if p := replicas[target]; p.unavailable(w.clock.Now()) {
				w.noteWaiting(p)
				break
			}
		}
		return false
	}
	acted := false
	updateMin := w.partition()
	if parallel {
		for target := len(replicas) - 1; target >= updateMin; target-- {
			p := replicas[target]
			if p.revision != w.updateRev && !p.available(w.clock.Now()) && !p.deleted {
				w.remove(p)
				acted = true
			}
		}
		budget := maxUnavail - unavailablePods
		for target := len(replicas) - 1; target >= updateMin && budget > 0; target-- {
			p := replicas[target]
			if p.revision != w.updateRev && !p.unavailable(w.clock.Now()) {
				w.remove(p)
				acted = true
				budget--
			}
		}
		return acted
	}
	toDelete := maxUnavail - unavailablePods
	for target := len(replicas) - 1; target >= updateMin && toDelete > 0; target-- {
		p := replicas[target]
		if p.revision != w.updateRev && !p.deleted {
			w.remove(p)
			acted = true
			toDelete--
		}
	}
	return acted
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
// events would requeue it, then applies completeUpdate and checks completion.
func (w *world) Settle() error {
	if err := kernel.UntilFixedPoint("statefulset "+w.set.Name, w.clock.Elapsed(), func() (bool, error) { return w.sync(), nil }); err != nil {
		return err
	}
	w.completeUpdate()
	w.observe()
	if done := w.complete(); done && !w.done {
		w.completedAt = w.clock.Elapsed()
		w.done = true
	}
	return nil
}

// completeUpdate mirrors completeUpdate in stateful_set_utils.go: once replicas pods exist, all
// updated and ready, status.currentRevision becomes the update revision.
func (w *world) completeUpdate() {
	replicas := int(*w.set.Spec.Replicas)
	created, updated, ready := 0, 0, 0
	for _, p := range w.pods {
		if !p.created {
			continue
		}
		created++
		if !p.deleted && p.revision == w.updateRev {
			updated++
		}
		if p.runningAndReady(w.clock.Now()) {
			ready++
		}
	}
	if created == replicas && updated == replicas && ready == replicas {
		w.currentRev = w.updateRev
	}
}

// complete reports whether the controller has nothing left to do: every ordinal exists,
// available and not terminating, nothing condemned, and every pod from the partition up (all
// pods under OnDelete) at the update revision.
func (w *world) complete() bool {
	replicas := int(*w.set.Spec.Replicas)
	first := startOrdinal(w.set)
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
	step.Revisions = w.sizes()
	for _, s := range step.Revisions {
		step.Pods += s.Pods
		step.Available += s.Available
	}
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
	s := &w.plan.Summary
	s.PeakPods = max(s.PeakPods, int32(len(w.pods)))
	s.MinAvailable = min(s.MinAvailable, w.countAvailable())
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
