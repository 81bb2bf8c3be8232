// Package upgrade predicts a node-pool upgrade as the managed Kubernetes providers run it:
// surge nodes join with the old nodes' labels, taints and allocatable, then the old nodes are
// cordoned, drained with kubectl's loop against the Eviction API (internal/kubectl/drain, run
// as one Session so the cluster carries over from node to node) and deleted, batch by batch,
// until every old node is replaced. The plan says, per node, when it was cordoned, each
// eviction and refusal with its budget, where the replacements went (internal/scheduler),
// when it was empty and deleted; the whole upgrade's duration; the first blocker and the
// change that unblocks it; and the pods no node could take.
package upgrade

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-workload/kubectl-workload/internal/kubectl/drain"
	"github.com/kubectl-workload/kubectl-workload/internal/scheduler"
)

// What a provider does when a node's drain passes its timeout.
const (
	// OnTimeoutFail stops the upgrade (AKS UpgradeFailed, EKS PodEvictionFailure).
	OnTimeoutFail = "fail"
	// OnTimeoutForce deletes the pods left without the Eviction API and goes on (GKE after
	// its PodDisruptionBudget timeout, EKS with the force flag).
	OnTimeoutForce = "force"
)

// Node orders.
const (
	// OrderName upgrades the pool's nodes by name.
	OrderName = "name"
	// OrderInput upgrades them in the order the input lists them.
	OrderInput = "input"
)

// Algorithm is a provider's surge upgrade as parameters.
type Algorithm struct {
	// MaxSurge is how many new nodes may exist beyond the pool's size at once: a count, or a
	// percentage of the pool rounded up.
	MaxSurge intstr.IntOrString `json:"maxSurge"`
	// MaxUnavailable is how many old nodes may be drained beyond the surge: a count or a
	// percentage of the pool rounded up. MaxSurge+MaxUnavailable old nodes drain in a batch
	// (GKE's NodePool.UpgradeSettings; AKS drains as many nodes as it has buffer nodes).
	MaxUnavailable intstr.IntOrString `json:"maxUnavailable"`
	// DrainAtOnce, when above 0, is the batch size instead (EKS drains maxUnavailable nodes at
	// a time after its surge nodes join).
	DrainAtOnce int `json:"drainAtOnce,omitempty"`
	// DrainTimeout bounds each node's drain; 0 waits forever.
	DrainTimeout time.Duration `json:"drainTimeout"`
	// OnTimeout is OnTimeoutFail or OnTimeoutForce.
	OnTimeout string `json:"onTimeout"`
	// NodeReadyAfter is how long a new node takes to join Ready (the VM's creation and boot):
	// 0 when not known.
	NodeReadyAfter time.Duration `json:"nodeReadyAfter,omitempty"`
	// Order is OrderName (default) or OrderInput.
	Order string `json:"order,omitempty"`
}

// Options are an upgrade's input besides the cluster.
type Options struct {
	// Selector picks the pool's nodes by label.
	Selector labels.Selector
	Algorithm
	// Drain carries the simulated world's timing (ReadyAfter, TerminateAfter, GracePeriodSeconds,
	// Start, Place, RetriesMeet); its Nodes and Timeout are not used. The drain flags of
	// providers are set: DaemonSet pods ignored, emptyDir data deleted, bare pods evicted.
	Drain drain.Options
}

// Node outcomes.
const (
	Upgraded   = "upgraded"    // drained (or forced empty) and deleted
	Failed     = "failed"      // the drain timed out or failed: the upgrade stops here
	Blocked    = "blocked"     // the drain never ends (no timeout)
	NotReached = "not-reached" // the upgrade stopped before this node
)

// NodeStep is the upgrade of one old node.
type NodeStep struct {
	Node  string `json:"node"`
	Batch int    `json:"batch"`
	// CordonedAt, EmptyAt and DeletedAt are since the upgrade's start; EmptyAt and DeletedAt
	// are unset (-1) when it never happens.
	CordonedAt time.Duration `json:"cordonedAt"`
	EmptyAt    time.Duration `json:"emptyAt"`
	DeletedAt  time.Duration `json:"deletedAt"`
	Outcome    string        `json:"outcome"`
	// Drain is kubectl drain of the node: every eviction, refusal (with its budget) and
	// replacement (Event.Node: where it went).
	Drain drain.NodePlan `json:"drain"`
	// Forced are the deletions after the timeout (OnTimeoutForce) and what followed.
	Forced []drain.Event `json:"forced,omitempty"`
	// Deleted is what followed the node's deletion (its DaemonSet pods, recreated elsewhere if
	// owned otherwise).
	Deleted []drain.Event `json:"deleted,omitempty"`
}

