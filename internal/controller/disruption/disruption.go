// Package disruption mirrors the disruption controller (pkg/controller/disruption,
// disruption.go): the status of a PodDisruptionBudget (expected pods from the controllers'
// scale, healthy pods, disruptions allowed) that the Eviction API (internal/registry/eviction)
// decides on. kubectl drain's loop over a simulated cluster is internal/kubectl/drain.
package disruption

import (
	"fmt"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	pdbhelper "k8s.io/component-helpers/apps/poddisruptionbudget"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	upstream "k8s.io/kubernetes/pkg/controller/disruption"
)

// Scales answers the disruption controller's finders (getPodReplicaSet, getPodDeployment,
// getPodStatefulSet, getPodReplicationController): the scale of the controller a pod's
// controllerRef names. An empty key with a nil error is "found by no finder"; an error is
// what getScaleController answers for a kind without a scale subresource. key identifies the
// controller found (upstream keys by its UID; files written by hand often have none).
type Scales interface {
	ScaleOf(namespace string, ref *metav1.OwnerReference) (key string, scale int32, err error)
}

// ExpectedPodCount mirrors DisruptionController.getExpectedPodCount and getExpectedScale:
// with maxUnavailable, or minAvailable as a percentage, the expected count is the sum of the
// scales of the pods' controllers (each counted once; pods without a controller are
// unmanaged and left out); with minAvailable as a number, it is the number of pods selected.
//
// Example: a Deployment of 4 replicas, maxUnavailable 25%: expected 4, maxUnavailable
// ceil(4 × 0.25) = 1 (GetScaledValueFromIntOrPercent rounds up), desiredHealthy 4 − 1 = 3.
// minAvailable 50% of 3 replicas: desiredHealthy ceil(1.5) = 2.
func ExpectedPodCount(pdb *policy.PodDisruptionBudget, pods []*v1.Pod, scales Scales) (expectedCount, desiredHealthy int32, unmanaged []string, err error) {
	if pdb.Spec.MaxUnavailable != nil {
		if expectedCount, unmanaged, err = expectedScale(pods, scales); err != nil {
			return
		}
		var maxUnavailable int
		if maxUnavailable, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expectedCount), true); err != nil {
			return
		}
		desiredHealthy = max(expectedCount-int32(maxUnavailable), 0)
	} else if pdb.Spec.MinAvailable != nil {
		switch pdb.Spec.MinAvailable.Type {
		case intstr.Int:
			desiredHealthy = pdb.Spec.MinAvailable.IntVal
			expectedCount = int32(len(pods))
		case intstr.String:
			if expectedCount, unmanaged, err = expectedScale(pods, scales); err != nil {
				return
			}
			var minAvailable int
			if minAvailable, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expectedCount), true); err != nil {
				return
			}
			desiredHealthy = int32(minAvailable)
		}
	}
	return
}

// expectedScale mirrors DisruptionController.getExpectedScale.
func expectedScale(pods []*v1.Pod, scales Scales) (int32, []string, error) {
	controllerScale := map[string]int32{}
	var unmanaged []string
	for _, pod := range pods {
		ref := metav1.GetControllerOf(pod)
		if ref == nil {
			unmanaged = append(unmanaged, pod.Name)
			continue
		}
		key, scale, err := scales.ScaleOf(pod.Namespace, ref)
		if err != nil {
			return 0, nil, err
		}
		if key == "" {
			return 0, nil, fmt.Errorf("found no controllers for pod %q", pod.Name)
		}
		controllerScale[key] = scale
	}
	var expected int32
	for _, n := range controllerScale {
		expected += n
	}
	return expected, unmanaged, nil
}

// CountHealthyPods mirrors countHealthyPods: Ready pods that are not being deleted and not
// in disruptedPods for less than DeletionTimeout (2m, upstream's constant).
func CountHealthyPods(pods []*v1.Pod, disruptedPods map[string]metav1.Time, now time.Time) int32 {
	var healthy int32
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if t, found := disruptedPods[pod.Name]; found && t.Add(upstream.DeletionTimeout).After(now) {
			continue
		}
		if podutil.IsPodReady(pod) {
			healthy++
		}
	}
	return healthy
}

