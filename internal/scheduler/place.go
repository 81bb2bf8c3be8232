package scheduler

import (
	"fmt"
	"hash/fnv"
	"maps"
	"sort"
	"strconv"
	"strings"

	apps "k8s.io/api/apps/v1"
	batch "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/controller"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/daemon"
)

// World is the cluster a drain runs in, as the API server stores it: the objects Place makes
// pods for and the scheduler mirror places them among (internal/kubectl/drain drains it).
type World struct {
	Pods                   []*v1.Pod
	Budgets                []*policy.PodDisruptionBudget
	Nodes                  []*v1.Node
	Deployments            []*apps.Deployment
	ReplicaSets            []*apps.ReplicaSet
	StatefulSets           []*apps.StatefulSet
	DaemonSets             []*apps.DaemonSet
	ReplicationControllers []*v1.ReplicationController
	Jobs                   []*batch.Job
}

// Placed is one pod Place made: which workload's controller made it and where the scheduler
// mirror put it ("" when no node fits it: the pod stays Pending).
type Placed struct {
	Pod   string `json:"pod"`
	Owner string `json:"owner"`
	Node  string `json:"node,omitempty"`
	// Ties is how many other nodes scored the same: the real scheduler picks among them at
	// random.
	Ties int `json:"tiedNodes,omitempty"`
	// Reason is, for a Pending pod, why no node fits it, as kube-scheduler says it.
	Reason string `json:"reason,omitempty"`
}

// NodeShape is the allocatable, labels and taints of nodes a drain is told about by name or
// count (--nodes): zero quantities are not listed (no limit).
type NodeShape struct {
	CPU, Memory resource.Quantity
	Pods        int64
	Labels      map[string]string
	Taints      []v1.Taint
}

// ShapedNodes makes Ready nodes of shape, named names, with the kubernetes.io/hostname,
// kubernetes.io/os and kubernetes.io/arch labels a kubelet sets.
func ShapedNodes(names []string, shape NodeShape) []*v1.Node {
	nodes := make([]*v1.Node, 0, len(names))
	for _, name := range names {
		labels := map[string]string{v1.LabelHostname: name, v1.LabelOSStable: "linux", v1.LabelArchStable: "amd64"}
		maps.Copy(labels, shape.Labels)
		alloc := v1.ResourceList{}
		if !shape.CPU.IsZero() {
			alloc[v1.ResourceCPU] = shape.CPU
		}
		if !shape.Memory.IsZero() {
			alloc[v1.ResourceMemory] = shape.Memory
		}
		if shape.Pods > 0 {
			alloc[v1.ResourcePods] = *resource.NewQuantity(shape.Pods, resource.DecimalSI)
		}
		nodes = append(nodes, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec:       v1.NodeSpec{Taints: append([]v1.Taint(nil), shape.Taints...)},
			Status: v1.NodeStatus{Capacity: alloc, Allocatable: alloc,
				Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}},
		})
	}
	return nodes
}

// suffixAlphabet is the alphabet of generated name suffixes (utilrand.String's).
const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// suffix is a stable 5-character stand-in for the API server's random generateName suffix.
func suffix(parts ...string) string {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	n := h.Sum64()
	b := make([]byte, 5)
	for i := range b {
		b[i] = suffixAlphabet[n%uint64(len(suffixAlphabet))]
		n /= uint64(len(suffixAlphabet))
	}
	return string(b)
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

func controllerRef(kind, apiVersion string, m metav1.Object) metav1.OwnerReference {
	t := true
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: m.GetName(), UID: m.GetUID(), Controller: &t, BlockOwnerDeletion: &t}
}

// owns reports whether ref names owner (same kind and name; the same UID when both have one).
func owns(ref *metav1.OwnerReference, kind string, owner metav1.Object) bool {
	return ref != nil && ref.Kind == kind && ref.Name == owner.GetName() &&
		(ref.UID == "" || owner.GetUID() == "" || ref.UID == owner.GetUID())
}

// placer makes pods and places them.
type placer struct {
	w      *World
	sched  *Scheduler
	placed []Placed
	// has counts the pods already in w by controller (namespace/Kind/name).
	has map[string]int
}