// NewNode is an upgraded node joining the pool.
type NewNode struct {
	Name string `json:"name"`
	// Like is the old node whose labels, taints and allocatable it takes.
	Like    string        `json:"like"`
	AddedAt time.Duration `json:"addedAt"`
	// Surge: it joined before an old node was deleted for it.
	Surge bool `json:"surge"`
	// Events are the DaemonSet pods bound to it and the Pending pods it took.
	Events []drain.Event `json:"events,omitempty"`
}

// Blocker is the first thing that stops the upgrade.
type Blocker struct {
	Node string        `json:"node"`
	At   time.Duration `json:"at"`
	// Budgets are the budgets that refused the last evictions.
	Budgets []string `json:"budgets,omitempty"`
	Pods    []string `json:"pods,omitempty"`
	Reason  string   `json:"reason"`
	Fixes   []string `json:"fixes,omitempty"`
}

// Unplaced is a pod no node could take during the upgrade.
type Unplaced struct {
	Pod   string        `json:"pod"`
	Owner string        `json:"owner,omitempty"`
	Since time.Duration `json:"since"`
	// Reason is the scheduler's, when the pod went Pending ("0/4 nodes are available: ...").
	Reason string `json:"reason,omitempty"`
	// Node and At say where and when a joining node took it; empty when none did.
	Node string        `json:"node,omitempty"`
	At   time.Duration `json:"at,omitempty"`
}

// Plan is a predicted node-pool upgrade.
type Plan struct {
	Algorithm Algorithm `json:"algorithm"`
	// Surge and Unavailable are MaxSurge and MaxUnavailable as node counts; BatchSize how
	// many old nodes drain in a batch.
	Surge       int        `json:"surge"`
	Unavailable int        `json:"unavailable"`
	BatchSize   int        `json:"batchSize"`
	Pool        []string   `json:"pool"`
	Nodes       []NodeStep `json:"nodes"`
	NewNodes    []NewNode  `json:"newNodes"`
	// Completed: every old node was replaced.
	Completed bool          `json:"completed"`
	Duration  time.Duration `json:"duration"`
	Blocker   *Blocker      `json:"blocker,omitempty"`
	// Unplaced are the pods that waited for a node (capacity shortfall), and whether one came.
	Unplaced    []Unplaced `json:"unplaced,omitempty"`
	Assumptions []string   `json:"assumptions,omitempty"`
	Varies      []string   `json:"canVary,omitempty"`
	// Placed are the pods made from workloads that had none in the input, and their nodes.
	Placed []scheduler.Placed `json:"placed,omitempty"`
}

// Validate checks the algorithm's values.
func (a Algorithm) Validate() error {
	for name, v := range map[string]intstr.IntOrString{"max surge": a.MaxSurge, "max unavailable": a.MaxUnavailable} {
		if _, err := intstr.GetScaledValueFromIntOrPercent(&v, 100, true); err != nil {
			return fmt.Errorf("%s %s: %w", name, v.String(), err)
		}
		if v.Type == intstr.Int && v.IntVal < 0 {
			return fmt.Errorf("%s %d: must not be negative", name, v.IntVal)
		}
	}
	if a.DrainTimeout < 0 {
		return fmt.Errorf("drain timeout %s: must not be negative", a.DrainTimeout)
	}
	if a.OnTimeout != OnTimeoutFail && a.OnTimeout != OnTimeoutForce {
		return fmt.Errorf("on timeout %q: want %s or %s", a.OnTimeout, OnTimeoutFail, OnTimeoutForce)
	}
	if a.OnTimeout == OnTimeoutForce && a.DrainTimeout == 0 {
		return errors.New("on timeout force needs a drain timeout")
	}
	if a.Order != "" && a.Order != OrderName && a.Order != OrderInput {
		return fmt.Errorf("order %q: want %s or %s", a.Order, OrderName, OrderInput)
	}
	return nil
}

// counts resolves MaxSurge and MaxUnavailable against a pool of n nodes, as the providers
// do (percentages rounded up), and the batch size.
func (a Algorithm) counts(n int) (surge, unavailable, batch int, err error) {
	if surge, err = intstr.GetScaledValueFromIntOrPercent(&a.MaxSurge, n, true); err != nil {
		return
	}
	if unavailable, err = intstr.GetScaledValueFromIntOrPercent(&a.MaxUnavailable, n, true); err != nil {
		return
	}
	if surge == 0 && unavailable == 0 {
		return 0, 0, 0, errors.New("max surge and max unavailable are both 0: no node could ever be upgraded")
	}
	batch = surge + unavailable
	if a.DrainAtOnce > 0 {
		batch = a.DrainAtOnce
	}
	return surge, unavailable, min(batch, n), nil
}

