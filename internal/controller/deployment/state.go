package deployment

import (
	"fmt"
	"sort"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/kubernetes/pkg/controller"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// ReplicaSetsOf returns d's ReplicaSets with their pods as a starting state for Simulate:
// those whose controller reference is d (or, in a dump without UIDs, whose labels d's selector
// matches), oldest first. Pods are classified relative to s.Now:
//   - a pod with a deletionTimestamp is Terminating;
//   - a Ready pod is Available once minReadySeconds have passed since it turned Ready, else Ready;
//   - other running or pending pods are NotReady; Succeeded and Failed pods are ignored.
//
// When the state holds no pods at all (a `kubectl get deploy,rs` dump), each ReplicaSet's pods
// are taken from its status counts.
func ReplicaSetsOf(s *kernel.State, d *apps.Deployment) ([]ReplicaSetState, error) {
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
			st.Pods = podsOf(s, rs)
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
func podsOf(s *kernel.State, rs *apps.ReplicaSet) []PodGroup {
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
func ReadyAfterFromPods(s *kernel.State, rs *apps.ReplicaSet) (time.Duration, int, bool) {
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