// Place makes the pods the controllers would have made for every workload of w that has no
// pod in w (a Deployment with no ReplicaSet gets one, named as the Deployment controller
// names it: name-ComputeHash(template); ReplicaSets, ReplicationControllers and StatefulSets
// get their replicas, a DaemonSet one pod on each node where NodeShouldRunDaemonPod says it
// runs, an unfinished Job its parallelism) and places them with the scheduler mirror on
// w.Nodes, in the order of the input, as the cluster would have: the DaemonSets' pods first
// (bound to their node), then each workload's in turn. The pods are Running and Ready, or
// Pending when no node fits them. Names carry stable suffixes in place of the API server's
// random ones. It returns the pods it made; w gains them (and the ReplicaSets).
func Place(w *World) []Placed {
	pl := &placer{w: w, sched: New(w.Nodes), has: map[string]int{}}
	for _, p := range w.Pods {
		pl.sched.Add(p, 1)
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
			pl.has[p.Namespace+"/"+ref.Kind+"/"+ref.Name]++
		}
	}
	for _, ds := range w.DaemonSets {
		if pl.has[ds.Namespace+"/DaemonSet/"+ds.Name] > 0 {
			continue
		}
		pl.daemonPods(ds, w.Nodes)
	}
	for _, d := range w.Deployments {
		if d.Spec.Paused && replicas(d.Spec.Replicas) == 0 {
			continue
		}
		found := false
		for _, rs := range w.ReplicaSets {
			if rs.Namespace == d.Namespace && owns(metav1.GetControllerOfNoCopy(rs), "Deployment", d) {
				found = true
			}
		}
		if found {
			continue
		}
		hash := controller.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
		rs := &apps.ReplicaSet{
			TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
			ObjectMeta: metav1.ObjectMeta{Name: d.Name + "-" + hash, Namespace: d.Namespace,
				Labels:          withLabel(d.Spec.Template.Labels, apps.DefaultDeploymentUniqueLabelKey, hash),
				OwnerReferences: []metav1.OwnerReference{controllerRef("Deployment", "apps/v1", d)}},
			Spec: apps.ReplicaSetSpec{Replicas: ptrTo(replicas(d.Spec.Replicas)), MinReadySeconds: d.Spec.MinReadySeconds,
				Selector: d.Spec.Selector.DeepCopy(), Template: *d.Spec.Template.DeepCopy()},
		}
		if d.UID != "" {
			rs.UID = types.UID(string(d.UID) + "-" + hash)
		}
		rs.Spec.Template.Labels = withLabel(rs.Spec.Template.Labels, apps.DefaultDeploymentUniqueLabelKey, hash)
		if rs.Spec.Selector != nil {
			rs.Spec.Selector.MatchLabels = withLabel(rs.Spec.Selector.MatchLabels, apps.DefaultDeploymentUniqueLabelKey, hash)
		}
		w.ReplicaSets = append(w.ReplicaSets, rs)
	}
	for _, rs := range w.ReplicaSets {
		if pl.has[rs.Namespace+"/ReplicaSet/"+rs.Name] > 0 {
			continue
		}
		for i := range replicas(rs.Spec.Replicas) {
			pod := pl.pod(&rs.Spec.Template, rs.Namespace, rs.Name+"-"+suffix(rs.Namespace, rs.Name, strconv.Itoa(int(i))), controllerRef("ReplicaSet", "apps/v1", rs))
			pl.bind(pod, "replicaset/"+rs.Name)
		}
	}
	for _, rc := range w.ReplicationControllers {
		if pl.has[rc.Namespace+"/ReplicationController/"+rc.Name] > 0 || rc.Spec.Template == nil {
			continue
		}
		for i := range replicas(rc.Spec.Replicas) {
			pod := pl.pod(rc.Spec.Template, rc.Namespace, rc.Name+"-"+suffix(rc.Namespace, rc.Name, strconv.Itoa(int(i))), controllerRef("ReplicationController", "v1", rc))
			pl.bind(pod, "replicationcontroller/"+rc.Name)
		}
	}
	for _, ss := range w.StatefulSets {
		if pl.has[ss.Namespace+"/StatefulSet/"+ss.Name] > 0 {
			continue
		}
		start := int32(0)
		if ss.Spec.Ordinals != nil {
			start = ss.Spec.Ordinals.Start
		}
		for i := range replicas(ss.Spec.Replicas) {
			name := fmt.Sprintf("%s-%d", ss.Name, start+i)
			pod := pl.pod(&ss.Spec.Template, ss.Namespace, name, controllerRef("StatefulSet", "apps/v1", ss))
			pod.Labels = withLabel(pod.Labels, apps.StatefulSetPodNameLabel, name)
			pl.bind(pod, "statefulset/"+ss.Name)
		}
	}
	for _, j := range w.Jobs {
		if pl.has[j.Namespace+"/Job/"+j.Name] > 0 || jobFinished(j) || (j.Spec.Suspend != nil && *j.Spec.Suspend) {
			continue
		}
		active := replicas(j.Spec.Parallelism)
		if j.Spec.Completions != nil {
			active = min(active, *j.Spec.Completions-j.Status.Succeeded)
		}
		for i := range max(active, 0) {
			name := j.Name + "-" + suffix(j.Namespace, j.Name, strconv.Itoa(int(i)))
			if j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batch.IndexedCompletion {
				name = fmt.Sprintf("%s-%d-%s", j.Name, i, suffix(j.Namespace, j.Name, strconv.Itoa(int(i))))
			}
			pod := pl.pod(&j.Spec.Template, j.Namespace, name, controllerRef("Job", "batch/v1", j))
			pl.bind(pod, "job/"+j.Name)
		}
	}
	return pl.placed
}

