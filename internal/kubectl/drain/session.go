package drain

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/scheduler"
)

// EventScheduled is a Pending pod the scheduler places once a node that fits it joins (the
// scheduler retries unschedulable pods when a node is added).
const EventScheduled = "scheduled"

// Session is one simulated cluster that several drains run in, one after another, with
// nodes joining and leaving between them: what a node-pool upgrade does (add surge nodes,
// cordon, kubectl drain, delete the node). Its clock, pods, budgets and scheduler carry over
// from step to step, so replacements still starting when a drain ends count in the next.
type Session struct {
	s      *sim
	placed []scheduler.Placed
	// sink collects the events of steps that are not a node's drain.
	sink []Event
}

// NewSession is a Session over w (its pods made and placed first when o.Place); o.Nodes and
// o.Timeout are not used (Drain takes them). w's objects are not changed.
func NewSession(w World, o Options) *Session {
	s, placed := newSim(w, o)
	ss := &Session{s: s, placed: placed}
	s.events = &ss.sink
	s.syncBudgets()
	return ss
}

// Now is the time since the session's start.
func (ss *Session) Now() time.Duration { return ss.s.now }

// Placed are the pods made from workloads that had none (Options.Place).
func (ss *Session) Placed() []scheduler.Placed { return ss.placed }

// Node is the node named name, nil when the cluster has none of that name.
func (ss *Session) Node(name string) *v1.Node { return ss.s.node(name) }

// take returns the events of the steps since the last take.
func (ss *Session) take() []Event {
	out := ss.sink
	ss.sink = nil
	ss.s.events = &ss.sink
	return out
}

// AddNode has n join the cluster now: the DaemonSet controller binds its pods to it
// (scheduler.DaemonPods), and the scheduler retries the Pending pods, in creation order.
func (ss *Session) AddNode(n *v1.Node) []Event {
	s := ss.s
	if s.nodeByName[n.Name] == nil {
		s.nodeByName[n.Name] = n
		s.w.Nodes = append(slices.Clip(s.w.Nodes), n)
		s.sched.AddNode(n)
		if n.Spec.Unschedulable {
			s.cordoned[n.Name] = true
		}
		for _, p := range scheduler.DaemonPods(s.w.DaemonSets, []*v1.Node{n}) {
			p.CreationTimestamp = metav1.NewTime(s.wall(s.now))
			s.add(&simPod{pod: p, readyAt: -1, goneAt: -1})
		}
		ss.reschedule()
		s.syncBudgets()
	}
	return ss.take()
}

// reschedule places the Pending pods that a node now fits.
func (ss *Session) reschedule() {
	s := ss.s
	for _, p := range slices.Clone(s.onNode[""]) {
		if !p.alive(s.now) || p.pod.DeletionTimestamp != nil {
			continue
		}
		node := s.sched.Schedule(p.pod)
		if node == "" {
			continue
		}
		list := s.onNode[""]
		if i := slices.Index(list, p); i >= 0 {
			s.onNode[""] = slices.Delete(list, i, i+1)
		}
		p.pod.Spec.NodeName = node
		p.pod.Status.Phase = v1.PodRunning
		s.onNode[node] = append(s.onNode[node], p)
		s.sched.Add(p.pod, 1)
		p.readyAt = s.now + s.readyAfter(p.pod)
		heap.Push(&s.transitions, transition{at: p.readyAt, pod: p})
		s.touch(p)
		s.emit(Event{Kind: EventScheduled, Pod: podKey(p.pod), Node: node, Owner: ownerName(p.pod)})
	}
}

// Cordon marks the node unschedulable now (kubectl cordon).
func (ss *Session) Cordon(name string) {
	ss.s.cordoned[name] = true
	ss.s.sched.Cordon(name)
}

// Drain is kubectl drain of one cordoned node, now, giving up after timeout (0: never), as
// Drain plays each node.
func (ss *Session) Drain(name string, timeout time.Duration) NodePlan {
	s := ss.s
	np := NodePlan{Node: name, Start: s.now}
	s.o.Timeout = timeout
	s.events = &np.Events
	s.drainNode(&np)
	np.End = s.now
	s.events = &ss.sink
	return np
}

// DrainAll is kubectl drain of each cordoned node, all at the same time from now, as a
// provider drains the nodes of an upgrade batch (drainNodes): their evictions interleave
// against the same budgets, replacements are scheduled as they happen, and the clock ends at
// the slowest node's end. Each node gives up after timeout (0: never).
func (ss *Session) DrainAll(names []string, timeout time.Duration) []NodePlan {
	s := ss.s
	nps := make([]NodePlan, len(names))
	ptrs := make([]*NodePlan, len(names))
	for i, name := range names {
		nps[i] = NodePlan{Node: name, Start: s.now}
		ptrs[i] = &nps[i]
	}
	s.o.Timeout = timeout
	s.drainNodes(ptrs)
	s.events = &ss.sink
	return nps
}

