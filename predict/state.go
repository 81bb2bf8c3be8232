package predict

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/kubernetes/pkg/controller"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/kubectl-workload/kubectl-workload/manifest"
)

// State is the current state of a cluster as the API server stores it: workloads, their pods
// and the nodes, for example from `kubectl get deploy,rs,pods -o yaml` or from live get and
// list calls. Objects are already defaulted by the server.
type State struct {
	Deployments  []*apps.Deployment
	ReplicaSets  []*apps.ReplicaSet
	StatefulSets []*apps.StatefulSet
	DaemonSets   []*apps.DaemonSet
	Pods         []*v1.Pod
	Nodes        []*v1.Node
	// ControllerRevisions are the StatefulSets' and DaemonSets' history (kubectl get
	// controllerrevisions): what --undo rolls back to.
	ControllerRevisions []*apps.ControllerRevision
	// Now is when the state was taken. ParseState estimates it as the latest timestamp in the
	// dump; live mode uses the local clock at the read.
	Now time.Time
	// Source names where the state came from, for messages ("dump.yaml", "cluster").
	Source string
}

// ParseState reads the Deployments, ReplicaSets, StatefulSets, DaemonSets, pods and nodes of
// a loaded dump. Other kinds are ignored. An object that does not decode is an error naming its file and document.
func ParseState(set *manifest.Set, source string) (*State, error) {
	s := &State{Source: source}
	for _, o := range set.Objects {
		var target any
		switch o.APIVersion + "/" + o.Kind {
		case "apps/v1/Deployment":
			target = appendNew(&s.Deployments)
		case "apps/v1/ReplicaSet":
			target = appendNew(&s.ReplicaSets)
		case "apps/v1/StatefulSet":
			target = appendNew(&s.StatefulSets)
		case "apps/v1/DaemonSet":
			target = appendNew(&s.DaemonSets)
		case "v1/Pod":
			target = appendNew(&s.Pods)
		case "v1/Node":
			target = appendNew(&s.Nodes)
		case "apps/v1/ControllerRevision":
			target = appendNew(&s.ControllerRevisions)
		default:
			continue
		}
		if err := json.Unmarshal(o.JSON, target); err != nil {
			return nil, fmt.Errorf("%s: document %d: decode %s %s: %w", o.File, o.Document, o.Kind, o.Name, err)
		}
	}
	s.Now = s.latestTimestamp()
	return s, nil
}

// appendNew appends a new zero T to list and returns it, for the decoder to fill.
func appendNew[T any](list *[]*T) *T {
	v := new(T)
	*list = append(*list, v)
	return v
}

// latestTimestamp is the latest creation, condition or deletion time in the state: the dump
// was taken no earlier.
func (s *State) latestTimestamp() time.Time {
	var latest time.Time
	see := func(t metav1.Time) {
		if t.After(latest) {
			latest = t.Time
		}
	}
	for _, d := range s.Deployments {
		see(d.CreationTimestamp)
		for _, c := range d.Status.Conditions {
			see(c.LastUpdateTime)
			see(c.LastTransitionTime)
		}
	}
	for _, rs := range s.ReplicaSets {
		see(rs.CreationTimestamp)
	}
	for _, p := range s.Pods {
		see(p.CreationTimestamp)
		for _, c := range p.Status.Conditions {
			see(c.LastTransitionTime)
		}
	}
	return latest
}

// Deployment returns the Deployment namespace/name of the state, or nil.
func (s *State) Deployment(namespace, name string) *apps.Deployment {
	for _, d := range s.Deployments {
		if d.Name == name && (d.Namespace == namespace || d.Namespace == "" || namespace == "") {
			return d
		}
	}
	return nil
}

// StatefulSet returns the StatefulSet namespace/name of the state, or nil.
func (s *State) StatefulSet(namespace, name string) *apps.StatefulSet {
	for _, o := range s.StatefulSets {
		if o.Name == name && (o.Namespace == namespace || o.Namespace == "" || namespace == "") {
			return o
		}
	}
	return nil
}