// Upgrade predicts the upgrade of the nodes of w that o.Selector picks. w's objects are not
// changed.
//
// The algorithm, for a pool of 3 nodes a, b, c with maxSurge 1 and maxUnavailable 0: batch
// size 1+0 = 1; a-upgraded joins (surge), a is cordoned, drained and deleted; b-upgraded joins,
// b goes; c-upgraded joins, c goes: the pool never has more than 4 nodes nor fewer than 3
// schedulable. With maxSurge 0 and maxUnavailable 1, a goes first and a-upgraded joins after
// it, so a's pods must fit on b and c. New nodes never outnumber the old nodes deleted by more
// than the surge.
func Upgrade(w drain.World, o Options) (*Plan, error) {
	if err := o.Algorithm.Validate(); err != nil {
		return nil, err
	}
	sel := o.Selector
	if sel == nil {
		sel = labels.Everything()
	}
	var pool []*v1.Node
	for _, n := range w.Nodes {
		if sel.Matches(labels.Set(n.Labels)) {
			pool = append(pool, n)
		}
	}
	if len(pool) == 0 {
		return nil, fmt.Errorf("no node of the %d given matches the selector %q", len(w.Nodes), sel.String())
	}
	if o.Order != OrderInput {
		sort.SliceStable(pool, func(i, j int) bool { return pool[i].Name < pool[j].Name })
	}
	surge, unavailable, batch, err := o.counts(len(pool))
	if err != nil {
		return nil, err
	}
	do := o.Drain
	do.IgnoreDaemonSets, do.DeleteEmptyDirData, do.Force = true, true, true
	ss := drain.NewSession(w, do)
	plan := &Plan{Algorithm: o.Algorithm, Surge: surge, Unavailable: unavailable, BatchSize: batch, Completed: true}
	names := map[string]bool{}
	for _, n := range w.Nodes {
		names[n.Name] = true
	}
	for _, n := range pool {
		plan.Pool = append(plan.Pool, n.Name)
	}
	deleted := 0
	// addNew has new nodes join until they number limit, each like the next old node
	// without one.
	addNew := func(limit int, surgeNodes bool) {
		if len(plan.NewNodes) >= limit {
			return
		}
		if o.NodeReadyAfter > 0 {
			ss.Wait(o.NodeReadyAfter)
		}
		for len(plan.NewNodes) < limit {
			like := pool[len(plan.NewNodes)]
			n := newNodeLike(like, names)
			names[n.Name] = true
			ev := ss.AddNode(n)
			plan.NewNodes = append(plan.NewNodes, NewNode{Name: n.Name, Like: like.Name, AddedAt: ss.Now(), Surge: surgeNodes, Events: ev})
		}
	}
	stopped := false
	for b := 0; b*batch < len(pool); b++ {
		nodes := pool[b*batch : min((b+1)*batch, len(pool))]
		if stopped {
			for _, n := range nodes {
				plan.Nodes = append(plan.Nodes, NodeStep{Node: n.Name, Batch: b + 1, CordonedAt: -1, EmptyAt: -1, DeletedAt: -1, Outcome: NotReached})
			}
			continue
		}
		// Replacements for the nodes deleted so far, then the surge.
		addNew(deleted, false)
		addNew(min(len(pool), deleted+surge), true)
		steps := make([]NodeStep, len(nodes))
		batchNames := make([]string, len(nodes))
		for i, n := range nodes {
			ss.Cordon(n.Name)
			batchNames[i] = n.Name
			steps[i] = NodeStep{Node: n.Name, Batch: b + 1, CordonedAt: ss.Now(), EmptyAt: -1, DeletedAt: -1}
		}
		// The batch's nodes drain at the same time, as the providers drain them.
		var forced []int
		for i, np := range ss.DrainAll(batchNames, o.DrainTimeout) {
			st := &steps[i]
			st.Drain = np
			switch {
			case np.Drained:
				st.EmptyAt = np.End
			case o.OnTimeout == OnTimeoutForce && !np.Forever:
				forced = append(forced, i)
			default:
				st.Outcome = Failed
				if np.Forever {
					st.Outcome = Blocked
				}
				plan.Completed, stopped = false, true
				// The first blocker is the node whose drain gave up first.
				if plan.Blocker == nil || np.End < plan.Blocker.At {
					plan.Blocker = blockerOf(st)
				}
			}
		}
		if len(forced) > 0 {
			names := make([]string, len(forced))
			for k, i := range forced {
				names[k] = steps[i].Node
			}
			events, emptyAt := ss.ForceDelete(names, fmt.Sprintf("drain timeout %s passed: deleted without the Eviction API", o.DrainTimeout))
			for k, i := range forced {
				steps[i].Forced, steps[i].EmptyAt = events[k], emptyAt[k]
			}
		}
		for i := range steps {
			st := &steps[i]
			if st.EmptyAt >= 0 {
				st.Deleted = ss.DeleteNode(st.Node)
				st.DeletedAt, st.Outcome = ss.Now(), Upgraded
				deleted++
			}
		}
		plan.Nodes = append(plan.Nodes, steps...)
	}
	if !stopped {
		addNew(len(pool), false)
	}
	plan.Duration = ss.Now()
	plan.Unplaced = unplaced(plan)
	plan.Placed = ss.Placed()
	plan.Assumptions, plan.Varies = ss.Notes()
	plan.Assumptions = append(plan.Assumptions,
		"the drain flags providers use: DaemonSet pods stay (they go with the node), emptyDir data is deleted, pods without a controller are evicted too",
		"new nodes are named after the old node they replace (-upgraded); the scheduler breaks ties by name, the real one at random")
	if o.NodeReadyAfter == 0 {
		plan.Assumptions = append(plan.Assumptions, "new nodes join Ready at once: the VM's creation and boot are not counted (--node-ready-after to add them)")
	}
	if batch > 1 {
		plan.Varies = append(plan.Varies, fmt.Sprintf("the %d nodes of a batch start draining at the same instant, the first node's requests read first; a provider starts them moments apart, so which node a shared budget lets go first can differ", batch))
	}
	sort.Strings(plan.Assumptions)
	return plan, nil
}

