package podorder

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

type podOpt func(*v1.Pod)

func newPod(name string, opts ...podOpt) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(now.Add(-10 * time.Hour))},
		Spec: v1.PodSpec{NodeName: "n1"},
		Status: v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{
			{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-10 * time.Hour))}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func node(n string) podOpt        { return func(p *v1.Pod) { p.Spec.NodeName = n } }
func phase(ph v1.PodPhase) podOpt { return func(p *v1.Pod) { p.Status.Phase = ph } }
func notReady() podOpt            { return func(p *v1.Pod) { p.Status.Conditions[0].Status = v1.ConditionFalse } }
func readyAgo(d time.Duration) podOpt {
	return func(p *v1.Pod) { p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(now.Add(-d)) }
}
func createdAgo(d time.Duration) podOpt {
	return func(p *v1.Pod) { p.CreationTimestamp = metav1.NewTime(now.Add(-d)) }
}
func cost(c string) podOpt {
	return func(p *v1.Pod) {
		p.Annotations = map[string]string{"controller.kubernetes.io/pod-deletion-cost": c}
	}
}
func restartCount(n int32) podOpt {
	return func(p *v1.Pod) { p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", RestartCount: n}} }
}
func deleting() podOpt {
	return func(p *v1.Pod) { t := metav1.NewTime(now); p.DeletionTimestamp = &t }
}

func names(r Result) []string {
	var out []string
	for _, x := range r.Order {
		out = append(out, x.Pod.Name)
	}
	return out
}

func TestOrder(t *testing.T) {
	tests := []struct {
		name    string
		pods    []*v1.Pod
		want    []string
		rule    string // rule between the first and second pod
		random  bool
		skipped []string
	}{
		{
			name: "unassigned first",
			pods: []*v1.Pod{newPod("a"), newPod("b", node(""), phase(v1.PodPending))},
			want: []string{"b", "a"}, rule: RuleUnassigned,
		},
		{
			name: "Pending before Unknown before Running",
			pods: []*v1.Pod{newPod("run"), newPod("unk", phase(v1.PodUnknown)), newPod("pend", phase(v1.PodPending))},
			want: []string{"pend", "unk", "run"}, rule: RulePhase,
		},
		{
			name: "not ready before ready",
			pods: []*v1.Pod{newPod("ready"), newPod("notready", notReady())},
			want: []string{"notready", "ready"}, rule: RuleNotReady,
		},
		{
			name: "lower pod-deletion-cost first",
			pods: []*v1.Pod{newPod("expensive", cost("100")), newPod("cheap", cost("-5")), newPod("plain")},
			want: []string{"cheap", "plain", "expensive"}, rule: RuleDeletionCost,
		},
		{
			name: "more colocated pods first",
			pods: []*v1.Pod{newPod("alone", node("n2")), newPod("crowded1", node("n1")), newPod("crowded2", node("n1"))},
			want: []string{"crowded1", "crowded2", "alone"}, rule: RuleTie, random: true,
		},
		{
			name: "ready for shorter first, in different log buckets",
			pods: []*v1.Pod{newPod("old", readyAgo(5*time.Hour)), newPod("young", readyAgo(time.Minute))},
			want: []string{"young", "old"}, rule: RuleReadyTime,
		},
		{
			name: "ready times in the same log bucket are ordered by UID: random",
			pods: []*v1.Pod{newPod("z", readyAgo(70*time.Second)), newPod("y", readyAgo(80*time.Second))},
			want: []string{"y", "z"}, rule: RuleReadyTime, random: true,
		},
		{
			name: "more restarts first",
			pods: []*v1.Pod{newPod("calm"), newPod("crashy", restartCount(7))},
			want: []string{"crashy", "calm"}, rule: RuleRestarts,
		},
		{
			name: "newer first when ready times tie",
			pods: []*v1.Pod{newPod("older", createdAgo(20*time.Hour)), newPod("newer", createdAgo(time.Hour))},
			want: []string{"newer", "older"}, rule: RuleCreated,
		},
		{
			name: "terminating pods are not candidates",
			pods: []*v1.Pod{newPod("a"), newPod("gone", deleting()), newPod("done", phase(v1.PodSucceeded)), newPod("b", notReady())},
			want: []string{"b", "a"}, rule: RuleNotReady,
			skipped: []string{"done", "gone"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Order(tt.pods, nil, now)
			if got := names(r); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("Order = %v, want %v", got, tt.want)
			}
			if r.Order[0].Rule != tt.rule || r.Order[0].Random != tt.random {
				t.Errorf("first rule = %s (random %v, %q), want %s (random %v)", r.Order[0].Rule, r.Order[0].Random, r.Order[0].Reason, tt.rule, tt.random)
			}
			if last := r.Order[len(r.Order)-1]; last.Rule != "" {
				t.Errorf("last pod's rule = %q, want empty", last.Rule)
			}
			if strings.Join(r.Skipped, ",") != strings.Join(tt.skipped, ",") {
				t.Errorf("Skipped = %v, want %v", r.Skipped, tt.skipped)
			}
		})
	}
}

func TestOrderIgnoresInputOrder(t *testing.T) {
	pods := []*v1.Pod{newPod("c"), newPod("a"), newPod("b", readyAgo(time.Minute)), newPod("d", node("n2"))}
	first := strings.Join(names(Order(pods, nil, now)), ",")
	reversed := []*v1.Pod{pods[3], pods[2], pods[1], pods[0]}
	if got := strings.Join(names(Order(reversed, nil, now)), ","); got != first {
		t.Errorf("Order(reversed) = %s, want %s", got, first)
	}
}

func TestRelatedPodsCountTowardColocation(t *testing.T) {
	// The Deployment's other ReplicaSet has two pods on n2: the pod on n2 goes first.
	pods := []*v1.Pod{newPod("on1", node("n1")), newPod("on2", node("n2"))}
	related := append([]*v1.Pod{newPod("other1", node("n2")), newPod("other2", node("n2"))}, pods...)
	r := Order(pods, related, now)
	if got := names(r); strings.Join(got, ",") != "on2,on1" || r.Order[0].Colocated != 3 || r.Order[0].Rule != RuleColocated {
		t.Errorf("Order = %v (%+v), want on2 first with 3 colocated", got, r.Order[0])
	}
}

func TestScaleDown(t *testing.T) {
	pods := []*v1.Pod{newPod("a"), newPod("b", notReady()), newPod("c", phase(v1.PodPending))}
	r := ScaleDown(pods, nil, now, 2)
	if got := names(r); strings.Join(got, ",") != "c,b" {
		t.Errorf("ScaleDown(2) = %v, want [c b]", got)
	}
	if r.Order[1].Rule != "" {
		t.Errorf("last chosen pod's rule = %q, want empty", r.Order[1].Rule)
	}
}

func TestParsePods(t *testing.T) {
	dump := `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: a
  spec:
    nodeName: n1
    containers: [{name: c, image: x}]
  status:
    phase: Running
`
	pods, err := ParsePods([]byte(dump))
	if err != nil || len(pods) != 1 || pods[0].Name != "a" || pods[0].Spec.NodeName != "n1" || pods[0].Status.Phase != v1.PodRunning {
		t.Fatalf("ParsePods = %v, %v", pods, err)
	}
}