// daemonPods makes ds's pod on each of nodes where NodeShouldRunDaemonPod says it runs, bound to
// its node.
func (pl *placer) daemonPods(ds *apps.DaemonSet, nodes []*v1.Node) {
	for _, e := range daemon.Eligible(ds, nodes) {
		if !e.ShouldRun {
			continue
		}
		pod := pl.pod(&ds.Spec.Template, ds.Namespace, ds.Name+"-"+suffix(ds.Namespace, ds.Name, e.Node), controllerRef("DaemonSet", "apps/v1", ds))
		pod.Spec.NodeName = e.Node
		pl.bind(pod, "daemonset/"+ds.Name)
	}
}

// DaemonPods are the pods the DaemonSet controller makes for dss on nodes that join the
// cluster: one on each node where NodeShouldRunDaemonPod says it runs, bound to it, Running
// and Ready, named as Place names them.
func DaemonPods(dss []*apps.DaemonSet, nodes []*v1.Node) []*v1.Pod {
	pl := &placer{w: &World{}, sched: New(nodes), has: map[string]int{}}
	for _, ds := range dss {
		pl.daemonPods(ds, nodes)
	}
	return pl.w.Pods
}

func ptrTo[T any](v T) *T { return &v }

func withLabel(m map[string]string, k, v string) map[string]string {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	out[k] = v
	return out
}

func jobFinished(j *batch.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == batch.JobComplete || c.Type == batch.JobFailed) && c.Status == v1.ConditionTrue {
			return true
		}
	}
	return false
}

// pod makes a pod from a template, as the controllers' pod control does
// (GetPodFromTemplate: the template's labels, annotations and spec, the owner reference).
func (pl *placer) pod(t *v1.PodTemplateSpec, ns, name string, owner metav1.OwnerReference) *v1.Pod {
	pod := &v1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: maps.Clone(t.Labels),
			Annotations: maps.Clone(t.Annotations), OwnerReferences: []metav1.OwnerReference{owner}},
		Spec: *t.Spec.DeepCopy(),
	}
	return pod
}

// bind places pod (the scheduler mirror, unless it names its node) and adds it to the world,
// Running and Ready on its node, or Pending.
func (pl *placer) bind(pod *v1.Pod, owner string) {
	ties, why := 0, ""
	if pod.Spec.NodeName == "" && len(pl.w.Nodes) > 0 {
		pod.Spec.NodeName, ties = pl.sched.ScheduleTies(pod)
		if pod.Spec.NodeName == "" {
			why = pl.sched.Why(pod)
		}
	}
	if pod.Spec.NodeName == "" {
		pod.Status = v1.PodStatus{Phase: v1.PodPending, Conditions: []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable}}}
	} else {
		pod.Status = v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{
			{Type: v1.PodScheduled, Status: v1.ConditionTrue}, {Type: v1.PodReady, Status: v1.ConditionTrue}, {Type: v1.ContainersReady, Status: v1.ConditionTrue}}}
		pl.sched.Add(pod, 1)
	}
	pl.w.Pods = append(pl.w.Pods, pod)
	pl.placed = append(pl.placed, Placed{Pod: pod.Namespace + "/" + pod.Name, Owner: owner, Node: pod.Spec.NodeName, Ties: ties, Reason: why})
}

// PlacedSummary says, for a plan's note, how many pods were made and where they went, by node.
func PlacedSummary(placed []Placed) string {
	byNode := map[string][]string{}
	for _, p := range placed {
		byNode[p.Node] = append(byNode[p.Node], p.Pod)
	}
	nodes := make([]string, 0, len(byNode))
	for n := range byNode {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	var parts []string
	for _, n := range nodes {
		where := n
		if n == "" {
			where = "no node (Pending)"
		}
		parts = append(parts, fmt.Sprintf("%s: %s", where, strings.Join(byNode[n], ", ")))
	}
	return strings.Join(parts, "; ")
}