// DaemonSet returns the DaemonSet namespace/name of the state, or nil.
func (s *State) DaemonSet(namespace, name string) *apps.DaemonSet {
	for _, o := range s.DaemonSets {
		if o.Name == name && (o.Namespace == namespace || o.Namespace == "" || namespace == "") {
			return o
		}
	}
	return nil
}

// PodsOf returns the pods of the state that owner controls (by UID, or by name in a dump
// without UIDs) or, when none carries a controller reference, that selector matches.
func (s *State) PodsOf(owner metav1.Object, kind string, selector *metav1.LabelSelector) ([]*v1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return nil, fmt.Errorf("%s %s/%s: selector: %w", kind, owner.GetNamespace(), owner.GetName(), err)
	}
	var out []*v1.Pod
	for _, p := range s.Pods {
		if p.Namespace != owner.GetNamespace() && p.Namespace != "" && owner.GetNamespace() != "" {
			continue
		}
		if ref := metav1.GetControllerOf(p); ref != nil {
			if (owner.GetUID() != "" && ref.UID == owner.GetUID()) || (owner.GetUID() == "" && ref.Kind == kind && ref.Name == owner.GetName()) {
				out = append(out, p)
			}
			continue
		}
		if sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out, nil
}

// ReplicaSetsOf returns d's ReplicaSets with their pods as a starting state for Simulate:
// those whose controller reference is d (or, in a dump without UIDs, whose labels d's selector
// matches), oldest first. Pods are classified relative to s.Now:
//   - a pod with a deletionTimestamp is Terminating;
//   - a Ready pod is Available once minReadySeconds have passed since it turned Ready, else Ready;
//   - other running or pending pods are NotReady; Succeeded and Failed pods are ignored.
//
// When the state holds no pods at all (a `kubectl get deploy,rs` dump), each ReplicaSet's pods
// are taken from its status counts.
func (s *State) ReplicaSetsOf(d *apps.Deployment) ([]ReplicaSetState, error) {
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s: selector: %w", d.Namespace, d.Name, err)
	}
	var owned []*apps.ReplicaSet
	for _, rs := range s.ReplicaSets {
		if rs.Namespace != d.Namespace && rs.Namespace != "" && d.Namespace != "" {
			continue
		}
		if ref := metav1.GetControllerOf(rs); ref != nil {
			if (d.UID != "" && ref.UID == d.UID) || (d.UID == "" && ref.Kind == "Deployment" && ref.Name == d.Name) {
				owned = append(owned, rs)
			}
			continue
		}
		if selector.Matches(labels.Set(rs.Labels)) && rs.Spec.Replicas != nil {
			owned = append(owned, rs)
		}
	}
	sort.Stable(controller.ReplicaSetsByCreationTimestamp(owned))
	out := make([]ReplicaSetState, 0, len(owned))
	for _, rs := range owned {
		if rs.Spec.Replicas == nil {
			return nil, fmt.Errorf("replica set %s/%s: no spec.replicas", rs.Namespace, rs.Name)
		}
		st := ReplicaSetState{ReplicaSet: rs}
		if len(s.Pods) == 0 {
			st.Pods = podsFromStatus(rs)
		} else {
			st.Pods = s.podsOf(rs)
		}
		out = append(out, st)
	}
	return out, nil
}

// podsFromStatus synthesizes pod groups from a ReplicaSet's status counts.
func podsFromStatus(rs *apps.ReplicaSet) []PodGroup {
	st := rs.Status
	var g []PodGroup
	add := func(phase PodPhase, n int32) {
		if n > 0 {
			g = append(g, PodGroup{Phase: phase, Count: n})
		}
	}
	add(PodAvailable, st.AvailableReplicas)
	add(PodReady, st.ReadyReplicas-st.AvailableReplicas)
	add(PodNotReady, st.Replicas-max(st.ReadyReplicas, st.AvailableReplicas))
	if st.TerminatingReplicas != nil {
		add(PodTerminating, *st.TerminatingReplicas)
	}
	return g
}

