package drain

import (
	"container/heap"
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

	"github.com/kubectl-workload/kubectl-workload/internal/controller/disruption"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/scheduler"
)

// The simulated cluster a drain runs in: its pods and their futures (Ready, removed), the
// owners that replace evicted pods, and the disruption controller's reaction to every change
// (disruption.Sync).

// simPod is a pod of the simulated cluster and its future.
type simPod struct {
	pod            *v1.Pod
	readyAt        time.Duration // when it becomes Ready; -1: never, or already
	goneAt         time.Duration // when it is removed; -1: not deleting
	replacementFor string
	origin         string // the node of the pod it replaces
	seq            int    // creation order
	budgets        []*policy.PodDisruptionBudget
}

type sim struct {
	w        World
	o        Options
	pods     []*simPod
	cordoned map[string]bool
	scales   disruption.Scales
	// Indexes, so that a drain of many nodes costs about the same per node: the pods not
	// removed by key and by node, the last deleted pod of each key, the budgets by namespace
	// and by key, the budgets whose pods changed since their last sync and those holding
	// disrupted pods, the times pods become Ready or are removed, and the nodes by name.
	live        map[string]*simPod
	onNode      map[string][]*simPod
	deleted     map[string]*simPod
	budgetsIn   map[string][]*policy.PodDisruptionBudget
	budgetByKey map[string]*policy.PodDisruptionBudget
	budgetPods  map[*policy.PodDisruptionBudget][]*simPod
	dirty       map[*policy.PodDisruptionBudget]bool
	holding     map[*policy.PodDisruptionBudget]bool
	selectors   map[*policy.PodDisruptionBudget]labels.Selector
	synced      bool
	transitions transitionHeap
	nodeByName  map[string]*v1.Node
	sched       *scheduler.Scheduler
	now         time.Duration
	seq         map[string]int
	events      *[]Event
	// route, while nodes drain at the same time (drainNodes), sends the world's events about a
	// pod to the drain of the node it came from.
	route map[string]*[]Event
	notes map[string]bool
	// reconflicts counts the API server's retries that conflict again with another retry due
	// at the same moment; reconflictFirst names the first.
	reconflicts     int
	reconflictFirst string
	// serialRefusals counts the requests refused with 429 because they read another request's
	// approval of the same instant (the default outcome); serialFirst names the first.
	serialRefusals int
	serialFirst    string
}

func (s *sim) node(name string) *v1.Node { return s.nodeByName[name] }

// add puts p in the cluster and its indexes.
func (s *sim) add(p *simPod) {
	p.seq = len(s.pods)
	s.pods = append(s.pods, p)
	s.live[podKey(p.pod)] = p
	s.onNode[p.pod.Spec.NodeName] = append(s.onNode[p.pod.Spec.NodeName], p)
	s.sched.Add(p.pod, 1)
	for _, b := range s.budgetsIn[p.pod.Namespace] {
		sel, ok := s.selectors[b]
		if !ok {
			var err error
			if sel, err = metav1.LabelSelectorAsSelector(b.Spec.Selector); err != nil {
				sel = nil // PodsForBudget: an invalid selector matches none
			}
			s.selectors[b] = sel
		}
		if sel != nil && sel.Matches(labels.Set(p.pod.Labels)) {
			p.budgets = append(p.budgets, b)
			s.budgetPods[b] = append(s.budgetPods[b], p)
		}
	}
	s.touch(p)
	if p.readyAt >= 0 {
		heap.Push(&s.transitions, transition{at: p.readyAt, pod: p})
	}
}

// touch marks p's budgets for the next sync.
func (s *sim) touch(p *simPod) {
	for _, b := range p.budgets {
		s.dirty[b] = true
	}
}

// gone removes p from the indexes of the pods not removed.
func (s *sim) gone(p *simPod) {
	k := podKey(p.pod)
	if s.live[k] == p {
		delete(s.live, k)
	}
	list := s.onNode[p.pod.Spec.NodeName]
	if i := slices.Index(list, p); i >= 0 {
		s.onNode[p.pod.Spec.NodeName] = slices.Delete(list, i, i+1)
	}
	s.sched.Add(p.pod, -1)
	for _, b := range p.budgets {
		list := s.budgetPods[b]
		if i := slices.Index(list, p); i >= 0 {
			s.budgetPods[b] = slices.Delete(list, i, i+1)
		}
	}
	s.touch(p)
}

