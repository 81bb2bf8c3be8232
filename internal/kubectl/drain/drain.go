// Package drain predicts kubectl drain NODE... (k8s.io/kubectl/pkg/cmd/drain and pkg/drain,
// whose exported filters and messages it calls): drain.go is kubectl's loop (cordon, then per
// node its filters, evictions, 5s retries of a 429 and the poll for deleted pods); apiserver.go
// the API server's side of an eviction request, whose verdict internal/registry/eviction
// decides; world.go the simulated cluster (pods Ready and removed, owners replacing evicted
// pods, the disruption controller's status after every change); client.go the client kubectl's
// Helper lists pods through.
package drain

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	kubectldrain "k8s.io/kubectl/pkg/drain"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/disruption"
	"github.com/kubectl-workload/kubectl-workload/internal/registry/eviction"
	"github.com/kubectl-workload/kubectl-workload/internal/scheduler"
)

// kubectl drain's constants (k8s.io/kubectl/pkg/cmd/drain and pkg/drain).
const (
	// EvictRetryDelay is kubectl drain's EvictErrorRetryDelay: a 429 is retried after 5s.
	EvictRetryDelay = 5 * time.Second
	// DeletePollInterval is how often kubectl drain looks for an evicted pod to be gone
	// (waitForDelete's interval).
	DeletePollInterval = time.Second
)

// World is the cluster a drain runs in, as the API server stores it (scheduler.World, which
// scheduler.Place fills from manifests).
type World = scheduler.World

// Options are kubectl drain's options, and the simulated world's timing.
type Options struct {
	// Nodes are drained in order, as kubectl drain NODE... does, after all are cordoned.
	Nodes                                                        []string
	Force, IgnoreDaemonSets, DeleteEmptyDirData, DisableEviction bool
	PodSelector                                                  string
	// GracePeriodSeconds below 0 is each pod's own terminationGracePeriodSeconds.
	GracePeriodSeconds int
	// Timeout is --timeout for each node; 0 waits forever.
	Timeout time.Duration
	// ReadyAfter and TerminateAfter override the times derived from each pod's probes and
	// preStop hooks (kernel.DeriveReadyAfter, kernel.DeriveTerminateAfter).
	ReadyAfter, TerminateAfter time.Duration
	// Start is the wall-clock time of the drain: the budgets' disruptedPods timestamps.
	Start time.Time
	// RetriesMeet plays the less common outcome of evictions retried at the same moment: the
	// API server's conflict retries (and kubectl's 5s retries) that fall due together read the
	// budget before any of them writes, so one wins and the others conflict again and retry
	// 500ms later. By default only kubectl's first requests of a node, sent together by its
	// goroutines, read together; every later request reads what the ones before it wrote.
	RetriesMeet bool
	// Place makes and places the pods of workloads that have none in the world (Place) before
	// the drain: an input of manifests holds workloads, not pods.
	Place bool
}

// The kinds of Event.
const (
	EventCordon   = "cordon"
	EventWarning  = "warning"
	EventEvict    = "evict"    // the Eviction API approved: the pod is being deleted
	EventDelete   = "delete"   // --disable-eviction: deleted without a budget
	EventRefused  = "refused"  // 429: retried after 5s
	EventFailed   = "failed"   // another refusal: kubectl gives up on the pod
	EventEvicted  = "evicted"  // kubectl's poll found the pod gone ("pod/NAME evicted")
	EventCreated  = "created"  // an owner created a replacement
	EventReady    = "ready"    // a replacement became Ready
	EventPending  = "pending"  // a replacement no node can take
	EventRepeats  = "repeats"  // the last refusals repeat every 5s until the timeout or forever
	EventTimeout  = "timeout"  // --timeout reached with pods left
	EventFiltered = "filtered" // kubectl's filters refuse the node: nothing is evicted
)