// Wait lets the cluster run for d: pods become Ready, deleted pods go and are replaced.
func (ss *Session) Wait(d time.Duration) []Event {
	s := ss.s
	end := s.now + d
	for {
		next := s.nextTransition()
		if next > end {
			break
		}
		s.now = next
		s.advanceWorld()
	}
	s.now = end
	return ss.take()
}

// ForceDelete deletes, now and without the Eviction API (so without a budget), every pod
// left on the nodes but their DaemonSet pods and the pods already terminating, as a provider
// does when a drain's timeout passes (GKE after its PodDisruptionBudget timeout), then runs the
// cluster until they are gone. It returns, per node, the deletions and what followed them
// (its replacements' Ready), and when the node was empty.
func (ss *Session) ForceDelete(nodes []string, why string) (events [][]Event, emptyAt []time.Duration) {
	s := ss.s
	events, emptyAt = make([][]Event, len(nodes)), make([]time.Duration, len(nodes))
	s.route = map[string]*[]Event{}
	defer func() { s.route, s.events = nil, &ss.sink }()
	for i, node := range nodes {
		s.route[node] = &events[i]
		s.events = &events[i]
		for _, p := range slices.Clone(s.onNode[node]) {
			if !p.alive(s.now) || p.pod.DeletionTimestamp != nil {
				continue
			}
			if ref := metav1.GetControllerOf(p.pod); ref != nil && ref.Kind == "DaemonSet" {
				continue
			}
			s.deletePod(p, EventDelete, Event{Message: why})
		}
	}
	s.syncBudgets()
	s.events = &ss.sink
	for i := range emptyAt {
		emptyAt[i] = -1
	}
	for {
		left := false
		for i, node := range nodes {
			if emptyAt[i] < 0 && ss.left(node) == 0 {
				emptyAt[i] = s.now
			}
			left = left || emptyAt[i] < 0
		}
		next := s.nextTransition()
		if !left || next == time.Duration(math.MaxInt64) {
			break
		}
		s.now = next
		s.advanceWorld()
	}
	for i := range emptyAt {
		if emptyAt[i] < 0 { // nothing more happens: empty as far as the plan goes
			emptyAt[i] = s.now
		}
	}
	events[0] = append(events[0], ss.take()...)
	sort.SliceStable(events[0], func(i, j int) bool { return events[0][i].At < events[0][j].At })
	return events, emptyAt
}

// left counts the pods on node, DaemonSet pods aside, not removed yet.
func (ss *Session) left(node string) int {
	n := 0
	for _, p := range ss.s.onNode[node] {
		if ref := metav1.GetControllerOf(p.pod); p.alive(ss.s.now) && (ref == nil || ref.Kind != "DaemonSet") {
			n++
		}
	}
	return n
}

// DeleteNode removes the node from the cluster now: the pod garbage collector deletes the pods
// still bound to it (its DaemonSet pods), which are gone at once, and their owners, other
// than a DaemonSet, replace them; then the scheduler retries the Pending pods.
func (ss *Session) DeleteNode(name string) []Event {
	s := ss.s
	s.cordoned[name] = true
	s.sched.RemoveNode(name)
	for _, p := range slices.Clone(s.onNode[name]) {
		if !p.alive(s.now) {
			continue
		}
		p.goneAt, p.readyAt = s.now, -1
		s.gone(p)
		if ref := metav1.GetControllerOf(p.pod); ref != nil {
			switch ref.Kind {
			case "ReplicaSet", "ReplicationController", "Job":
				s.seq[ref.Name]++
				s.replace(p, fmt.Sprintf("%s-new%d", ref.Name, s.seq[ref.Name]))
			case "StatefulSet":
				s.replace(p, p.pod.Name)
			}
		}
	}
	// The scheduler retries its Pending pods when a node goes: a topology domain that
	// disappears with it can let a spread pod in elsewhere (the real kube-scheduler placed
	// a zone-spread Deployment's Pending pods in the other zone as soon as the first zone's
	// only node was deleted: test/e2e's zone-spread upgrade).
	ss.reschedule()
	s.syncBudgets()
	return ss.take()
}

// Pending are the pods no node fits now, by key, sorted.
func (ss *Session) Pending() []string {
	var out []string
	for _, p := range ss.s.onNode[""] {
		if p.alive(ss.s.now) && p.pod.DeletionTimestamp == nil {
			out = append(out, podKey(p.pod))
		}
	}
	sort.Strings(out)
	return out
}

// Notes are the world's timing assumptions and where real runs can vary, as Drain puts them
// in its plan.
func (ss *Session) Notes() (assumptions, varies []string) {
	var p Plan
	ss.s.finish(&p, ss.placed)
	return p.Assumptions, p.Varies
}
