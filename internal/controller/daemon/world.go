package daemon

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	"k8s.io/kubernetes/pkg/controller"
	daemonutil "k8s.io/kubernetes/pkg/controller/daemon/util"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/replicaset"
)

// Event reasons of the DaemonSet controller's pod control (pkg/controller/controller_utils.go):
// it records one event per pod, "Created pod: NAME" and "Deleted pod: NAME". Pod names are
// generated, so a plan step stands for a wave: every pod the controller creates (or deletes)
// in one sync is one step with the same reason and a message such as
// "Deleted 2 old pods (2 nodes at a time)".
const (
	ReasonSuccessfulCreate = controller.SuccessfulCreatePodReason
	ReasonSuccessfulDelete = controller.SuccessfulDeletePodReason
)

// Notes the plan can carry.
const (
	// NoteNodeOrder explains why the plan names counts, not nodes.
	NoteNodeOrder = "The controller walks nodes in Go map order, which is random: the plan says how many nodes " +
		"change at a time, not which."
	// NoteSurgeIgnoresUnavailable explains that maxSurge wins.
	NoteSurgeIgnoresUnavailable = "maxSurge > 0: the controller ignores maxUnavailable and starts each new pod " +
		"beside the old one, deleting the old pod once the new one is available. (The API server refuses a " +
		"non-zero maxUnavailable beside maxSurge, so the two meet only in objects stored before that check.)"
	// NoteHostPortSurge names the hostPort-with-surge deadlock.
	NoteHostPortSurge = "Deadlock: the pod template uses a hostPort and maxSurge > 0. The new pod cannot be " +
		"scheduled on a node while the old pod holds the port, and the old pod is deleted only once the new one " +
		"is available, so the rollout never progresses. Use maxSurge 0 (and maxUnavailable ≥ 1) with hostPort."
	// NoteOnDelete explains OnDelete.
	NoteOnDelete = "OnDelete: nothing changes until pods are deleted; each deleted old pod is recreated at the new revision."
)

// Input is what Simulate needs. DaemonSet is the desired state, defaulted as the API server
// stores it. Nodes are the cluster's nodes (live, from ParseNodes, or SyntheticNodes). The
// starting state is either Old (the previous version, fully rolled out: one available pod on
// every node it should run on) or Pods (live or dumped pods, each bound to a node by
// spec.nodeName or node affinity and labelled with controller-revision-hash); with neither,
// the DaemonSet starts from nothing.
type Input struct {
	DaemonSet *apps.DaemonSet
	Old       *apps.DaemonSet
	Pods      []*v1.Pod
	Nodes     []*v1.Node
	// Timing: ReadyAfter, TerminateAfter; FailNew keeps pods of the new revision from ever
	// becoming Ready.
	Timing    kernel.Timing
	Start     time.Time
	MaxEvents int
}

type pod struct {
	name        string
	hash        string
	created     kernel.Instant
	neverReady  bool
	readyAt     kernel.Instant
	availableAt kernel.Instant
	deleted     bool
	goneAt      kernel.Instant
}

func (p *pod) ready(now kernel.Instant) bool {
	return !p.deleted && !p.neverReady && !now.Before(p.readyAt)
}

// available mirrors podutil.IsPodAvailable with the DaemonSet's minReadySeconds.
func (p *pod) available(now kernel.Instant) bool {
	return p.ready(now) && !now.Before(p.availableAt)
}

type node struct {
	node           *v1.Node
	shouldRun      bool
	shouldContinue bool
	ready          bool
	pods           []*pod
}

type world struct {
	ds          *apps.DaemonSet
	clock       *kernel.Clock
	calls       *kernel.SyncCalls
	timing      kernel.Timing
	minReady    time.Duration
	hash        string
	oldHashes   []string
	nodes       []*node // by name
	plan        *kernel.Plan
	seq         int
	podSeq      int
	done        bool
	completedAt time.Duration
	hostPort    bool
	surge       int
	unavailable int
	desired     int
	deadlocked  bool
	blocked     string
	// last is the plan's last step as a wave, which actions of the same kind join.
	last *lastWave
	// batching records the first sync that created or deleted pods on several nodes, which a
	// real cluster may see change one by one.
	batching kernel.Batching
}

