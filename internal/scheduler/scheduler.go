// Package scheduler mirrors what puts pods on nodes in a drain's simulated cluster: a small
// kube-scheduler (Scheduler: its default profile's filters and scores, one pod at a time,
// pkg/scheduler) and, for an input of manifests, the controllers' pods placed on the nodes
// (Place).
package scheduler

import (
	"fmt"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
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
// selector and required affinity), NodeResourcesFit (cpu, memory and pod count against the
// node's allocatable), then the upstream plugins PodTopologySpread (the pod's DoNotSchedule
// constraints) and InterPodAffinity (the pod's required affinity and anti-affinity, and the
// existing pods' required anti-affinity against it), run in-process (upstream.go); then,
// among the nodes left, the best by PodTopologySpread's score when the pod has ScheduleAnyway
// constraints, else the one with the fewest pods of the same controller (the plugin's system
// default constraints spread a workload over hostnames), then the least allocated
// (NodeResourcesFit's LeastAllocated score, cpu and memory with the scheduler's defaults for
// pods without requests, or the pod count when the node lists neither), then the first by
// name. The real scheduler weighs its scores together and breaks ties at random; the counts
// and the plugins' NodeInfos are kept as pods and nodes come and go, so a placement costs one
// pass over the schedulable nodes, and the plugins' own passes for a pod they concern.
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
	// up are the upstream plugins, made when a pod first needs them; infos is their list of
	// NodeInfos (nil after a node joins or leaves); antiAffinityPods counts the pods with
	// required anti-affinity, which every pod is checked against.
	up               *upstream
	infos            []fwk.NodeInfo
	antiAffinityPods int
	// uids counts the UIDs given to pods without one (NodeInfo keys pods by UID).
	uids int
	// feasible is the buffer of the nodes that pass the filters.
	feasible []*nodeState
}

// nodeState is a node, what its pods use, and its allocatable read once.
type nodeState struct {
	node     *v1.Node
	used     usage
	alloc    allocatable
	cordoned bool
	// owned is, while a pod is scheduled, how many pods of its controller the node holds.
	owned int
	// pods are the pods bound to the node; info is the node and its pods as the upstream
	// plugins read them, kept once they run.
	pods []*v1.Pod
	info *framework.NodeInfo
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
		st = &nodeState{info: framework.NewNodeInfo()}
		sc.state[node] = st
	}
	return st
}

// setNode gives st its node.
func (st *nodeState) setNode(n *v1.Node) {
	st.node, st.alloc = n, allocatableOf(n)
	st.info.SetNode(n)
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
		st.setNode(n)
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
	st.setNode(n)
	st.cordoned = n.Spec.Unschedulable
	i := sort.Search(len(sc.nodes), func(i int) bool { return sc.nodes[i].node.Name >= n.Name })
	sc.nodes = slices.Insert(sc.nodes, i, st)
	sc.stale, sc.infos = true, nil
}

// Cordon marks a node unschedulable, as kubectl cordon does, and gives it the taint the node
// lifecycle controller adds to an unschedulable node (TaintNodesByCondition), which a spread
// constraint's nodeTaintsPolicy Honor reads.
func (sc *Scheduler) Cordon(name string) {
	st := sc.stateOf(name)
	if st.cordoned {
		return
	}
	st.cordoned, sc.stale = true, true
	if st.node == nil {
		return
	}
	n := st.node.DeepCopy()
	n.Spec.Unschedulable = true
	if !slices.ContainsFunc(n.Spec.Taints, func(t v1.Taint) bool { return t.Key == v1.TaintNodeUnschedulable }) {
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule})
	}
	st.info.SetNode(n)
}