// Event is one step of a drain plan.
type Event struct {
	At    time.Duration `json:"at"`
	Kind  string        `json:"kind"`
	Pod   string        `json:"pod,omitempty"`
	Node  string        `json:"node,omitempty"`
	Owner string        `json:"owner,omitempty"`
	// Budget decided an eviction; Code and Message are the Eviction API's answer, Cause its
	// DisruptionBudget cause.
	Budget  string `json:"budget,omitempty"`
	Code    int    `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Cause   string `json:"cause,omitempty"`
	// Allowed is the budget's disruptionsAllowed after an approved eviction.
	Allowed *int32 `json:"disruptionsAllowed,omitempty"`
	// Count is how many times a repeated refusal round happens (EventRepeats).
	Count int `json:"count,omitempty"`
	// Retried: the eviction lost a budget update to another one at the same instant, and
	// this is the API server's retry (eviction.ConflictRetry later), which kubectl does not see.
	Retried bool `json:"serverRetried,omitempty"`
}

// NodePlan is the drain of one node.
type NodePlan struct {
	Node  string        `json:"node"`
	Start time.Duration `json:"start"`
	// End is when kubectl drain finished with the node (drained, failed or timed out).
	End    time.Duration `json:"end"`
	Events []Event       `json:"events"`
	// Drained: kubectl prints "node/NAME drained".
	Drained bool `json:"drained"`
	// Error is kubectl's "unable to drain node" error, when not drained.
	Error string `json:"error,omitempty"`
	// Forever is true when, without --timeout, the drain would never end.
	Forever bool `json:"blockedForever,omitempty"`
	// Left are the pods still on the node at the end.
	Left []string `json:"left,omitempty"`
	// Fixes are the first changes that would unblock the drain, one per cause.
	Fixes []string `json:"fixes,omitempty"`
}

// Plan is a predicted kubectl drain of one or more nodes.
type Plan struct {
	Nodes []NodePlan `json:"nodes"`
	// Completed: every node drained (kubectl exits 0).
	Completed bool          `json:"completed"`
	Duration  time.Duration `json:"duration"`
	// Assumptions are the world's timing and anything guessed.
	Assumptions []string `json:"assumptions,omitempty"`
	// Varies names where real runs can take another path than the plan, and which.
	Varies []string `json:"canVary,omitempty"`
	// Placed are the pods made from workloads that had none in the input (Options.Place), and
	// where the scheduler mirror put them: placed, not read.
	Placed []scheduler.Placed `json:"placed,omitempty"`
}

// Drain predicts kubectl drain o.Nodes... on w. w's objects are not changed.
func Drain(w World, o Options) (*Plan, error) {
	if len(o.Nodes) == 0 {
		return nil, fmt.Errorf("no node to drain")
	}
	s, placed := newSim(w, o)
	plan := &Plan{Completed: true, Placed: placed}
	if len(placed) > 0 {
		plan.Assumptions = append(plan.Assumptions, fmt.Sprintf("%d pod(s) were placed, not read: the input holds workloads without their pods, so each workload's controller mirror made them (a Deployment's ReplicaSet, StatefulSet ordinals, a DaemonSet's pod per eligible node, a Job's parallelism; name suffixes are stand-ins for the API server's random ones) and the scheduler mirror placed them as the cluster would have (cordons, taints, node affinity, cpu/memory/pod-count fit, topology spread constraints and required pod (anti-)affinity by kube-scheduler's own plugins; a workload spread over nodes, then the least allocated node; ties go to the first node by name, where the real scheduler picks at random, so another cluster can hold them elsewhere): %s", len(placed), scheduler.PlacedSummary(placed)))
	}
	if len(w.Nodes) == 0 {
		plan.Assumptions = append(plan.Assumptions, "no nodes given (--nodes-file or Node objects in the state): replacement pods are assumed to fit on some schedulable node")
	} else {
		for _, name := range o.Nodes {
			if s.node(name) == nil {
				return nil, fmt.Errorf("node %q not found among the %d nodes given", name, len(w.Nodes))
			}
		}
	}
	// RunDrain cordons every node first, then drains them one by one.
	cordon := Event{At: 0, Kind: EventCordon, Node: strings.Join(o.Nodes, ", ")}
	for _, n := range o.Nodes {
		s.cordoned[n] = true
		s.sched.Cordon(n)
	}
	s.syncBudgets()
	forever := ""
	for i, name := range o.Nodes {
		np := NodePlan{Node: name, Start: s.now}
		if forever != "" {
			// kubectl never returns from the node before.
			np.Error = fmt.Sprintf("never reached: the drain of %s never ends", forever)
			plan.Nodes = append(plan.Nodes, np)
			continue
		}
		s.events = &np.Events
		if i == 0 {
			np.Events = append(np.Events, cordon)
		}
		s.drainNode(&np)
		np.End = s.now
		if !np.Drained {
			plan.Completed = false
		}
		if np.Forever {
			forever = name
		}
		plan.Nodes = append(plan.Nodes, np)
	}
	plan.Duration = s.now
	s.finish(plan, placed)
	return plan, nil
}

// finish adds to plan where real runs can vary and the world's timing notes.
func (s *sim) finish(plan *Plan, placed []scheduler.Placed) {
	if s.reconflicts > 0 {
		plan.Varies = append(plan.Varies, fmt.Sprintf("%d time(s) (first %s) an API server retry of an eviction conflicts again with another retry due at the same moment and waits for the next (--retries-meet): this is the less common outcome; in most real runs the two retries come up to 50ms apart and the later reads the earlier's update and is refused with 429, kubectl retrying it 5s later (11 of 14 recorded runs of 3 pods under minAvailable 2 on an idle API server, 11 of 27 on a busy one; the default plan)", s.reconflicts, s.reconflictFirst))
	}
	if s.serialRefusals > 0 {
		plan.Varies = append(plan.Varies, fmt.Sprintf("%d time(s) (first %s) an eviction retried at the same moment as another one of the same budget reads that one's approval and is refused with 429, kubectl retrying it 5s later: the common real outcome (11 of 14 recorded runs of 3 pods under minAvailable 2 on an idle API server; all 3 recorded runs of the held-out set). Now and then the retries meet instead (both read before either writes): the later conflicts again, and the API server's next retry 500ms later lets it through without waiting for kubectl's 5s (16 of 27 runs on a heavily loaded machine); --retries-meet plays that path", s.serialRefusals, s.serialFirst))
	}
	tied, first := 0, ""
	for _, p := range placed {
		if p.Ties > 0 {
			tied++
			if first == "" {
				first = fmt.Sprintf("%s on %s, tied with %d other node(s)", p.Pod, p.Node, p.Ties)
			}
		}
	}
	if tied > 0 {
		plan.Varies = append(plan.Varies, fmt.Sprintf("%d placed pod(s) (first %s) scored the same on several nodes: the real scheduler picks among them at random, so in a real cluster such a pod can sit on another node, a drained one among them", tied, first))
	}
	for n := range s.notes {
		plan.Assumptions = append(plan.Assumptions, n)
	}
	sort.Strings(plan.Assumptions)
}

// newSim is the simulated cluster of w (its pods made and placed first when o.Place), budgets
// copied and synced lazily, nodes indexed; w's objects are not changed.
func newSim(w World, o Options) (*sim, []scheduler.Placed) {
	var placed []scheduler.Placed
	if o.Place {
		w.Pods, w.ReplicaSets = slices.Clone(w.Pods), slices.Clone(w.ReplicaSets)
		placed = scheduler.Place(&w)
	}
	s := &sim{o: o, cordoned: map[string]bool{}, seq: map[string]int{}, notes: map[string]bool{},
		live: map[string]*simPod{}, onNode: map[string][]*simPod{}, deleted: map[string]*simPod{},
		budgetsIn: map[string][]*policy.PodDisruptionBudget{}, budgetByKey: map[string]*policy.PodDisruptionBudget{},
		budgetPods: map[*policy.PodDisruptionBudget][]*simPod{}, dirty: map[*policy.PodDisruptionBudget]bool{}, holding: map[*policy.PodDisruptionBudget]bool{}, selectors: map[*policy.PodDisruptionBudget]labels.Selector{}, nodeByName: map[string]*v1.Node{}}
	s.w = w
	s.w.Budgets = nil
	for _, b := range w.Budgets {
		b = b.DeepCopy()
		s.w.Budgets = append(s.w.Budgets, b)
		s.budgetsIn[b.Namespace] = append(s.budgetsIn[b.Namespace], b)
		if k := b.Namespace + "/" + b.Name; s.budgetByKey[k] == nil {
			s.budgetByKey[k] = b
		}
	}
	s.sched = scheduler.New(w.Nodes)
	for _, p := range w.Pods {
		s.add(&simPod{pod: p.DeepCopy(), readyAt: -1, goneAt: -1})
	}
	s.scales = disruption.StateScales{Deployments: w.Deployments, ReplicaSets: w.ReplicaSets, StatefulSets: w.StatefulSets, ReplicationControllers: w.ReplicationControllers}.Indexed()
	for _, n := range w.Nodes {
		if n.Spec.Unschedulable {
			s.cordoned[n.Name] = true
		}
		if s.nodeByName[n.Name] == nil {
			s.nodeByName[n.Name] = n
		}
	}
	return s, placed
}

func (s *sim) emit(e Event) {
	e.At = s.now
	*s.events = append(*s.events, e)
}

// drainNode mirrors DrainCmdOptions.deleteOrEvictPodsSimple and Helper.evictPods for one node.
func (s *sim) drainNode(np *NodePlan) { s.drainNodes([]*NodePlan{np}) }

// nodeDrain is one node's drain in progress: kubectl's per-pod eviction goroutines
// (Helper.evictPods) as data.
type nodeDrain struct {
	np              *NodePlan
	start, deadline time.Duration
	// pending are the pods still to be evicted, in the order kubectl started them, each with
	// the time of its next request; serverAttempts counts the API server's tries of an
	// eviction still in its conflict retry loop (EvictionsRetry).
	pending        []string
	attemptAt      map[string]time.Duration
	serverAttempts map[string]int
	failed         map[string]string
	// waiting are the evicted pods: since when kubectl polls for them to be gone.
	waiting   map[string]time.Duration
	lastRound []Event
	// changed: something happened since the last round of evictions decided.
	changed bool
}

// beginDrain lists the node's pods as kubectl's Helper does and starts their evictions now;
// nil when kubectl's filters refuse the node or there is nothing to wait for.
func (s *sim) beginDrain(np *NodePlan) *nodeDrain {
	helper := &kubectldrain.Helper{
		Ctx:    context.Background(),
		Client: stateClient{pods: s.podsOn, daemonSets: s.w.DaemonSets},
		Force:  s.o.Force, IgnoreAllDaemonSets: s.o.IgnoreDaemonSets, DeleteEmptyDirData: s.o.DeleteEmptyDirData,
		PodSelector: s.o.PodSelector, GracePeriodSeconds: s.o.GracePeriodSeconds,
	}
	list, errs := helper.GetPodsForDeletion(np.Node)
	if errs != nil {
		msgs := make([]string, 0, len(errs))
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		sort.Strings(msgs)
		np.Error = strings.Join(msgs, ", ")
		if len(msgs) > 1 {
			np.Error = "[" + np.Error + "]"
		}
		s.emit(Event{Kind: EventFiltered, Node: np.Node, Message: np.Error})
		if list != nil {
			for _, p := range list.Pods() {
				np.Left = append(np.Left, podKey(&p))
			}
		}
		np.Fixes = append(np.Fixes, "kubectl refuses the node before evicting anything: "+np.Error)
		return nil
	}
	if w := list.Warnings(); w != "" {
		// Warnings joins its messages in map order; sorted, the plan is deterministic.
		parts := strings.Split(w, "; ")
		sort.Strings(parts)
		s.emit(Event{Kind: EventWarning, Node: np.Node, Message: strings.Join(parts, "; ")})
	}
	nd := &nodeDrain{np: np, start: s.now, deadline: time.Duration(math.MaxInt64), changed: true,
		attemptAt: map[string]time.Duration{}, failed: map[string]string{}, serverAttempts: map[string]int{}, waiting: map[string]time.Duration{}}
	if s.o.Timeout > 0 {
		nd.deadline = nd.start + s.o.Timeout
	}
	for _, p := range list.Pods() {
		nd.pending = append(nd.pending, podKey(&p))
	}
	if s.o.DisableEviction {
		for _, key := range nd.pending {
			s.deletePod(s.find(key), EventDelete, Event{})
		}
		s.syncBudgets()
		nd.pending = nil
		for _, k := range list.Pods() {
			nd.waiting[podKey(&k)] = nd.start
		}
	}
	for _, k := range nd.pending {
		nd.attemptAt[k] = nd.start
	}
	return nd
}

// next is the next moment the node's drain acts by itself: a pod's request, or kubectl's
// poll finding an evicted pod gone.
func (nd *nodeDrain) next(s *sim) time.Duration {
	next := time.Duration(math.MaxInt64)
	for _, k := range nd.pending {
		next = min(next, nd.attemptAt[k])
	}
	for k, since := range nd.waiting {
		if p := s.findAny(k); p != nil && p.goneAt >= 0 {
			next = min(next, pollAfter(since, p.goneAt))
		}
	}
	return next
}

// stuck: every pending pod was refused in the last round and nothing happened since.
func (nd *nodeDrain) stuck() bool {
	return !nd.changed && len(nd.waiting) == 0 && len(nd.pending) > 0 && len(nd.lastRound) > 0
}

// drainNodes drains the nodes at the same time from now, as a provider drains the nodes of
// an upgrade batch: one kubectl loop (deleteOrEvictPodsSimple, Helper.evictPods) per node,
// their requests interleaved in time against the same budgets and the same world, each node
// with its own timeout. Each NodePlan gets its events and its end; s.now is the latest end.
// With one node it is kubectl drain NODE.
//
// Example: a budget of disruptionsAllowed 1 over pods on nodes a and b, both drained from
// 0s: a's first request is approved (allowed 0); b's, read after it, is refused with 429
// and retried at 5s, when a's replacement is Ready and the budget allows 1 again. The batch
// ends when its slowest node does, not after the sum of the nodes' drains.
func (s *sim) drainNodes(nps []*NodePlan) {
	const never = time.Duration(math.MaxInt64)
	var active []*nodeDrain
	end := s.now
	for _, np := range nps {
		s.events = &np.Events
		if nd := s.beginDrain(np); nd != nil {
			active = append(active, nd)
		} else {
			np.End = s.now
		}
	}
	// World events go to the drain of the node the pod came from (Ready replacements, a
	// StatefulSet's recreated ordinal); others to the first node still draining.
	s.route = map[string]*[]Event{}
	for _, nd := range active {
		s.route[nd.np.Node] = &nd.np.Events
	}
	defer func() { s.route = nil }()
	stop := func(nd *nodeDrain, at time.Duration) {
		s.events = &nd.np.Events
		s.endDrain(nd, at)
		end = max(end, at)
		delete(s.route, nd.np.Node)
	}
	for {
		active = slices.DeleteFunc(active, func(nd *nodeDrain) bool {
			if len(nd.pending) > 0 || len(nd.waiting) > 0 {
				return false
			}
			stop(nd, s.now)
			return true
		})
		if len(active) == 0 {
			break
		}
		s.events = &active[0].np.Events
		// The next moment anything happens.
		worldNext := s.nextTransition()
		next := worldNext
		allStuck := true
		for _, nd := range active {
			next = min(next, nd.next(s))
			allStuck = allStuck && nd.stuck()
		}
		if next == never {
			for _, nd := range active {
				stop(nd, s.now) // nothing left to do
			}
			break
		}
		// Nothing in the world will change and every pending pod was refused in the last
		// round: the same refusals repeat every 5s.
		if allStuck && worldNext == never {
			for _, nd := range active {
				s.events = &nd.np.Events
				nd.np.Forever = s.o.Timeout == 0
				at := s.now
				if !nd.np.Forever {
					count := int((nd.deadline - nd.lastRound[0].At - 1) / EvictRetryDelay)
					if count > 0 {
						s.emit(Event{Kind: EventRepeats, Count: count, Message: fmt.Sprintf("the refusals repeat every %s", EvictRetryDelay)})
					}
					// kubectl notices the timeout when a retry wakes up after it.
					at = nd.lastRound[0].At + time.Duration(count+1)*EvictRetryDelay
				} else {
					s.emit(Event{Kind: EventRepeats, Count: -1, Message: fmt.Sprintf("the refusals repeat every %s, forever", EvictRetryDelay)})
				}
				stop(nd, at)
			}
			break
		}
		// Pods waiting to be deleted see the timeout at once; a pod between retries when its
		// next retry wakes up.
		active = slices.DeleteFunc(active, func(nd *nodeDrain) bool {
			if next < nd.deadline {
				return false
			}
			at := nd.deadline
			for _, k := range nd.pending {
				at = max(at, nd.attemptAt[k])
			}
			stop(nd, at)
			return true
		})
		if len(active) == 0 {
			break
		}
		s.now = next
		if s.advanceWorld() {
			for _, nd := range active {
				nd.changed = true
			}
		}
		// kubectl's first requests for a node, sent together by its goroutines, read the
		// budgets before any of them writes (serverEvict). Every later request of this
		// instant (the API server's conflict retries, jittered by up to 50ms, kubectl's 5s
		// retries of refusals answered milliseconds apart, and another node's requests)
		// reads what the ones before it wrote, unless o.RetriesMeet.
		var read map[*policy.PodDisruptionBudget]*policy.PodDisruptionBudget
		var written map[*policy.PodDisruptionBudget]bool
		if s.o.RetriesMeet {
			read, written = map[*policy.PodDisruptionBudget]*policy.PodDisruptionBudget{}, map[*policy.PodDisruptionBudget]bool{}
		}
		acted, instantChanged := false, false
		approvedBy := map[string]string{} // budget -> the pod approved by it at this instant
		for _, nd := range active {
			s.events = &nd.np.Events
			for _, k := range sortedKeys(nd.waiting) {
				p := s.findAny(k)
				if p != nil && p.goneAt >= 0 && pollAfter(nd.waiting[k], p.goneAt) <= s.now {
					delete(nd.waiting, k)
					s.emit(Event{Kind: EventEvicted, Pod: k, Node: nd.np.Node})
				}
			}
			if !s.o.RetriesMeet {
				read, written = map[*policy.PodDisruptionBudget]*policy.PodDisruptionBudget{}, map[*policy.PodDisruptionBudget]bool{}
			}
			a, c := s.evictDue(nd, read, written, approvedBy)
			acted, instantChanged = acted || a, instantChanged || c
		}
		if instantChanged { // another node's approval changes what this one's refusals read
			for _, nd := range active {
				nd.changed = true
			}
		}
		if acted {
			// The disruption controller reacts to this instant's deletions after every
			// eviction sent at it has read the budgets.
			s.syncBudgets()
		}
	}
	s.now = end
}

// evictDue sends the node's eviction requests due now, in the order kubectl started them:
// acted when any got an answer, changed when any was approved or conflicted.
func (s *sim) evictDue(nd *nodeDrain, read map[*policy.PodDisruptionBudget]*policy.PodDisruptionBudget, written map[*policy.PodDisruptionBudget]bool, approvedBy map[string]string) (acted, changed bool) {
	var due []string
	for _, k := range nd.pending {
		if nd.attemptAt[k] == s.now {
			due = append(due, k)
		}
	}
	if len(due) > 0 {
		nd.lastRound, nd.changed = nil, false
	}
	for _, k := range due {
		p := s.find(k)
		if p == nil { // gone already: NotFound ends the goroutine
			nd.pending = slices.DeleteFunc(nd.pending, func(x string) bool { return x == k })
			delete(nd.serverAttempts, k)
			continue
		}
		attempt := nd.serverAttempts[k] + 1
		together := s.o.RetriesMeet || (attempt == 1 && s.now == nd.start)
		var v eviction.Verdict
		var conflict bool
		if together {
			v, conflict = s.serverEvict(p.pod, s.readBudgets(p, read), written)
		} else {
			v, conflict = s.serverEvict(p.pod, s.readBudgets(p, nil), map[*policy.PodDisruptionBudget]bool{})
			if v.Code == 429 && approvedBy[v.Budget] != "" {
				s.serialRefusals++
				if s.serialFirst == "" {
					s.serialFirst = fmt.Sprintf("at %s, %s after %s", s.now, k, approvedBy[v.Budget])
				}
			}
		}
		if v.Approved() && v.Budget != "" {
			approvedBy[v.Budget] = k
		}
		if conflict && attempt < eviction.ConflictAttempts {
			nd.serverAttempts[k], changed = attempt, true
			nd.attemptAt[k] = s.now + eviction.ConflictRetry
			s.notes[fmt.Sprintf("evictions sent at the same moment all read the budget and only the first update is written: the API server retries the others %s later (EvictionsRetry; 500-550ms in a real run, jittered), re-reading the budget (real requests sent together can also reach the server one after another, the later ones then refused with 429 at once)", eviction.ConflictRetry)] = true
			if attempt > 1 {
				// Where real runs vary most: the retries' jitter decides.
				s.reconflicts++
				if s.reconflictFirst == "" {
					s.reconflictFirst = fmt.Sprintf("at %s, %s", s.now, k)
				}
			}
			continue
		}
		delete(nd.serverAttempts, k)
		acted = true
		e := Event{At: s.now, Pod: k, Budget: v.Budget, Code: v.Code, Message: v.Message, Cause: v.Cause, Retried: attempt > 1}
		// A refusal names the pod's node and owner, as an approval does (deletePod), so
		// that a refused pod can be told by its workload.
		e.Node, e.Owner = p.pod.Spec.NodeName, ownerName(p.pod)
		switch {
		case v.Approved():
			if v.Decremented {
				allowed := s.budget(p.pod.Namespace, v.Budget).Status.DisruptionsAllowed
				e.Allowed = &allowed
			}
			s.deletePod(p, EventEvict, e)
			changed = true
			nd.waiting[k] = s.now
			nd.pending = slices.DeleteFunc(nd.pending, func(x string) bool { return x == k })
		case v.Code == 429:
			e.Kind = EventRefused
			s.emit(e)
			nd.lastRound = append(nd.lastRound, e)
			nd.attemptAt[k] = s.now + EvictRetryDelay
		default:
			e.Kind = EventFailed
			if len(v.Budgets) > 1 {
				e.Budget = strings.Join(v.Budgets, ", ")
			}
			s.emit(e)
			nd.failed[k] = fmt.Sprintf("error when evicting pods/%q -n %q: %s", p.pod.Name, p.pod.Namespace, v.Message)
			nd.pending = slices.DeleteFunc(nd.pending, func(x string) bool { return x == k })
		}
	}
	return acted, changed
}

// endDrain ends the node's drain at at: what is left, kubectl's error, the fixes.
func (s *sim) endDrain(nd *nodeDrain, at time.Duration) {
	np := nd.np
	np.End = at
	// What is left is read at the end (kubectl notices the timeout then).
	saved := s.now
	s.now = max(s.now, at)
	defer func() { s.now = saved }()
	var msgs []string
	for _, k := range sortedKeys(nd.failed) {
		msgs = append(msgs, nd.failed[k])
	}
	left := append(append([]string{}, nd.pending...), sortedKeys(nd.waiting)...)
	sort.Strings(left)
	if s.o.Timeout > 0 && at >= nd.deadline && len(left) > 0 {
		*s.events = append(*s.events, Event{At: at, Kind: EventTimeout, Message: fmt.Sprintf("global timeout reached: %s", s.o.Timeout)})
		for _, k := range left {
			p := s.find(k)
			name, ns := k, ""
			if p != nil {
				name, ns = p.pod.Name, p.pod.Namespace
			}
			msgs = append(msgs, fmt.Sprintf("error when evicting pods/%q -n %q: global timeout reached: %s", name, ns, s.o.Timeout))
		}
	}
	np.Left = left
	for k := range nd.failed {
		np.Left = append(np.Left, k)
	}
	sort.Strings(np.Left)
	if len(msgs) > 0 {
		np.Error = strings.Join(msgs, ", ")
		if len(msgs) > 1 {
			np.Error = "[" + np.Error + "]"
		}
	}
	np.Drained = len(msgs) == 0 && len(left) == 0
	if !np.Drained {
		np.Fixes = s.fixes(np, nd.lastRound)
	}
}

// pollAfter is when waitForDelete, polling every second from since, first finds a pod gone at
// gone: PollUntilContextTimeout polls at once, then each interval.
func pollAfter(since, gone time.Duration) time.Duration {
	if gone <= since {
		return since
	}
	n := (gone - since + DeletePollInterval - 1) / DeletePollInterval
	return since + n*DeletePollInterval
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// fixes names, for each budget or cause that holds a pod at the end, the first change that
// would let the drain go on.
func (s *sim) fixes(np *NodePlan, lastRound []Event) []string {
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, e := range np.Events {
		if e.Kind != EventFailed {
			continue
		}
		if strings.Contains(e.Budget, ", ") {
			add(fmt.Sprintf("pod %s is selected by several budgets (%s), which the Eviction API refuses: make their selectors disjoint or delete all but one", e.Pod, e.Budget))
		} else {
			add(fmt.Sprintf("pod %s: %s", e.Pod, e.Message))
		}
	}
	for _, e := range lastRound {
		p := s.find(e.Pod)
		b := s.budget(strings.SplitN(e.Pod, "/", 2)[0], e.Budget)
		if p == nil || b == nil {
			continue
		}
		add(s.budgetFix(b, p.pod))
	}
	if len(out) == 0 && len(np.Left) > 0 {
		add("the pods left had not terminated by the timeout: raise --timeout")
	}
	return out
}

func (s *sim) budgetFix(b *policy.PodDisruptionBudget, pod *v1.Pod) string {
	st := b.Status
	name := "budget " + b.Namespace + "/" + b.Name
	for _, c := range st.Conditions {
		if c.Type == policy.DisruptionAllowedCondition && c.Reason == policy.SyncFailedReason {
			return fmt.Sprintf("%s cannot count its pods (%s): give it an integer minAvailable, which needs no controller's scale", name, c.Message)
		}
	}
	for _, p := range s.pods {
		if p.pod.Namespace == b.Namespace && p.pod.Spec.NodeName == "" && p.goneAt < 0 && len(disruption.PodsForBudget(b, []*v1.Pod{p.pod})) == 1 {
			return fmt.Sprintf("%s waits for replacement pod %s, which no schedulable node fits: add a node that fits it, or relax its node selector, affinity or tolerations", name, podKey(p.pod))
		}
	}
	owner := "the workload"
	if ref := metav1.GetControllerOf(pod); ref != nil {
		owner = strings.ToLower(ref.Kind) + "/" + ref.Name
		if ref.Kind == "ReplicaSet" {
			for _, rs := range s.w.ReplicaSets {
				if d := metav1.GetControllerOf(rs); rs.Name == ref.Name && rs.Namespace == pod.Namespace && d != nil && d.Kind == "Deployment" {
					owner = "deployment/" + d.Name
				}
			}
		}
	}
	if st.DesiredHealthy >= st.ExpectedPods && st.ExpectedPods > 0 {
		switch {
		case b.Spec.MaxUnavailable != nil:
			return fmt.Sprintf("%s allows no disruption (maxUnavailable %s of %d pods): raise maxUnavailable to 1, or scale %s up", name, b.Spec.MaxUnavailable.String(), st.ExpectedPods, owner)
		case b.Spec.MinAvailable != nil:
			return fmt.Sprintf("%s needs %d healthy pods of %d (minAvailable %s): lower minAvailable to %d, or scale %s to %d replicas", name, st.DesiredHealthy, st.ExpectedPods, b.Spec.MinAvailable.String(), max(st.ExpectedPods-1, 0), owner, st.DesiredHealthy+1)
		}
	}
	if st.CurrentHealthy < st.DesiredHealthy || !podReady(pod) {
		return fmt.Sprintf("%s has %d healthy pods and needs %d: make the unready pods Ready, or set unhealthyPodEvictionPolicy: AlwaysAllow so unready pods can be evicted", name, st.CurrentHealthy, st.DesiredHealthy)
	}
	return fmt.Sprintf("%s allows %d disruptions: scale %s up so that its replacement pods give it room", name, st.DisruptionsAllowed, owner)
}

func podReady(p *v1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}
