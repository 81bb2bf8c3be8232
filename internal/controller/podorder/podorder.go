// Package podorder predicts which pods a ReplicaSet (or ReplicationController) deletes first
// when it scales down, by the ReplicaSet controller's own ranking (getPodsToDelete in
// pkg/controller/replicaset, sorting controller.ActivePodsWithRanks, k8s.io/kubernetes
// v1.37.1). It never prints and never reads the real clock.
package podorder

import (
	"fmt"
	"math"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	"k8s.io/kubernetes/pkg/apis/core/helper"
	"k8s.io/kubernetes/pkg/controller"
	"sigs.k8s.io/yaml"
)

// Rule names, in the order ActivePodsWithRanks.Less applies them.
const (
	RuleUnassigned   = "unassigned"
	RulePhase        = "phase"
	RuleNotReady     = "not-ready"
	RuleDeletionCost = "pod-deletion-cost"
	RuleColocated    = "colocated"
	RuleReadyTime    = "ready-time"
	RuleRestarts     = "restarts"
	RuleCreated      = "creation-time"
	// RuleTie means no rule separates the two pods: upstream's sort.Sort is not stable, so
	// their order follows the informer's list order, which is arbitrary.
	RuleTie = "tie"
)

// Ranked is one pod in deletion order.
type Ranked struct {
	Pod *v1.Pod
	// Colocated is the number of active pods of the same owner on the pod's node (the rank).
	Colocated int
	// Rule is the rule that puts this pod before the next one in the order ("" for the last
	// pod), and Reason explains it, e.g. "not Ready (web-7 is Ready)".
	Rule   string
	Reason string
	// Random is true when the order between this pod and the next is not decided by anything a
	// user controls: timestamps in the same power-of-two age bucket are ordered by UID (random
	// per pod), and a full tie leaves the order to the informer's list.
	Random bool
}

// Result is the deletion order of a set of pods.
type Result struct {
	// Order lists the active pods, the first to be deleted first.
	Order []Ranked
	// Skipped names the pods the controller does not count: terminating, Failed or Succeeded
	// (controller.IsPodActive is false). They are never chosen for a scale-down.
	Skipped []string
}

// Order ranks pods as getPodsToDelete does: active pods only, ranked by
// controller.ActivePodsWithRanks with each pod's rank the number of active pods in related on the
// same node (getPodsRankedByRelatedPodsOnSameNode), and now as the reference for the
// logarithmic timestamp comparisons. related is every pod of the owning Deployment's
// ReplicaSets (getIndirectlyRelatedPods); nil means pods themselves. Input order does not
// matter: pods are first sorted by namespace and name, and the sort is stable, so the result is
// deterministic; Ranked.Random marks where the real controller's order is not.
func Order(pods, related []*v1.Pod, now time.Time) Result {
	if related == nil {
		related = pods
	}
	var res Result
	active := []*v1.Pod{}
	for _, p := range pods {
		if controller.IsPodActive(p) {
			active = append(active, p)
		} else {
			res.Skipped = append(res.Skipped, p.Name)
		}
	}
	sort.Strings(res.Skipped)
	sort.SliceStable(active, func(i, j int) bool {
		if active[i].Namespace != active[j].Namespace {
			return active[i].Namespace < active[j].Namespace
		}
		return active[i].Name < active[j].Name
	})
	podsOnNode := map[string]int{}
	for _, p := range related {
		if controller.IsPodActive(p) {
			podsOnNode[p.Spec.NodeName]++
		}
	}
	ranks := make([]int, len(active))
	for i, p := range active {
		ranks[i] = podsOnNode[p.Spec.NodeName]
	}
	ranked := controller.ActivePodsWithRanks{Pods: active, Rank: ranks, Now: metav1.NewTime(now)}
	sort.Stable(ranked)
	for i, p := range ranked.Pods {
		r := Ranked{Pod: p, Colocated: ranked.Rank[i]}
		if i+1 < len(ranked.Pods) {
			r.Rule, r.Reason, r.Random = explain(p, ranked.Pods[i+1], ranked.Rank[i], ranked.Rank[i+1], now)
		}
		res.Order = append(res.Order, r)
	}
	return res
}

// ScaleDown is Order cut to the n pods a scale-down by n deletes. When n covers every active
// pod the controller does not sort at all (getPodsToDelete), so every pod goes.
func ScaleDown(pods, related []*v1.Pod, now time.Time, n int) Result {
	res := Order(pods, related, now)
	if n < len(res.Order) {
		res.Order = res.Order[:max(n, 0)]
		if n > 0 {
			last := &res.Order[n-1]
			last.Rule, last.Reason, last.Random = "", "", false
		}
	}
	return res
}

var phaseOrdinal = map[v1.PodPhase]int{v1.PodPending: 0, v1.PodUnknown: 1, v1.PodRunning: 2}