// podsOn lists the pods not removed on node, or on every node when node is "", in creation order.
func (s *sim) podsOn(node string, all bool) []*v1.Pod {
	var out []*v1.Pod
	if all {
		for _, p := range s.pods {
			if p.goneAt < 0 || p.goneAt > s.now {
				out = append(out, p.pod)
			}
		}
		return out
	}
	for _, p := range s.onNode[node] {
		if p.alive(s.now) {
			out = append(out, p.pod)
		}
	}
	return out
}

func (s *sim) find(key string) *simPod {
	if p := s.live[key]; p != nil && p.alive(s.now) {
		return p
	}
	return nil
}

// alive: not removed at now.
func (p *simPod) alive(now time.Duration) bool { return p.goneAt < 0 || p.goneAt > now }

func podKey(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

// ownerName is the pod's controller as kind/name ("replicaset/web-6d4cf56db6"), "" for a
// bare pod.
func ownerName(p *v1.Pod) string {
	if ref := metav1.GetControllerOf(p); ref != nil {
		return strings.ToLower(ref.Kind) + "/" + ref.Name
	}
	return ""
}

func (s *sim) wall(d time.Duration) time.Time { return s.o.Start.Add(d) }

// syncBudgets is the disruption controller reacting to every pod change at once: each budget
// whose pods changed since its last sync, or that holds disrupted pods (whose entries expire),
// is synced from its pods.
func (s *sim) syncBudgets() {
	sync := func(b *policy.PodDisruptionBudget) {
		pods := make([]*v1.Pod, 0, len(s.budgetPods[b]))
		for _, p := range s.budgetPods[b] {
			if p.alive(s.now) {
				pods = append(pods, p.pod)
			}
		}
		disruption.Sync(b, pods, s.scales, s.wall(s.now))
		if len(b.Status.DisruptedPods) > 0 {
			s.holding[b] = true
		} else {
			delete(s.holding, b)
		}
	}
	if !s.synced {
		for _, b := range s.w.Budgets {
			sync(b)
		}
	} else {
		for b := range s.dirty {
			sync(b)
		}
		for b := range s.holding {
			if !s.dirty[b] {
				sync(b)
			}
		}
	}
	clear(s.dirty)
	s.synced = true
}

// findAny finds the last pod of key that was deleted (evicted), gone or not.
func (s *sim) findAny(key string) *simPod { return s.deleted[key] }

func (s *sim) budget(ns, name string) *policy.PodDisruptionBudget { return s.budgetByKey[ns+"/"+name] }

// transition is a time a pod becomes Ready or is removed.
type transition struct {
	at  time.Duration
	pod *simPod
}

// transitionHeap orders transitions by time, then by the pods' creation order.
type transitionHeap []transition

func (h transitionHeap) Len() int { return len(h) }

func (h transitionHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].pod.seq < h[j].pod.seq
}

func (h transitionHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *transitionHeap) Push(x any) { *h = append(*h, x.(transition)) }

