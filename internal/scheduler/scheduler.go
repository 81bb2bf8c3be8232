// Package scheduler mirrors what puts pods on nodes in a drain's simulated cluster: a small
// kube-scheduler (Scheduler: its default profile's filters and scores, one pod at a time,
// pkg/scheduler) and, for an input of manifests, the controllers' pods placed on the nodes
// (Place).
package scheduler

import (
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// The scheduler's requests for a container that sets none, used when it scores nodes
// (DefaultMilliCPURequest and DefaultMemoryRequest of pkg/scheduler/util).
const (
	defaultMilliCPURequest = 100
	defaultMemoryRequest   = 200 * 1024 * 1024
)

// usage is what the pods bound to one node request.
type usage struct {
	pods int
	// milliCPU and memory are the requests (the Fit filter's); scoreCPU and scoreMemory count
	// a pod without requests at the scheduler's defaults (its scoring's).
	milliCPU, memory, scoreCPU, scoreMemory int64
}

// Scheduler is a small mirror of kube-scheduler's default profile for one pod at a time: the
// filters NodeUnschedulable, TaintToleration (NoSchedule, NoExecute), NodeAffinity (node
// selector and required affinity) and NodeResourcesFit (cpu, memory and pod count against the
// node's allocatable), then, among the nodes left, the one with the fewest pods of the same
// controller (PodTopologySpread's system default constraints spread a workload over
// hostnames), then the least allocated (NodeResourcesFit's LeastAllocated score, cpu and
// memory with the scheduler's defaults for pods without requests, or the pod count when the
// node lists neither), then the first by name. The real scheduler weighs its scores together
// and breaks ties at random; the counts are kept as pods come and go, so each placement costs
// one pass over the schedulable nodes.
type Scheduler struct {
	// nodes are the nodes' states, sorted by name; state has every node's and those of node
	// names pods are bound to without a Node.
	nodes []*nodeState
	state map[string]*nodeState
	// open are the nodes not cordoned, rebuilt after a change.
	open  []*nodeState
	stale bool
	// owned counts each controller's pods per node.
	owned map[string]map[string]int
}

// nodeState is a node, what its pods use, and its allocatable read once.
type nodeState struct {
	node     *v1.Node
	used     usage
	alloc    allocatable
	cordoned bool
	// owned is, while a pod is scheduled, how many pods of its controller the node holds.
	owned int
}

// allocatable is a node's allocatable pods, cpu and memory, each when listed.
type allocatable struct {
	pods, milliCPU, memory     int64
	hasPods, hasCPU, hasMemory bool
}

func allocatableOf(n *v1.Node) allocatable {
	var a allocatable
	alloc := n.Status.Allocatable
	if q, ok := alloc[v1.ResourcePods]; ok {
		a.pods, a.hasPods = q.Value(), true
	}
	if q, ok := alloc[v1.ResourceCPU]; ok {
		a.milliCPU, a.hasCPU = q.MilliValue(), true
	}
	if q, ok := alloc[v1.ResourceMemory]; ok {
		a.memory, a.hasMemory = q.Value(), true
	}
	return a
}

// stateOf is the node's state, made when it has none.
func (sc *Scheduler) stateOf(node string) *nodeState {
	st := sc.state[node]
	if st == nil {
		st = &nodeState{}
		sc.state[node] = st
	}
	return st
}

// New is a Scheduler over nodes; those marked unschedulable are cordoned.
func New(nodes []*v1.Node) *Scheduler {
	sc := &Scheduler{state: map[string]*nodeState{}, owned: map[string]map[string]int{}}
	sorted := append([]*v1.Node(nil), nodes...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, n := range sorted {
		st := sc.stateOf(n.Name)
		if st.node != nil {
			// A name given twice: both entries count, the first one's allocatable.
			sc.nodes = append(sc.nodes, st)
			continue
		}
		st.node, st.alloc = n, allocatableOf(n)
		sc.nodes = append(sc.nodes, st)
	}
	for _, n := range nodes {
		if n.Spec.Unschedulable {
			sc.state[n.Name].cordoned = true
		}
	}
	sc.stale = true
	return sc
}

// AddNode is a node joining the cluster (a node pool's surge node); an unschedulable one is
// cordoned.
func (sc *Scheduler) AddNode(n *v1.Node) {
	st := sc.stateOf(n.Name)
	if st.node != nil {
		return
	}
	st.node, st.alloc, st.cordoned = n, allocatableOf(n), n.Spec.Unschedulable
	i := sort.Search(len(sc.nodes), func(i int) bool { return sc.nodes[i].node.Name >= n.Name })
	sc.nodes = slices.Insert(sc.nodes, i, st)
	sc.stale = true
}

// Cordon marks a node unschedulable.
func (sc *Scheduler) Cordon(name string) {
	if st := sc.stateOf(name); !st.cordoned {
		st.cordoned, sc.stale = true, true
	}
}

// ownerKey names the controller a pod counts under for spreading.
func ownerKey(p *v1.Pod) string {
	if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
		return p.Namespace + "/" + ref.Kind + "/" + ref.Name
	}
	return ""
}

func podUsage(p *v1.Pod) usage {
	req := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
	u := usage{pods: 1, milliCPU: req.Cpu().MilliValue(), memory: req.Memory().Value()}
	u.scoreCPU, u.scoreMemory = u.milliCPU, u.memory
	if u.scoreCPU == 0 {
		u.scoreCPU = defaultMilliCPURequest
	}
	if u.scoreMemory == 0 {
		u.scoreMemory = defaultMemoryRequest
	}
	return u
}

// Add counts p on its node (sign 1) or takes it off (sign -1).
func (sc *Scheduler) Add(p *v1.Pod, sign int) {
	node := p.Spec.NodeName
	if node == "" {
		return
	}
	u := &sc.stateOf(node).used
	pu := podUsage(p)
	s := int64(sign)
	u.pods += sign
	u.milliCPU += s * pu.milliCPU
	u.memory += s * pu.memory
	u.scoreCPU += s * pu.scoreCPU
	u.scoreMemory += s * pu.scoreMemory
	if k := ownerKey(p); k != "" {
		m := sc.owned[k]
		if m == nil {
			m = map[string]int{}
			sc.owned[k] = m
		}
		m[node] += sign
	}
}

// fits is the Fit filter: the pod's requests within what the node's allocatable leaves.
func (st *nodeState) fits(pu usage) bool {
	u, a := &st.used, &st.alloc
	if a.hasPods && int64(u.pods+1) > a.pods {
		return false
	}
	if a.hasCPU && pu.milliCPU > 0 && u.milliCPU+pu.milliCPU > a.milliCPU {
		return false
	}
	if a.hasMemory && pu.memory > 0 && u.memory+pu.memory > a.memory {
		return false
	}
	return true
}

// allocated is the node's share in use once the pod is on it, for LeastAllocated: the mean of
// cpu and memory over allocatable, or the pod count when the node lists neither.
func (st *nodeState) allocated(pu usage) float64 {
	u, a := &st.used, &st.alloc
	if !a.hasCPU || !a.hasMemory || a.milliCPU == 0 || a.memory == 0 {
		return float64(u.pods + 1)
	}
	return (float64(u.scoreCPU+pu.scoreCPU)/float64(a.milliCPU) + float64(u.scoreMemory+pu.scoreMemory)/float64(a.memory)) / 2
}

// Schedule picks pod's node, "" when none fits.
func (sc *Scheduler) Schedule(pod *v1.Pod) string {
	node, _ := sc.ScheduleTies(pod)
	return node
}

// ScheduleTies picks pod's node and counts the other nodes that scored the same (a tie the
// real scheduler breaks at random).
func (sc *Scheduler) ScheduleTies(pod *v1.Pod) (string, int) {
	ties := 0
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	pu := podUsage(pod)
	owned := sc.owned[ownerKey(pod)]
	best, bestOwned, bestAlloc := "", 0, 0.0
	if sc.stale {
		sc.open, sc.stale = sc.open[:0], false
		for _, st := range sc.nodes {
			if !st.cordoned {
				sc.open = append(sc.open, st)
			}
		}
	}
	// The controller's pods sit on a few nodes: mark those, rather than look every node up.
	for name, c := range owned {
		sc.stateOf(name).owned = c
	}
	defer func() {
		for name := range owned {
			sc.state[name].owned = 0
		}
	}()
	for _, on := range sc.open {
		n := on.node
		if _, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, pod.Spec.Tolerations, func(t *v1.Taint) bool {
			return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
		}, false); untolerated {
			continue
		}
		if ok, err := affinity.Match(n); err != nil || !ok {
			continue
		}
		if !on.fits(pu) {
			continue
		}
		o, a := on.owned, on.allocated(pu)
		switch {
		case best == "" || o < bestOwned || (o == bestOwned && a < bestAlloc):
			best, bestOwned, bestAlloc, ties = n.Name, o, a, 0
		case o == bestOwned && a == bestAlloc:
			ties++
		}
	}
	return best, ties
}