// RemoveNode is a node leaving the cluster: no pod goes there, and its topology domain no
// longer counts for spreading.
func (sc *Scheduler) RemoveNode(name string) {
	st := sc.state[name]
	if st == nil || st.node == nil {
		return
	}
	sc.nodes = slices.DeleteFunc(sc.nodes, func(o *nodeState) bool { return o == st })
	// A node of the same name may join again (AddNode): its pods still count on it.
	st.node, st.cordoned = nil, true
	sc.stale, sc.infos = true, nil
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

// hasRequiredAntiAffinity: the pod's required anti-affinity terms, which every incoming pod
// is checked against.
func hasRequiredAntiAffinity(p *v1.Pod) bool {
	a := p.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

// Add counts p on its node (sign 1) or takes it off (sign -1, the same *v1.Pod).
func (sc *Scheduler) Add(p *v1.Pod, sign int) {
	node := p.Spec.NodeName
	if node == "" {
		return
	}
	st := sc.stateOf(node)
	u := &st.used
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
	if sign > 0 {
		st.pods = append(st.pods, p)
		if hasRequiredAntiAffinity(p) {
			sc.antiAffinityPods++
		}
	} else if i := slices.Index(st.pods, p); i >= 0 {
		st.pods = slices.Delete(st.pods, i, i+1)
		if hasRequiredAntiAffinity(p) {
			sc.antiAffinityPods--
		}
	} else {
		return
	}
	if sc.up != nil {
		sc.track(st, p, sign)
	}
}

// track adds p to the node's NodeInfo (sign 1) or takes it off. A pod without a UID is given
// one, as the API server would have (NodeInfo keys pods by UID); the NodeInfo holds p itself,
// so a deletion timestamp set later is seen (PodTopologySpread does not count a terminating
// pod).
func (sc *Scheduler) track(st *nodeState, p *v1.Pod, sign int) {
	if p.UID == "" {
		sc.uids++
		p.UID = types.UID(fmt.Sprintf("kubectl-workload-%d", sc.uids))
	}
	if sign > 0 {
		st.info.AddPod(p)
	} else {
		_ = st.info.RemovePod(klog.Background(), p)
	}
}

// fits is the Fit filter: the pod's requests within what the node's allocatable leaves; it
// returns the reasons the node does not fit (NodeResourcesFit's), none when it fits.
func (st *nodeState) fits(pu usage, why bool) []string {
	u, a := &st.used, &st.alloc
	var out []string
	if a.hasPods && int64(u.pods+1) > a.pods {
		if !why {
			return tooFew
		}
		out = append(out, "Too many pods")
	}
	if a.hasCPU && pu.milliCPU > 0 && u.milliCPU+pu.milliCPU > a.milliCPU {
		if !why {
			return tooFew
		}
		out = append(out, "Insufficient cpu")
	}
	if a.hasMemory && pu.memory > 0 && u.memory+pu.memory > a.memory {
		if !why {
			return tooFew
		}
		out = append(out, "Insufficient memory")
	}
	return out
}

// tooFew is fits' answer when no reason is asked for.
var tooFew = []string{"insufficient"}

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
	node, ties, _ := sc.schedule(pod, nil)
	return node, ties
}

// The filters' reasons for a node that does not fit, kube-scheduler's words
// (nodeunschedulable.ErrReasonUnschedulable, TaintToleration's Filter, nodeaffinity.ErrReasonPod).
const (
	reasonUnschedulable = "node(s) were unschedulable"
	reasonTaints        = "node(s) had untolerated taint(s)"
	reasonNodeAffinity  = "node(s) didn't match Pod's node affinity/selector"
)

// Why says why no node fits pod, as kube-scheduler's FitError does in the pod's PodScheduled
// condition ("0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match
// pod anti-affinity rules."); "" when a node fits.
func (sc *Scheduler) Why(pod *v1.Pod) string {
	why := map[string][]string{}
	node, _, err := sc.schedule(pod, why)
	if err != nil {
		return err.Error()
	}
	if node != "" {
		return ""
	}
	d := framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	for name, reasons := range why {
		d.NodeToStatus.Set(name, fwk.NewStatus(fwk.Unschedulable, reasons...))
	}
	fe := &framework.FitError{Pod: pod, NumAllNodes: len(why), Diagnosis: d}
	return fe.Error()
}

// schedule picks pod's node and counts the ties; with why, it runs every filter on every
// node, cordoned ones too, and records each node's first failing filter's reasons.
func (sc *Scheduler) schedule(pod *v1.Pod, why map[string][]string) (string, int, error) {
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	pu := podUsage(pod)
	if sc.stale {
		sc.open, sc.stale = sc.open[:0], false
		for _, st := range sc.nodes {
			if !st.cordoned {
				sc.open = append(sc.open, st)
			}
		}
	}
	c, err := sc.preFilter(pod)
	if err != nil {
		return "", 0, err
	}
	nodes := sc.open
	if why != nil {
		nodes = sc.nodes
	}
	reject := func(n *nodeState, reasons ...string) {
		if why != nil {
			why[n.node.Name] = reasons
		}
	}
	sc.feasible = sc.feasible[:0]
	for _, on := range nodes {
		n := on.node
		if on.cordoned {
			reject(on, reasonUnschedulable)
			continue
		}
		if _, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, pod.Spec.Tolerations, func(t *v1.Taint) bool {
			return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
		}, false); untolerated {
			reject(on, reasonTaints)
			continue
		}
		if ok, err := affinity.Match(n); err != nil || !ok {
			reject(on, reasonNodeAffinity)
			continue
		}
		if r := on.fits(pu, why != nil); len(r) > 0 {
			reject(on, r...)
			continue
		}
		if r := c.filter(pod, on.info); len(r) > 0 {
			reject(on, r...)
			continue
		}
		sc.feasible = append(sc.feasible, on)
	}
	if len(sc.feasible) == 0 {
		return "", 0, nil
	}
	if c != nil && c.anyway {
		infos := make([]fwk.NodeInfo, len(sc.feasible))
		for i, on := range sc.feasible {
			infos[i] = on.info
		}
		if err := c.score(pod, infos); err != nil {
			return "", 0, err
		}
	}
	// The controller's pods sit on a few nodes: mark those, rather than look every node up.
	owned := sc.owned[ownerKey(pod)]
	for name, n := range owned {
		sc.stateOf(name).owned = n
	}
	defer func() {
		for name := range owned {
			sc.state[name].owned = 0
		}
	}()
	best, bestKey, bestAlloc, ties := "", int64(0), 0.0, 0
	for _, on := range sc.feasible {
		// The spread key: PodTopologySpread's score, higher is better, when the pod has
		// ScheduleAnyway constraints; else fewer pods of the controller.
		k := int64(on.owned)
		if c != nil && c.scores != nil {
			k = -c.scores[on.node.Name]
		}
		a := on.allocated(pu)
		switch {
		case best == "" || k < bestKey || (k == bestKey && a < bestAlloc):
			best, bestKey, bestAlloc, ties = on.node.Name, k, a, 0
		case k == bestKey && a == bestAlloc:
			ties++
		}
	}
	return best, ties, nil
}