// RevisionHash is the hash the DaemonSet controller gives ds's template (snapshot in
// pkg/controller/daemon/update.go): controller.ComputeHash over the template and
// status.collisionCount. Its pods carry it in the controller-revision-hash label and its
// ControllerRevision is named "<ds>-<hash>".
func RevisionHash(ds *apps.DaemonSet) string {
	return controller.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
}

// Simulate predicts how the DaemonSet controller takes in.DaemonSet from the starting state to
// the desired state over in.Nodes, and returns the plan. Steps are waves (see
// ReasonSuccessfulCreate); Step.Revisions holds one entry per revision, named
// "<ds>-<hash>", old first, with Replicas = its pods that are not terminating, Pods = all its
// pods, Available = its available pods.
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
	ds := in.DaemonSet
	if ds == nil {
		return nil, errors.New("daemonset: no daemonset")
	}
	if ds.Spec.UpdateStrategy.Type == "" {
		return nil, fmt.Errorf("daemonset %s: not defaulted (updateStrategy missing)", ds.Name)
	}
	if in.Old != nil && len(in.Pods) > 0 {
		return nil, fmt.Errorf("daemonset %s: give either an old daemonset or pods, not both", ds.Name)
	}
	start := kernel.StartOr(in.Start)
	w := &world{
		ds:       ds.DeepCopy(),
		clock:    kernel.NewClock(start),
		timing:   in.Timing,
		minReady: time.Duration(ds.Spec.MinReadySeconds) * time.Second,
		hash:     RevisionHash(ds),
		hostPort: usesHostPort(&ds.Spec.Template.Spec),
		plan:     &kernel.Plan{Kind: "DaemonSet"},
	}
	w.plan.TargetRevision = w.revisionName(w.hash)
	byName := map[string]*node{}
	elig := Eligible(ds, in.Nodes)
	nodesByName := map[string]*v1.Node{}
	for _, n := range in.Nodes {
		nodesByName[n.Name] = n
	}
	for _, e := range elig {
		n := &node{node: nodesByName[e.Node], shouldRun: e.ShouldRun, shouldContinue: e.ShouldContinueRunning, ready: nodeReady(nodesByName[e.Node])}
		w.nodes = append(w.nodes, n)
		byName[e.Node] = n
		if e.ShouldRun {
			w.desired++
		}
	}
	surge, err := daemonutil.SurgeCount(ds, w.desired)
	if err != nil {
		return nil, fmt.Errorf("daemonset %s: maxSurge: %w", ds.Name, err)
	}
	unavailable, err := daemonutil.UnavailableCount(ds, w.desired)
	if err != nil {
		return nil, fmt.Errorf("daemonset %s: maxUnavailable: %w", ds.Name, err)
	}
	if w.desired > 0 && surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	w.surge, w.unavailable = surge, unavailable

	oldHashCount := map[string]int{}
	switch {
	case in.Old != nil:
		oldHash := RevisionHash(in.Old)
		since := kernel.At(start.Add(-time.Hour))
		for _, e := range Eligible(in.Old, in.Nodes) {
			if !e.ShouldRun {
				continue
			}
			n := byName[e.Node]
			n.pods = append(n.pods, &pod{name: w.podName(), hash: oldHash, created: since, readyAt: since, availableAt: since})
		}
		if oldHash != w.hash {
			oldHashCount[oldHash]++
		}
	case len(in.Pods) > 0:
		generation, _ := daemonutil.GetTemplateGeneration(ds)
		for i, p := range in.Pods {
			nodeName, err := daemonutil.GetTargetNodeName(p)
			if err != nil {
				return nil, fmt.Errorf("daemonset %s: pod %d (%s): %w", ds.Name, i, p.Name, err)
			}
			n, ok := byName[nodeName]
			if !ok {
				return nil, fmt.Errorf("daemonset %s: pod %s: node %s is not among the nodes", ds.Name, p.Name, nodeName)
			}
			hash := p.Labels[apps.DefaultDaemonSetUniqueLabelKey]
			if daemonutil.IsPodUpdated(p, w.hash, generation) {
				hash = w.hash
			} else {
				oldHashCount[hash]++
			}
			sp := &pod{name: p.Name, hash: hash, created: kernel.At(p.CreationTimestamp.Time)}
			switch {
			case p.DeletionTimestamp != nil:
				sp.deleted, sp.goneAt = true, kernel.At(start).Add(in.Timing.TerminateAfter)
			case p.Status.Phase == v1.PodRunning && podutil.IsPodReady(p):
				readyAt := kernel.At(start)
				if c := podutil.GetPodReadyCondition(p.Status); c != nil && !c.LastTransitionTime.IsZero() && c.LastTransitionTime.Time.Before(start) {
					readyAt = kernel.At(c.LastTransitionTime.Time)
				}
				sp.readyAt, sp.availableAt = readyAt, kernel.AvailableAt(readyAt, w.minReady)
			default:
				sp.readyAt = kernel.At(start).Add(in.Timing.ReadyAfter)
				sp.availableAt = kernel.AvailableAt(sp.readyAt, w.minReady)
				sp.neverReady = (in.Timing.FailNew && hash == w.hash) || !n.ready
			}
			n.pods = append(n.pods, sp)
		}
	}
	for h := range oldHashCount {
		w.oldHashes = append(w.oldHashes, h)
	}
	sort.Slice(w.oldHashes, func(i, j int) bool {
		if oldHashCount[w.oldHashes[i]] != oldHashCount[w.oldHashes[j]] {
			return oldHashCount[w.oldHashes[i]] > oldHashCount[w.oldHashes[j]]
		}
		return w.oldHashes[i] < w.oldHashes[j]
	})
	w.plan.Header = w.header(elig)
	w.plan.Summary.MinAvailable = w.countAvailable()
	w.plan.Summary.PeakPods = w.countPods()
	return w, nil
}