// newNodeLike is a Ready node that takes old's labels (its hostname aside), taints and
// allocatable, named old-upgraded (a number added when taken).
func newNodeLike(old *v1.Node, taken map[string]bool) *v1.Node {
	name := old.Name + "-upgraded"
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s-upgraded-%d", old.Name, i)
	}
	lbls := maps.Clone(old.Labels)
	if lbls == nil {
		lbls = map[string]string{}
	}
	lbls[v1.LabelHostname] = name
	var taints []v1.Taint
	for _, t := range old.Spec.Taints {
		// The node lifecycle's own taints (unschedulable, not-ready) are not the pool's.
		if !strings.HasPrefix(t.Key, "node.kubernetes.io/") {
			taints = append(taints, t)
		}
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls, Annotations: maps.Clone(old.Annotations)},
		Spec:       v1.NodeSpec{Taints: taints},
		Status: v1.NodeStatus{Capacity: old.Status.Capacity.DeepCopy(), Allocatable: old.Status.Allocatable.DeepCopy(),
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}},
	}
}

// blockerOf names what stopped the drain of st's node and its fixes.
func blockerOf(st *NodeStep) *Blocker {
	b := &Blocker{Node: st.Node, At: st.Drain.End, Pods: st.Drain.Left, Fixes: st.Drain.Fixes, Reason: st.Drain.Error}
	if st.Drain.Forever {
		b.Reason = "the drain never ends: the evictions are refused forever and there is no drain timeout"
	}
	seen := map[string]bool{}
	for _, e := range st.Drain.Events {
		if (e.Kind == drain.EventRefused || e.Kind == drain.EventFailed) && e.Budget != "" && !seen[e.Budget] {
			seen[e.Budget] = true
			b.Budgets = append(b.Budgets, e.Budget)
		}
	}
	sort.Strings(b.Budgets)
	return b
}

// unplaced collects the pods that went Pending during the upgrade and the node that took
// each, if one did.
func unplaced(plan *Plan) []Unplaced {
	var out []Unplaced
	idx := map[string]int{}
	visit := func(events []drain.Event) {
		for _, e := range events {
			switch e.Kind {
			case drain.EventPending:
				idx[e.Pod] = len(out)
				out = append(out, Unplaced{Pod: e.Pod, Owner: e.Owner, Since: e.At, Reason: e.Message})
			case drain.EventScheduled:
				if i, ok := idx[e.Pod]; ok && out[i].Node == "" {
					out[i].Node, out[i].At = e.Node, e.At
				}
			}
		}
	}
	type timed struct {
		at     time.Duration
		events []drain.Event
	}
	var all []timed
	for _, st := range plan.Nodes {
		all = append(all, timed{st.Drain.Start, st.Drain.Events}, timed{st.EmptyAt, st.Forced}, timed{st.DeletedAt, st.Deleted})
	}
	for _, n := range plan.NewNodes {
		all = append(all, timed{n.AddedAt, n.Events})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at < all[j].at })
	for _, t := range all {
		visit(t.events)
	}
	return slices.Clip(out)
}