func (h *transitionHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// current reports whether t still stands: its pod becomes Ready or is removed at t.at.
func (t transition) current() bool { return t.pod.readyAt == t.at || t.pod.goneAt == t.at }

// nextTransition is the next time a pod becomes Ready or is removed.
func (s *sim) nextTransition() time.Duration {
	for s.transitions.Len() > 0 {
		t := s.transitions[0]
		if t.at > s.now && t.current() {
			return t.at
		}
		heap.Pop(&s.transitions)
		if t.at <= s.now && t.pod.goneAt == t.at {
			// Deleted with no grace at an instant already played: gone, and nothing follows.
			s.gone(t.pod)
		}
	}
	return time.Duration(math.MaxInt64)
}

// advanceWorld applies what happens at s.now: pods become Ready, deleted pods are removed and
// their owners (a StatefulSet) recreate them.
func (s *sim) advanceWorld() bool {
	changed := false
	var due []*simPod
	for s.transitions.Len() > 0 && s.transitions[0].at <= s.now {
		t := heap.Pop(&s.transitions).(transition)
		if t.at == s.now && t.current() && (len(due) == 0 || due[len(due)-1] != t.pod) {
			due = append(due, t.pod)
		}
	}
	// In creation order, as the pods' list is.
	sort.SliceStable(due, func(i, j int) bool { return due[i].seq < due[j].seq })
	due = slices.Compact(due)
	for _, p := range due {
		if p.readyAt == s.now {
			setReady(p.pod, s.wall(s.now))
			p.readyAt = -1
			s.touch(p)
			s.emitFrom(p.origin, Event{Kind: EventReady, Pod: podKey(p.pod), Node: p.pod.Spec.NodeName})
			changed = true
		}
		if p.goneAt == s.now {
			changed = true
			s.gone(p)
			if ref := metav1.GetControllerOf(p.pod); ref != nil && ref.Kind == "StatefulSet" {
				// The StatefulSet controller recreates the ordinal once the old pod is gone.
				events := s.events
				if r := s.route[p.pod.Spec.NodeName]; r != nil {
					s.events = r
				}
				s.replace(p, p.pod.Name)
				s.events = events
			}
		}
	}
	if changed {
		s.syncBudgets()
	}
	return changed
}

// deletePod marks p deleted now (the Eviction API's or kubectl's delete), and has its owner
// replace it: the ReplicaSet, ReplicationController and Job controllers do not count a
// terminating pod, so they create its replacement at once.
func (s *sim) deletePod(p *simPod, kind string, e Event) {
	now := metav1.NewTime(s.wall(s.now))
	p.pod.DeletionTimestamp = &now
	p.goneAt = s.now + s.terminateAfter(p.pod)
	s.deleted[podKey(p.pod)] = p
	s.touch(p)
	heap.Push(&s.transitions, transition{at: p.goneAt, pod: p})
	e.Kind, e.Pod, e.Node, e.Owner = kind, podKey(p.pod), p.pod.Spec.NodeName, ownerName(p.pod)
	s.emit(e)
	if ref := metav1.GetControllerOf(p.pod); ref != nil {
		switch ref.Kind {
		case "ReplicaSet", "ReplicationController", "Job":
			base := ref.Name
			s.seq[base]++
			s.replace(p, fmt.Sprintf("%s-new%d", base, s.seq[base]))
		}
	}
}

// emitFrom emits e to the drain of node when it is routed there (drainNodes), else as emit.
func (s *sim) emitFrom(node string, e Event) {
	if r := s.route[node]; r != nil {
		e.At = s.now
		*r = append(*r, e)
		return
	}
	s.emit(e)
}

// replace creates old's replacement, named name, on a node the scheduler would pick.
func (s *sim) replace(old *simPod, name string) {
	pod := old.pod.DeepCopy()
	pod.Name, pod.UID, pod.DeletionTimestamp, pod.ResourceVersion = name, "", nil, ""
	pod.CreationTimestamp = metav1.NewTime(s.wall(s.now))
	pod.Status = v1.PodStatus{Phase: v1.PodPending}
	pod.Spec.NodeName = s.schedule(pod)
	np := &simPod{pod: pod, readyAt: -1, goneAt: -1, replacementFor: podKey(old.pod), origin: old.pod.Spec.NodeName}
	ev := Event{Kind: EventCreated, Pod: podKey(pod), Node: pod.Spec.NodeName, Owner: ownerName(pod)}
	if pod.Spec.NodeName == "" {
		ev.Kind = EventPending
		ev.Message = "no schedulable node fits the pod"
		if len(s.w.Nodes) > 0 {
			ev.Message = s.sched.Why(pod)
		}
	} else {
		pod.Status.Phase = v1.PodRunning
		np.readyAt = s.now + s.readyAfter(pod)
	}
	s.add(np)
	s.emit(ev)
}

// schedule places pod with the scheduler mirror (scheduler.schedule), "(any node)" when no
// nodes are known.
func (s *sim) schedule(pod *v1.Pod) string {
	if len(s.w.Nodes) == 0 {
		return "(any node)"
	}
	return s.sched.Schedule(pod)
}

func (s *sim) readyAfter(pod *v1.Pod) time.Duration {
	if s.o.ReadyAfter > 0 {
		return s.o.ReadyAfter
	}
	d, why := kernel.DeriveReadyAfter(&v1.PodTemplateSpec{Spec: pod.Spec})
	s.notes[fmt.Sprintf("replacement pods become Ready %s after creation (%s; --ready-after to change)", d, why)] = true
	return d
}

func (s *sim) terminateAfter(pod *v1.Pod) time.Duration {
	tpl := &v1.PodTemplateSpec{Spec: pod.Spec}
	if s.o.GracePeriodSeconds >= 0 {
		g := int64(s.o.GracePeriodSeconds)
		tpl.Spec.TerminationGracePeriodSeconds = &g
	}
	if s.o.TerminateAfter > 0 {
		d, _ := kernel.BoundTerminateAfter(tpl, s.o.TerminateAfter)
		return d
	}
	d, why := kernel.DeriveTerminateAfter(tpl)
	s.notes[fmt.Sprintf("deleted pods run %s before they are removed (%s; --grace-period bounds it)", d, why)] = true
	return d
}

func setReady(pod *v1.Pod, at time.Time) {
	for i, c := range pod.Status.Conditions {
		if c.Type == v1.PodReady {
			pod.Status.Conditions[i].Status = v1.ConditionTrue
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)})
}