// podsOf groups the pods rs controls by phase.
func (s *State) podsOf(rs *apps.ReplicaSet) []PodGroup {
	counts := map[PodPhase]int32{}
	minReady := time.Duration(rs.Spec.MinReadySeconds) * time.Second
	for _, p := range s.Pods {
		ref := metav1.GetControllerOf(p)
		if ref == nil || p.Namespace != rs.Namespace {
			continue
		}
		if !((rs.UID != "" && ref.UID == rs.UID) || (rs.UID == "" && ref.Kind == "ReplicaSet" && ref.Name == rs.Name)) {
			continue
		}
		switch {
		case p.DeletionTimestamp != nil:
			counts[PodTerminating]++
		case p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed:
		case podReadySince(p) != nil:
			if minReady == 0 || !podReadySince(p).Add(minReady).After(s.Now) {
				counts[PodAvailable]++
			} else {
				counts[PodReady]++
			}
		case podStuck(p):
			counts[PodStuck]++
		default:
			counts[PodNotReady]++
		}
	}
	var g []PodGroup
	for _, phase := range []PodPhase{PodAvailable, PodReady, PodNotReady, PodStuck, PodTerminating} {
		if counts[phase] > 0 {
			g = append(g, PodGroup{Phase: phase, Count: counts[phase]})
		}
	}
	return g
}

// stuckReasons are container waiting reasons from which a pod does not recover on its own.
var stuckReasons = map[string]bool{
	"ImagePullBackOff": true, "ErrImagePull": true, "InvalidImageName": true, "ErrImageNeverPull": true,
	"CrashLoopBackOff": true, "CreateContainerConfigError": true, "CreateContainerError": true,
}

// podStuck reports whether a pod that is not Ready will stay so: the scheduler found no node
// for it, or a container waits for a reason that needs a new template (a bad image, a crash
// loop, a missing ConfigMap or Secret).
func podStuck(p *v1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable {
			return true
		}
	}
	for _, list := range [][]v1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range list {
			if cs.State.Waiting != nil && stuckReasons[cs.State.Waiting.Reason] {
				return true
			}
		}
	}
	return false
}

// podReadySince is when p turned Ready, or nil when it is not Ready.
func podReadySince(p *v1.Pod) *time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady && c.Status == v1.ConditionTrue {
			t := c.LastTransitionTime.Time
			return &t
		}
	}
	return nil
}

// ReadyAfterFromPods estimates how long pods of rs took from creation to Ready, as the median
// over its Ready pods; ok is false when none is Ready. Live predictions use it instead of the
// probe-derived default.
func (s *State) ReadyAfterFromPods(rs *apps.ReplicaSet) (time.Duration, int, bool) {
	var ds []time.Duration
	for _, p := range s.Pods {
		ref := metav1.GetControllerOf(p)
		if ref == nil || ref.UID != rs.UID || rs.UID == "" {
			continue
		}
		if t := podReadySince(p); t != nil && p.DeletionTimestamp == nil {
			ds = append(ds, t.Sub(p.CreationTimestamp.Time))
		}
	}
	if len(ds) == 0 {
		return 0, 0, false
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], len(ds), true
}

// CurrentReplicaSet is the ReplicaSet of states whose template equals d's, or nil.
func CurrentReplicaSet(d *apps.Deployment, states []ReplicaSetState) *apps.ReplicaSet {
	rsList := make([]*apps.ReplicaSet, 0, len(states))
	for _, st := range states {
		rsList = append(rsList, st.ReplicaSet)
	}
	return deploymentutil.FindNewReplicaSet(d, rsList)
}