// buildDisruptedPodMap mirrors DisruptionController.buildDisruptedPodMap: an entry stays
// while its pod exists, is not yet being deleted, and DeletionTimeout has not passed.
func buildDisruptedPodMap(pods []*v1.Pod, pdb *policy.PodDisruptionBudget, now time.Time) map[string]metav1.Time {
	result := map[string]metav1.Time{}
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		t, found := pdb.Status.DisruptedPods[pod.Name]
		if !found || t.Add(upstream.DeletionTimeout).Before(now) {
			continue
		}
		result[pod.Name] = t
	}
	return result
}

// PodsForBudget mirrors DisruptionController.getPodsForPdb: the pods of the budget's
// namespace that its selector matches (an invalid selector matches none).
func PodsForBudget(pdb *policy.PodDisruptionBudget, pods []*v1.Pod) []*v1.Pod {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return nil
	}
	var out []*v1.Pod
	for _, p := range pods {
		if p.Namespace == pdb.Namespace && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// Sync mirrors DisruptionController.trySync and updatePdbStatus (failSafe on an error): it
// writes pdb's status from pods at now.
//
// Example: minAvailable 2 over 3 Ready pods: currentHealthy 3, desiredHealthy 2,
// disruptionsAllowed 3 − 2 = 1. When one is evicted (deleting), currentHealthy 2, allowed 0.
func Sync(pdb *policy.PodDisruptionBudget, allPods []*v1.Pod, scales Scales, now time.Time) {
	pods := PodsForBudget(pdb, allPods)
	expectedCount, desiredHealthy, _, err := ExpectedPodCount(pdb, pods, scales)
	if err != nil {
		// failSafe: no disruptions, and the reason in the DisruptionAllowed condition.
		pdb.Status.DisruptionsAllowed = 0
		apimeta.SetStatusCondition(&pdb.Status.Conditions, metav1.Condition{
			Type: policy.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
			Reason: policy.SyncFailedReason, Message: err.Error(),
			ObservedGeneration: pdb.Status.ObservedGeneration, LastTransitionTime: metav1.NewTime(now),
		})
		return
	}
	disrupted := buildDisruptedPodMap(pods, pdb, now)
	currentHealthy := CountHealthyPods(pods, disrupted, now)
	allowed := currentHealthy - desiredHealthy
	if expectedCount <= 0 || allowed <= 0 {
		allowed = 0
	}
	pdb.Status = policy.PodDisruptionBudgetStatus{
		CurrentHealthy: currentHealthy, DesiredHealthy: desiredHealthy, ExpectedPods: expectedCount,
		DisruptionsAllowed: allowed, DisruptedPods: disrupted, ObservedGeneration: pdb.Generation,
		Conditions: pdb.Status.Conditions,
	}
	// A sync that succeeds replaces a SyncFailed condition, as updatePdbStatus does.
	apimeta.RemoveStatusCondition(&pdb.Status.Conditions, policy.DisruptionAllowedCondition)
	pdbhelper.UpdateDisruptionAllowedCondition(pdb)
}

// StateScales finds controllers' scales among a cluster's objects, as the disruption
// controller's finders do: a ReplicaSet owned by a Deployment answers with the Deployment's
// scale, DaemonSets and Jobs have no scale subresource.
type StateScales struct {
	Deployments            []*apps.Deployment
	ReplicaSets            []*apps.ReplicaSet
	StatefulSets           []*apps.StatefulSet
	ReplicationControllers []*v1.ReplicationController
}

// ScaleOf implements Scales.
func (s StateScales) ScaleOf(namespace string, ref *metav1.OwnerReference) (string, int32, error) {
	key := func(kind string, m metav1.Object) string { return kind + "/" + m.GetName() + "/" + string(m.GetUID()) }
	repl := func(p *int32) int32 {
		if p == nil {
			return 1
		}
		return *p
	}
	switch ref.Kind {
	case "ReplicaSet":
		for _, rs := range s.ReplicaSets {
			if rs.Namespace != namespace || rs.Name != ref.Name || rs.UID != ref.UID {
				continue
			}
			if owner := metav1.GetControllerOf(rs); owner != nil && owner.Kind == "Deployment" {
				for _, d := range s.Deployments {
					if d.Namespace == namespace && d.Name == owner.Name && d.UID == owner.UID {
						return key("Deployment", d), repl(d.Spec.Replicas), nil
					}
				}
				return "", 0, nil
			}
			return key("ReplicaSet", rs), repl(rs.Spec.Replicas), nil
		}
	case "StatefulSet":
		for _, ss := range s.StatefulSets {
			if ss.Namespace == namespace && ss.Name == ref.Name && ss.UID == ref.UID {
				return key("StatefulSet", ss), repl(ss.Spec.Replicas), nil
			}
		}
	case "ReplicationController":
		for _, rc := range s.ReplicationControllers {
			if rc.Namespace == namespace && rc.Name == ref.Name && rc.UID == ref.UID {
				return key("ReplicationController", rc), repl(rc.Spec.Replicas), nil
			}
		}
	case "DaemonSet":
		return "", 0, fmt.Errorf("daemonsets.apps does not implement the scale subresource")
	case "Job":
		return "", 0, fmt.Errorf("jobs.batch does not implement the scale subresource")
	}
	return "", 0, nil
}

// indexedScales answers ScaleOf as StateScales does, from maps built once: a drain of many
// nodes asks for every pod's scale at each sync.
type indexedScales struct {
	byRef map[string]scaleAnswer
}

type scaleAnswer struct {
	key   string
	scale int32
}

func refKey(namespace, kind, name string, uid types.UID) string {
	// Concatenated, not formatted: the disruption controller's sync looks a key up for every
	// budget sync (fmt.Sprintf was a tenth of a 500-node upgrade's plan).
	return namespace + "/" + kind + "/" + name + "/" + string(uid)
}

// Indexed returns s's answers, indexed.
func (s StateScales) Indexed() Scales {
	x := indexedScales{byRef: map[string]scaleAnswer{}}
	for _, rs := range s.ReplicaSets {
		ref := &metav1.OwnerReference{Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID}
		if _, seen := x.byRef[refKey(rs.Namespace, "ReplicaSet", rs.Name, rs.UID)]; seen {
			continue // the first of the list answers, as StateScales' scan does
		}
		k, n, _ := s.ScaleOf(rs.Namespace, ref)
		x.byRef[refKey(rs.Namespace, "ReplicaSet", rs.Name, rs.UID)] = scaleAnswer{k, n}
	}
	for _, ss := range s.StatefulSets {
		k, n, _ := s.ScaleOf(ss.Namespace, &metav1.OwnerReference{Kind: "StatefulSet", Name: ss.Name, UID: ss.UID})
		if _, seen := x.byRef[refKey(ss.Namespace, "StatefulSet", ss.Name, ss.UID)]; !seen {
			x.byRef[refKey(ss.Namespace, "StatefulSet", ss.Name, ss.UID)] = scaleAnswer{k, n}
		}
	}
	for _, rc := range s.ReplicationControllers {
		k, n, _ := s.ScaleOf(rc.Namespace, &metav1.OwnerReference{Kind: "ReplicationController", Name: rc.Name, UID: rc.UID})
		if _, seen := x.byRef[refKey(rc.Namespace, "ReplicationController", rc.Name, rc.UID)]; !seen {
			x.byRef[refKey(rc.Namespace, "ReplicationController", rc.Name, rc.UID)] = scaleAnswer{k, n}
		}
	}
	return x
}

// ScaleOf implements Scales.
func (x indexedScales) ScaleOf(namespace string, ref *metav1.OwnerReference) (string, int32, error) {
	switch ref.Kind {
	case "DaemonSet", "Job":
		return StateScales{}.ScaleOf(namespace, ref)
	}
	a := x.byRef[refKey(namespace, ref.Kind, ref.Name, ref.UID)]
	return a.key, a.scale, nil
}