// explain finds the first rule of ActivePodsWithRanks.Less that puts a before b, mirroring its
// order: unassigned, phase, readiness, pod-deletion-cost, colocation, ready time (log-scaled),
// restarts, creation time (log-scaled).
func explain(a, b *v1.Pod, rankA, rankB int, now time.Time) (rule, reason string, random bool) {
	if a.Spec.NodeName != b.Spec.NodeName && (a.Spec.NodeName == "" || b.Spec.NodeName == "") {
		return RuleUnassigned, fmt.Sprintf("not scheduled to a node (%s is on %s)", b.Name, b.Spec.NodeName), false
	}
	if phaseOrdinal[a.Status.Phase] != phaseOrdinal[b.Status.Phase] {
		return RulePhase, fmt.Sprintf("phase %s before %s (%s)", phaseName(a), phaseName(b), b.Name), false
	}
	if podutil.IsPodReady(a) != podutil.IsPodReady(b) {
		return RuleNotReady, fmt.Sprintf("not Ready (%s is Ready)", b.Name), false
	}
	ca, _ := helper.GetDeletionCostFromPodAnnotations(a.Annotations)
	cb, _ := helper.GetDeletionCostFromPodAnnotations(b.Annotations)
	if ca != cb {
		return RuleDeletionCost, fmt.Sprintf("pod-deletion-cost %d < %d (%s)", ca, cb, b.Name), false
	}
	if rankA != rankB {
		return RuleColocated, fmt.Sprintf("%d related pods on its node %s, %d on %s's", rankA, a.Spec.NodeName, rankB, b.Name), false
	}
	if podutil.IsPodReady(a) && podutil.IsPodReady(b) {
		ta, tb := readyTime(a), readyTime(b)
		if !ta.Equal(tb) {
			if ta.IsZero() || tb.IsZero() {
				return RuleReadyTime, fmt.Sprintf("no Ready transition time recorded (%s has one)", b.Name), false
			}
			ra, rb := logRank(ta, now), logRank(tb, now)
			if ra == rb {
				return RuleReadyTime, fmt.Sprintf("Ready for %s, %s for %s: the same power-of-two bucket, so upstream orders them by UID (random)",
					age(ta, now), b.Name, age(tb, now)), true
			}
			return RuleReadyTime, fmt.Sprintf("Ready for %s, %s for %s (shorter goes first)", age(ta, now), b.Name, age(tb, now)), false
		}
	}
	if ra, rb := restarts(a), restarts(b); ra != rb {
		return RuleRestarts, fmt.Sprintf("%d container restarts, %s has %d", ra, b.Name, rb), false
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
		if ta.IsZero() || tb.IsZero() {
			return RuleCreated, fmt.Sprintf("no creation time (%s has one)", b.Name), false
		}
		if logRank(ta, now) == logRank(tb, now) {
			return RuleCreated, fmt.Sprintf("created %s ago, %s %s ago: the same power-of-two bucket, so upstream orders them by UID (random)",
				age(ta, now), b.Name, age(tb, now)), true
		}
		return RuleCreated, fmt.Sprintf("created %s ago, %s %s ago (newer goes first)", age(ta, now), b.Name, age(tb, now)), false
	}
	return RuleTie, fmt.Sprintf("no rule separates it from %s: the controller's order between them is arbitrary", b.Name), true
}

func phaseName(p *v1.Pod) string {
	if p.Status.Phase == "" {
		return "unset"
	}
	return string(p.Status.Phase)
}

// readyTime mirrors podReadyTime: the Ready condition's last transition time.
func readyTime(p *v1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady && c.Status == v1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// logRank mirrors one side of logarithmicRankDiff: ⌊log₂(now − t in nanoseconds)⌋, or −1 for a
// time not in the past.
//
// Example: 1 minute ago is 6e10 ns, log₂ ≈ 35.8 → 35; 1.5 minutes is also 35; 2 minutes is 36.
func logRank(t, now time.Time) int64 {
	d := now.Sub(t)
	if d <= 0 {
		return -1
	}
	return int64(math.Log2(float64(d)))
}

func age(t, now time.Time) string {
	return now.Sub(t).Round(time.Second).String()
}

// restarts mirrors maxContainerRestarts' regular containers.
func restarts(p *v1.Pod) int32 {
	n := int32(0)
	for _, c := range p.Status.ContainerStatuses {
		n = max(n, c.RestartCount)
	}
	return n
}

// ParsePods reads pods from a `kubectl get pods -o yaml` (or JSON) dump: a v1 List or PodList,
// or a single Pod.
func ParsePods(data []byte) ([]*v1.Pod, error) {
	jsonData, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("pods: %w", err)
	}
	var probe metav1.TypeMeta
	if err := yaml.Unmarshal(jsonData, &probe); err != nil {
		return nil, fmt.Errorf("pods: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("pods: %w", err)
	}
	decoder := serializer.NewCodecFactory(scheme).UniversalDeserializer()
	switch probe.Kind {
	case "Pod":
		p := &v1.Pod{}
		if _, _, err := decoder.Decode(jsonData, nil, p); err != nil {
			return nil, fmt.Errorf("pods: decode pod: %w", err)
		}
		return []*v1.Pod{p}, nil
	case "List", "PodList":
		var list struct {
			Items []runtime.RawExtension `json:"items"`
		}
		if err := yaml.Unmarshal(jsonData, &list); err != nil {
			return nil, fmt.Errorf("pods: decode list: %w", err)
		}
		pods := make([]*v1.Pod, 0, len(list.Items))
		for i, item := range list.Items {
			p := &v1.Pod{}
			if err := yaml.Unmarshal(item.Raw, p); err != nil {
				return nil, fmt.Errorf("pods: item %d: %w", i, err)
			}
			if p.Kind != "" && p.Kind != "Pod" {
				return nil, fmt.Errorf("pods: item %d: kind %s, want Pod", i, p.Kind)
			}
			pods = append(pods, p)
		}
		return pods, nil
	}
	return nil, fmt.Errorf("pods: kind %q, want Pod, PodList or List", probe.Kind)
}