func (w *world) revisionName(hash string) string {
	return w.ds.Name + "-" + hash
}

func (w *world) podName() string {
	w.podSeq++
	return fmt.Sprintf("%s-%d", w.ds.Name, w.podSeq)
}

func nodeReady(n *v1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

func usesHostPort(spec *v1.PodSpec) bool {
	for _, cs := range [][]v1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			for _, p := range c.Ports {
				if p.HostPort != 0 {
					return true
				}
			}
		}
	}
	return false
}

// wave collects one sync's pod actions for a single step.
type wave struct {
	created, deleted       int
	createdNew, deletedOld int
	ineligible             int
}

// create creates n's new pod. syncNodes issues a sync's creations in slow-start batches of 1,
// 2, 4, … (slowStartBatch), each after the one before returns, so the pods of different batches
// turn Ready at different instants, the controller syncing in between: with maxSurge 2, the
// first of two new pods is Ready alone, and its old pod is deleted before the second is Ready,
// as the real controller most often did (16 of 20 runs of 3 nodes at maxSurge 50%, kwok, issue
// 35).
func (w *world) create(n *node, wv *wave) {
	created := replicaset.CreateNth(w.calls, wv.created)
	p := &pod{name: w.podName(), hash: w.hash, created: created, readyAt: created.Add(w.timing.ReadyAfter + w.timing.Spread.Draw())}
	p.availableAt = kernel.AvailableAt(p.readyAt, w.minReady)
	p.neverReady = w.timing.FailNew && len(w.oldHashes) > 0 || !n.ready
	if w.hostPort && w.surge > 0 && w.hasLiveOldPod(n) {
		// The scheduler's NodePorts filter rejects the new pod while the old one holds the port.
		p.neverReady = true
		w.deadlocked = true
	}
	n.pods = append(n.pods, p)
	wv.created++
	wv.createdNew++
}

func (w *world) hasLiveOldPod(n *node) bool {
	for _, p := range n.pods {
		if !p.deleted && p.hash != w.hash {
			return true
		}
	}
	return false
}

