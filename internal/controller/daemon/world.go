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
)

// The simulated cluster the DaemonSet controller (daemon_controller.go, update.go) acts on: the
// nodes and their pods, pods turning Ready and available and removed in simulated time, and the
// plan the controller's actions are recorded in.

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
		step.SetRevisions(w.sizes())
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
	step := kernel.Step{At: w.clock.Elapsed(), Seq: w.seq, Reason: reason, Message: message}
	step.SetRevisions(w.sizes())
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
	w.plan.Summary.Observe(w.countPods(), w.countAvailable())
}

// Settle runs the DaemonSet controller at the current instant until it has nothing left to do.
func (w *world) Settle() error {
	if err := kernel.UntilFixedPoint("daemonset "+w.ds.Name, w.clock.Elapsed(), func() (bool, error) { return w.syncDaemonSet(), nil }); err != nil {
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
	s.End(w.done, w.completedAt, w.clock.Elapsed(), w.blocked)
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
