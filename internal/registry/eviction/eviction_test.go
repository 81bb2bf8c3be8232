package eviction

import (
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/disruption"
	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

// TestEvict checks the Eviction API's verdicts after the disruption controller's sync.
func TestEvict(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d, rs, pods := testkit.Deployment("web", 3, "n1", "n2", "n3")
	scales := disruption.StateScales{Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs}}
	unready := pods[0].DeepCopy()
	unready.Status.Conditions[0].Status = v1.ConditionFalse
	withUnready := []*v1.Pod{unready, pods[1], pods[2]}
	two, fifty, one, hundred := intstr.FromInt32(2), intstr.FromString("50%"), intstr.FromInt32(1), intstr.FromString("100%")
	alwaysAllow := func(b *policy.PodDisruptionBudget) *policy.PodDisruptionBudget {
		b.Spec.UnhealthyPodEvictionPolicy = testkit.Ptr(policy.AlwaysAllow)
		return b
	}
	daemonPod := testkit.ReadyPod("agent-x", "n1", map[string]string{"app": "web"}, &metav1.OwnerReference{Kind: "DaemonSet", Name: "agent", Controller: testkit.Ptr(true)})
	tests := []struct {
		name        string
		budgets     []*policy.PodDisruptionBudget
		pods        []*v1.Pod
		evict       *v1.Pod
		wantCode    int
		wantCause   string
		wantAllowed int32
	}{
		{name: "minAvailable 2 of 3 Ready: approved, allowed 1 -> 0", budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", &two, nil, "web")},
			pods: pods, evict: pods[0], wantCode: 201, wantAllowed: 0},
		{name: "minAvailable 50% of 3 rounds up to 2: approved", budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", &fifty, nil, "web")},
			pods: pods, evict: pods[0], wantCode: 201, wantAllowed: 0},
		{name: "maxUnavailable 1: approved", budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", nil, &one, "web")},
			pods: pods, evict: pods[0], wantCode: 201, wantAllowed: 0},
		{name: "minAvailable 100%: 429", budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", &hundred, nil, "web")},
			pods: pods, evict: pods[0], wantCode: 429, wantCause: "The disruption budget web needs 3 healthy pods and has 3 currently"},
		{name: "unready pod, IfHealthyBudget, budget met (2 healthy of 2): deleted without a decrement", budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", &two, nil, "web")},
			pods: []*v1.Pod{unready, pods[1], pods[2]}, evict: unready, wantCode: 201, wantAllowed: 0},
		{name: "unready pod, IfHealthyBudget, budget short: 429", budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", &hundred, nil, "web")},
			pods: withUnready, evict: unready, wantCode: 429, wantCause: "The disruption budget web needs 3 healthy pods and has 2 currently"},
		{name: "unready pod, AlwaysAllow, budget short: deleted without a decrement", budgets: []*policy.PodDisruptionBudget{alwaysAllow(testkit.Budget("web", &hundred, nil, "web"))},
			pods: withUnready, evict: unready, wantCode: 201, wantAllowed: 0},
		{name: "two budgets: 500", budgets: []*policy.PodDisruptionBudget{testkit.Budget("a", &one, nil, "web"), testkit.Budget("b", &one, nil, "web")},
			pods: pods, evict: pods[0], wantCode: 500},
		{name: "percentage over a DaemonSet pod: sync failed, 429", budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", nil, &one, "web")},
			pods: []*v1.Pod{daemonPod}, evict: daemonPod, wantCode: 429,
			wantCause: "The disruption budget web does not allow evicting pods currently because it failed sync: daemonsets.apps does not implement the scale subresource"},
		{name: "pending pod: deleted whatever the budget", budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", &hundred, nil, "web")},
			pods: pods, evict: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"app": "web"}}, Status: v1.PodStatus{Phase: v1.PodPending}},
			wantCode: 201, wantAllowed: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, b := range tt.budgets {
				disruption.Sync(b, tt.pods, scales, now)
			}
			v := Evict(tt.evict, tt.budgets, now)
			if v.Code != tt.wantCode || v.Cause != tt.wantCause {
				t.Errorf("Evict(%s) = %d %q, want %d %q", tt.evict.Name, v.Code, v.Cause, tt.wantCode, tt.wantCause)
			}
			if v.Code == 201 && len(tt.budgets) == 1 && tt.budgets[0].Status.DisruptionsAllowed != tt.wantAllowed {
				t.Errorf("disruptionsAllowed after Evict(%s) = %d, want %d", tt.evict.Name, tt.budgets[0].Status.DisruptionsAllowed, tt.wantAllowed)
			}
		})
	}
}