func (w *world) remove(n *node, p *pod, wv *wave) {
	if p.deleted {
		return
	}
	p.deleted = true
	p.goneAt = w.calls.Delete().Add(w.timing.TerminateAfter)
	wv.deleted++
	if p.hash != w.hash {
		wv.deletedOld++
	}
	if !n.shouldContinue {
		wv.ineligible++
	}
}

// manage mirrors manage and podsShouldBeOnNode (daemon_controller.go): a node that should run
// the DaemonSet and has no pod (terminating ones included) gets one; surplus running pods are
// deleted (without surge all but the oldest; with surge the old pod once the new one is
// available, or at once if the old one is not Ready); pods on nodes that should not keep running
// it are deleted.
func (w *world) manage(wv *wave) {
	surgeAllowed := daemonutil.AllowsSurge(w.ds)
	for _, n := range w.nodes {
		exists := len(n.pods) > 0
		switch {
		case n.shouldRun && !exists:
			w.create(n, wv)
		case n.shouldContinue:
			var running []*pod
			for _, p := range n.pods {
				if !p.deleted {
					running = append(running, p)
				}
			}
			sort.SliceStable(running, func(i, j int) bool { return running[i].created.Before(running[j].created) })
			if !surgeAllowed {
				for _, p := range running[min(1, len(running)):] {
					w.remove(n, p, wv)
				}
				continue
			}
			if len(running) == 0 && n.shouldRun {
				w.create(n, wv)
				continue
			}
			var oldestNew, oldestOld *pod
			for _, p := range running {
				switch {
				case p.hash == w.hash && oldestNew == nil:
					oldestNew = p
				case p.hash != w.hash && oldestOld == nil:
					oldestOld = p
				default:
					w.remove(n, p, wv)
				}
			}
			if oldestNew != nil && oldestOld != nil && (!oldestOld.ready(w.clock.Now()) || oldestNew.available(w.clock.Now())) {
				w.remove(n, oldestOld, wv)
			}
		case exists:
			for _, p := range n.pods {
				w.remove(n, p, wv)
			}
		}
	}
}

// podsOnNode mirrors findUpdatedPodsOnNode: the node's one new and one old pod, ignoring
// deleted pods; ok is false when there are several of either.
func (w *world) podsOnNode(n *node) (newPod, oldPod *pod, ok bool) {
	for _, p := range n.pods {
		if p.deleted {
			continue
		}
		if p.hash == w.hash {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}

// rollingUpdate mirrors rollingUpdate (pkg/controller/daemon/update.go) over the nodes that
// should run the DaemonSet or have its pods.
//
// Without surge: every node with no pod, both pods, or an unavailable new pod counts as
// unavailable; an unavailable old pod is replaced regardless of the budget; then up to
// maxUnavailable − unavailable available old pods are deleted (the core loop recreates them
// once they are gone). Example: 5 nodes at maxUnavailable 25% → ⌈1.25⌉ = 2 old pods deleted per
// wave.
//
// With surge (maxUnavailable ignored): a node whose old pod is unavailable gets its new pod at
// once; up to maxSurge − (nodes with a new pod not yet available) more nodes get a new pod
// beside the old one; an old pod is deleted once the new pod on its node is available.
func (w *world) rollingUpdate(wv *wave) {
	if w.surge == 0 {
		numUnavailable := 0
		var allowed, candidates []*pod
		var allowedNodes, candidateNodes []*node
		for _, n := range w.nodes {
			if !n.shouldRun && len(n.pods) == 0 {
				continue
			}
			newPod, oldPod, ok := w.podsOnNode(n)
			if !ok {
				numUnavailable++
				continue
			}
			switch {
			case oldPod == nil && newPod == nil, oldPod != nil && newPod != nil:
				numUnavailable++
			case newPod != nil:
				if !newPod.available(w.clock.Now()) {
					numUnavailable++
				}
			default:
				switch {
				case !oldPod.available(w.clock.Now()):
					allowed = append(allowed, oldPod)
					allowedNodes = append(allowedNodes, n)
					numUnavailable++
				case numUnavailable >= w.unavailable:
				default:
					candidates = append(candidates, oldPod)
					candidateNodes = append(candidateNodes, n)
				}
			}
		}
		remaining := min(max(w.unavailable-numUnavailable, 0), len(candidates))
		for i, p := range allowed {
			w.remove(allowedNodes[i], p, wv)
		}
		for i, p := range candidates[:remaining] {
			w.remove(candidateNodes[i], p, wv)
		}
		if len(allowed)+remaining == 0 && numUnavailable > 0 {
			w.blocked = fmt.Sprintf("waiting: %d of %d nodes unavailable (maxUnavailable %d)", numUnavailable, w.desired, w.unavailable)
		}
		return
	}

	var oldToDelete []*pod
	var oldToDeleteNodes []*node
	var shouldNotRun []*pod
	var shouldNotRunNodes []*node
	var candidateNodes, allowedNodes []*node
	numSurge, numAvailable := 0, 0
	for _, n := range w.nodes {
		if !n.shouldRun && len(n.pods) == 0 {
			continue
		}
		newPod, oldPod, ok := w.podsOnNode(n)
		if !ok {
			numSurge++
			continue
		}
		if oldPod != nil {
			if oldPod.available(w.clock.Now()) {
				numAvailable++
			}
		} else if newPod != nil && newPod.available(w.clock.Now()) {
			numAvailable++
		}
		switch {
		case oldPod == nil:
		case newPod == nil:
			switch {
			case !oldPod.available(w.clock.Now()):
				if !n.shouldRun {
					oldToDelete = append(oldToDelete, oldPod)
					oldToDeleteNodes = append(oldToDeleteNodes, n)
					continue
				}
				allowedNodes = append(allowedNodes, n)
			default:
				if !n.shouldRun {
					shouldNotRun = append(shouldNotRun, oldPod)
					shouldNotRunNodes = append(shouldNotRunNodes, n)
					continue
				}
				if numSurge >= w.surge {
					continue
				}
				candidateNodes = append(candidateNodes, n)
			}
		default:
			if !newPod.available(w.clock.Now()) {
				numSurge++
				continue
			}
			oldToDelete = append(oldToDelete, oldPod)
			oldToDeleteNodes = append(oldToDeleteNodes, n)
		}
	}
	if deletable := numAvailable - w.desired; deletable > 0 {
		deletable = min(deletable, len(shouldNotRun))
		oldToDelete = append(oldToDelete, shouldNotRun[:deletable]...)
		oldToDeleteNodes = append(oldToDeleteNodes, shouldNotRunNodes[:deletable]...)
	}
	remaining := min(max(w.surge-numSurge, 0), len(candidateNodes))
	for i, p := range oldToDelete {
		w.remove(oldToDeleteNodes[i], p, wv)
	}
	for _, n := range append(allowedNodes, candidateNodes[:remaining]...) {
		w.create(n, wv)
	}
	if len(oldToDelete)+len(allowedNodes)+remaining == 0 && numSurge > 0 {
		w.blocked = fmt.Sprintf("waiting: %d new pods not yet available (maxSurge %d)", numSurge, w.surge)
	}
}

// sync is one syncDaemonSet: manage, then, once the controller's expectations are met (here:
// when manage did nothing, since the informer sees its actions at once), the rolling update.
func (w *world) sync() bool {
	wv := &wave{}
	w.calls = w.clock.NewSync()
	w.manage(wv)
	if wv.created+wv.deleted == 0 && w.ds.Spec.UpdateStrategy.Type == apps.RollingUpdateDaemonSetStrategyType {
		w.rollingUpdate(wv)
	}
	w.recordWave(wv)
	w.batching.Saw(max(wv.created, wv.deleted), w.clock.Elapsed())
	return wv.created+wv.deleted > 0
}

// recordWave records one sync's pod actions in the order syncNodes (daemon_controller.go)
// issues its calls: creations first, then deletions.
func (w *world) recordWave(wv *wave) {
	if wv.created > 0 {
		w.recordActions(ReasonSuccessfulCreate, wv.created, func(n int) string { return "new " + plural(n, "pod", "pods") })
	}
	if wv.deleted > 0 {
		what := func(n int) string { return "old " + plural(n, "pod", "pods") }
		switch {
		case wv.ineligible == wv.deleted:
			what = func(n int) string { return plural(n, "pod", "pods") + " from nodes that should not run the DaemonSet" }
		case wv.deletedOld != wv.deleted:
			what = func(n int) string { return plural(n, "pod", "pods") }
		}
		w.recordActions(ReasonSuccessfulDelete, wv.deleted, what)
	}
}

// lastWave is the plan's last step as a wave: the pod actions of one kind of consecutive syncs.
type lastWave struct {
	reason, kind string
	count        int
	// perSync is the most nodes changed at one time (syncs at the same wall-clock time, a
	// causal order apart, count together), current those at lastAt.
	perSync, current int
	lastAt           time.Duration
}

// recordActions records n pod actions of one kind (reason, and what(1) naming the pods) as a
// step. A step is a wave: the actions of one kind that follow one another with no action of
// another kind between, as a watch on the pods sees them; so actions of the same kind as the
// plan's last step join it. Its message says how many nodes changed at a time (and no time,
// so that --runs compares the waves); the step keeps its first sync's time and shows the state
// after the last.
//
// Example: with maxSurge 2 the second and third new pods turn Ready at different times, and
// their old pods are deleted by two syncs with nothing between: one step "Deleted 2 old pods
// (1 node at a time)".
func (w *world) recordActions(reason string, n int, what func(int) string) {
	kind := what(1)
	if l := w.last; l != nil && l.reason == reason && l.kind == kind && len(w.plan.Steps) > 0 {
		l.count += n
		if at := w.clock.Elapsed(); at == l.lastAt {
			l.current += n
		} else {
			l.current, l.lastAt = n, at
		}
		l.perSync = max(l.perSync, l.current)
		step := &w.plan.Steps[len(w.plan.Steps)-1]
		step.Message = fmt.Sprintf("%s %d %s (%s at a time)", verb(reason), l.count, what(l.count), nodesText(l.perSync))
		step.Revisions = w.sizes()
		step.Pods, step.Available = 0, 0
		for _, s := range step.Revisions {
			step.Pods += s.Pods
			step.Available += s.Available
		}
		w.observe()
		return
	}
	w.last = &lastWave{reason: reason, kind: kind, count: n, perSync: n, current: n, lastAt: w.clock.Elapsed()}
	w.record(reason, fmt.Sprintf("%s %d %s (%s at a time)", verb(reason), n, what(n), nodesText(n)))
}

func verb(reason string) string {
	if reason == ReasonSuccessfulCreate {
		return "Created"
	}
	return "Deleted"
}

func nodesText(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}

func (w *world) record(reason, message string) {
	w.seq++
	step := kernel.Step{At: w.clock.Elapsed(), Seq: w.seq, Reason: reason, Message: message, Revisions: w.sizes()}
	for _, s := range step.Revisions {
		step.Pods += s.Pods
		step.Available += s.Available
	}
	w.plan.Steps = append(w.plan.Steps, step)
	w.observe()
}

func (w *world) sizes() []kernel.RevisionSize {
	hashes := append(append([]string(nil), w.oldHashes...), w.hash)
	sizes := make([]kernel.RevisionSize, 0, len(hashes))
	for _, h := range hashes {
		s := kernel.RevisionSize{Name: w.revisionName(h)}
		for _, n := range w.nodes {
			for _, p := range n.pods {
				if p.hash != h {
					continue
				}
				s.Pods++
				if !p.deleted {
					s.Replicas++
				} else {
					s.Terminating++
				}
				if p.ready(w.clock.Now()) {
					s.Ready++
				}
				if p.available(w.clock.Now()) {
					s.Available++
				}
			}
		}
		sizes = append(sizes, s)
	}
	return sizes
}

func (w *world) countPods() int32 {
	n := int32(0)
	for _, nd := range w.nodes {
		n += int32(len(nd.pods))
	}
	return n
}

func (w *world) countAvailable() int32 {
	n := int32(0)
	for _, nd := range w.nodes {
		for _, p := range nd.pods {
			if p.available(w.clock.Now()) {
				n++
			}
		}
	}
	return n
}

func (w *world) observe() {
	s := &w.plan.Summary
	s.PeakPods = max(s.PeakPods, w.countPods())
	s.MinAvailable = min(s.MinAvailable, w.countAvailable())
}

// Settle runs the DaemonSet controller at the current instant until it has nothing left to do.
func (w *world) Settle() error {
	if err := kernel.UntilFixedPoint("daemonset "+w.ds.Name, w.clock.Elapsed(), func() (bool, error) { return w.sync(), nil }); err != nil {
		return err
	}
	w.observe()
	if done := w.complete(); done && !w.done {
		w.done, w.completedAt = true, w.clock.Elapsed()
	}
	return nil
}

// complete: every node that should run the DaemonSet has exactly one pod, available; no other
// pod exists; under RollingUpdate every pod is at the new revision.
func (w *world) complete() bool {
	for _, n := range w.nodes {
		if !n.shouldRun {
			if len(n.pods) > 0 {
				return false
			}
			continue
		}
		if len(n.pods) != 1 || !n.pods[0].available(w.clock.Now()) {
			return false
		}
		if n.pods[0].hash != w.hash {
			return false
		}
	}
	return true
}

// NextEventTime is the earliest future readiness, availability or disappearance of a pod.
func (w *world) NextEventTime() (kernel.Instant, bool) {
	e := kernel.NewEarliest(w.clock.Now())
	for _, n := range w.nodes {
		for _, p := range n.pods {
			switch {
			case p.deleted:
				e.Consider(p.goneAt)
			case !p.neverReady:
				e.ConsiderAfter(p.readyAt)
				e.ConsiderAfter(p.availableAt)
			}
		}
	}
	return e.Result()
}

func (w *world) advance() {
	for _, n := range w.nodes {
		kept := n.pods[:0]
		for _, p := range n.pods {
			if p.deleted && !p.goneAt.After(w.clock.Now()) {
				continue
			}
			kept = append(kept, p)
		}
		n.pods = kept
	}
	w.observe()
}

// Finish writes the summary and notes.
func (w *world) Finish() {
	s := &w.plan.Summary
	s.Completed = w.done
	if w.done {
		s.Duration = w.completedAt
	} else {
		s.Duration = w.clock.Elapsed()
		if s.StallReason == "" {
			s.StallReason = w.blocked
		}
	}
	notes := []string{NoteNodeOrder}
	if w.surge > 0 {
		notes = append(notes, NoteSurgeIgnoresUnavailable)
	}
	if w.hostPort && w.surge > 0 {
		notes = append(notes, NoteHostPortSurge)
		if w.deadlocked && !w.done {
			s.StallReason = "hostPort with maxSurge: new pods cannot be scheduled beside the old ones"
		}
	}
	if w.ds.Spec.UpdateStrategy.Type == apps.OnDeleteDaemonSetStrategyType {
		old := 0
		for _, n := range w.nodes {
			for _, p := range n.pods {
				if p.hash != w.hash && !p.deleted {
					old++
				}
			}
		}
		if old > 0 {
			notes = append(notes, fmt.Sprintf("%s %d old %s would be replaced.", NoteOnDelete, old, plural(old, "pod", "pods")))
			if s.StallReason == "" {
				s.StallReason = "OnDelete: pods keep their revision until they are deleted"
				s.WaitsForDeletion = true
			}
		}
	}
	notReady := []string{}
	for _, n := range w.nodes {
		if n.shouldRun && !n.ready {
			notReady = append(notReady, n.node.Name)
		}
	}
	if len(notReady) > 0 {
		notes = append(notes, fmt.Sprintf("Nodes not Ready (%s): their pods are assumed never to become Ready.", strings.Join(notReady, ", ")))
	}
	w.plan.Notes = notes
	w.batching.Note(w.plan, w.timing.Spread)
}
