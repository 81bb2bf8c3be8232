package disruption

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func node(name string) *v1.Node { return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}} }

// deployment returns a Deployment of n replicas, its ReplicaSet and its Ready pods, placed on
// the nodes in turn.
func deployment(name string, n int32, nodes ...string) (*apps.Deployment, *apps.ReplicaSet, []*v1.Pod) {
	d := &apps.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: "d-" + "uid"}, Spec: apps.DeploymentSpec{Replicas: &n}}
	rs := &apps.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name + "-abc", Namespace: "default", UID: "rs-uid",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: d.UID, Controller: ptr(true)}}},
		Spec: apps.ReplicaSetSpec{Replicas: &n}}
	var pods []*v1.Pod
	for i := range int(n) {
		pods = append(pods, readyPod(fmt.Sprintf("%s-abc-%d", name, i), nodes[i%len(nodes)], map[string]string{"app": name},
			&metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr(true)}))
	}
	return d, rs, pods
}

func ptr[T any](v T) *T { return &v }

func readyPod(name, nodeName string, lbls map[string]string, owner *metav1.OwnerReference) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: lbls},
		Spec:   v1.PodSpec{NodeName: nodeName, Containers: []v1.Container{{Name: "c", Image: "nginx"}}},
		Status: v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}}}
	if owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	return p
}

func budget(name string, minAvailable, maxUnavailable *intstr.IntOrString, app string) *policy.PodDisruptionBudget {
	return &policy.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: policy.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
}

// summary renders a plan's events one a line, for comparison.
func summary(p *Plan) string {
	var b strings.Builder
	for _, np := range p.Nodes {
		for _, e := range np.Events {
			fmt.Fprintf(&b, "%s %s %s", e.At, e.Kind, e.Pod)
			if e.Retried {
				b.WriteString(" (server retry)")
			}
			if e.Kind == EventRefused || e.Kind == EventFailed {
				fmt.Fprintf(&b, " %d %s", e.Code, e.Cause)
			}
			if e.Kind == EventFiltered || e.Kind == EventWarning || e.Kind == EventTimeout {
				fmt.Fprintf(&b, " %s", e.Message)
			}
			if e.Kind == EventRepeats {
				fmt.Fprintf(&b, " %d", e.Count)
			}
			if e.Kind == EventCreated {
				fmt.Fprintf(&b, " on %s", e.Node)
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "drained=%v forever=%v end=%s error=%s\n", np.Drained, np.Forever, np.End, np.Error)
	}
	return b.String()
}

func TestDrain(t *testing.T) {
	two := intstr.FromInt32(2)
	three := intstr.FromInt32(3)
	hundred := intstr.FromString("100%")
	zero := intstr.FromInt32(0)
	one := intstr.FromInt32(1)
	d, rs, pods := deployment("web", 3, "n1", "n1", "n2")
	nodes := []*v1.Node{node("n1"), node("n2"), node("n3")}
	base := World{Pods: pods, Nodes: nodes, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs}}
	with := func(mod func(w *World)) World {
		w := base
		w.Pods = append([]*v1.Pod(nil), base.Pods...)
		mod(&w)
		return w
	}
	tests := []struct {
		name  string
		world World
		opts  Options
		want  string
		// wantAssumption, when set, is said among the plan's assumptions; wantVaries among
		// what can vary.
		wantAssumption, wantVaries string
	}{
		{
			name:  "minAvailable 2 of 3: the second eviction conflicts, is refused on the server's retry, and goes once the replacement is Ready",
			world: with(func(w *World) { w.Budgets = []*policy.PodDisruptionBudget{budget("web", &two, nil, "web")} }),
			opts:  Options{Nodes: []string{"n1"}, GracePeriodSeconds: -1},
			want: `0s cordon 
0s evict default/web-abc-0
0s created default/web-abc-new1 on n3
500ms refused default/web-abc-1 (server retry) 429 The disruption budget web needs 2 healthy pods and has 2 currently
2s ready default/web-abc-new1
5s evicted default/web-abc-0
5.5s evict default/web-abc-1
5.5s created default/web-abc-new2 on n2
7.5s ready default/web-abc-new2
10.5s evicted default/web-abc-1
drained=true forever=false end=10.5s error=
`,
		},
		{
			name:  "replacements Ready in 100ms: the server's retry after the conflict approves a second pod in the first round",
			world: with(func(w *World) { w.Budgets = []*policy.PodDisruptionBudget{budget("web", &two, nil, "web")} }),
			opts:  Options{Nodes: []string{"n1"}, GracePeriodSeconds: -1, ReadyAfter: 100 * time.Millisecond, TerminateAfter: 100 * time.Millisecond},
			want: `0s cordon 
0s evict default/web-abc-0
0s created default/web-abc-new1 on n3
100ms ready default/web-abc-new1
500ms evict default/web-abc-1 (server retry)
500ms created default/web-abc-new2 on n2
600ms ready default/web-abc-new2
1s evicted default/web-abc-0
1.5s evicted default/web-abc-1
drained=true forever=false end=1.5s error=
`,
		},
		{
			name: "three pods at once, replacements Ready in 100ms (the common outcome): the two that conflict retry, the first wins, the later reads its approval and is refused, and goes at kubectl's 5s retry",
			world: func() World {
				d, rs, pods := deployment("web", 3, "n1")
				return World{Pods: pods, Nodes: nodes, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
					Budgets: []*policy.PodDisruptionBudget{budget("web", &two, nil, "web")}}
			}(),
			opts:           Options{Nodes: []string{"n1"}, GracePeriodSeconds: -1, ReadyAfter: 100 * time.Millisecond, TerminateAfter: 100 * time.Millisecond},
			wantAssumption: "evictions sent at the same moment all read the budget",
			wantVaries:     "1 time(s) (first at 500ms, default/web-abc-2 after default/web-abc-1) an eviction retried at the same moment",
			want: `0s cordon 
0s evict default/web-abc-0
0s created default/web-abc-new1 on n2
100ms ready default/web-abc-new1
500ms evict default/web-abc-1 (server retry)
500ms created default/web-abc-new2 on n3
500ms refused default/web-abc-2 (server retry) 429 The disruption budget web does not allow evicting pods currently
600ms ready default/web-abc-new2
1s evicted default/web-abc-0
1.5s evicted default/web-abc-1
5.5s evict default/web-abc-2
5.5s created default/web-abc-new3 on n2
5.6s ready default/web-abc-new3
6.5s evicted default/web-abc-2
drained=true forever=false end=6.5s error=
`,
		},
		{
			name: "four pods under maxUnavailable 1, replacements Ready in 100ms (the common outcome): 2 approved and 2 refused, then 1 and 1, then the last",
			world: func() World {
				d, rs, pods := deployment("web", 4, "n1")
				return World{Pods: pods, Nodes: nodes, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
					Budgets: []*policy.PodDisruptionBudget{budget("web", nil, &one, "web")}}
			}(),
			opts: Options{Nodes: []string{"n1"}, GracePeriodSeconds: -1, ReadyAfter: 100 * time.Millisecond, TerminateAfter: 100 * time.Millisecond},
			want: `0s cordon 
0s evict default/web-abc-0
0s created default/web-abc-new1 on n2
100ms ready default/web-abc-new1
500ms evict default/web-abc-1 (server retry)
500ms created default/web-abc-new2 on n3
500ms refused default/web-abc-2 (server retry) 429 The disruption budget web does not allow evicting pods currently
500ms refused default/web-abc-3 (server retry) 429 The disruption budget web does not allow evicting pods currently
600ms ready default/web-abc-new2
1s evicted default/web-abc-0
1.5s evicted default/web-abc-1
5.5s evict default/web-abc-2
5.5s created default/web-abc-new3 on n2
5.5s refused default/web-abc-3 429 The disruption budget web does not allow evicting pods currently
5.6s ready default/web-abc-new3
6.5s evicted default/web-abc-2
10.5s evict default/web-abc-3
10.5s created default/web-abc-new4 on n3
10.6s ready default/web-abc-new4
11.5s evicted default/web-abc-3
drained=true forever=false end=11.5s error=
`,
		},
		{
			name: "three pods at once, replacements Ready in 100ms, --retries-meet: the two that conflict retry together, one wins, the other conflicts again and goes at 1s",
			world: func() World {
				d, rs, pods := deployment("web", 3, "n1")
				return World{Pods: pods, Nodes: nodes, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
					Budgets: []*policy.PodDisruptionBudget{budget("web", &two, nil, "web")}}
			}(),
			opts:       Options{Nodes: []string{"n1"}, GracePeriodSeconds: -1, ReadyAfter: 100 * time.Millisecond, TerminateAfter: 100 * time.Millisecond, RetriesMeet: true},
			wantVaries: "1 time(s) (first at 500ms, default/web-abc-2) an API server retry of an eviction conflicts again",
			want: `0s cordon 
0s evict default/web-abc-0
0s created default/web-abc-new1 on n2
100ms ready default/web-abc-new1
500ms evict default/web-abc-1 (server retry)
500ms created default/web-abc-new2 on n3
600ms ready default/web-abc-new2
1s evicted default/web-abc-0
1s evict default/web-abc-2 (server retry)
1s created default/web-abc-new3 on n2
1.1s ready default/web-abc-new3
1.5s evicted default/web-abc-1
2s evicted default/web-abc-2
drained=true forever=false end=2s error=
`,
		},
		{
			name: "three pods at once, replacements Ready in 2s: both retries read disruptionsAllowed 0 and are refused; in the next round one wins and the other reads its approval and is refused",
			world: func() World {
				d, rs, pods := deployment("web", 3, "n1")
				return World{Pods: pods, Nodes: nodes, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
					Budgets: []*policy.PodDisruptionBudget{budget("web", &two, nil, "web")}}
			}(),
			opts: Options{Nodes: []string{"n1"}, GracePeriodSeconds: -1},
			want: `0s cordon 
0s evict default/web-abc-0
0s created default/web-abc-new1 on n2
500ms refused default/web-abc-1 (server retry) 429 The disruption budget web needs 2 healthy pods and has 2 currently
500ms refused default/web-abc-2 (server retry) 429 The disruption budget web needs 2 healthy pods and has 2 currently
2s ready default/web-abc-new1
5s evicted default/web-abc-0
5.5s evict default/web-abc-1
5.5s created default/web-abc-new2 on n3
5.5s refused default/web-abc-2 429 The disruption budget web does not allow evicting pods currently
7.5s ready default/web-abc-new2
10.5s evicted default/web-abc-1
10.5s evict default/web-abc-2
10.5s created default/web-abc-new3 on n2
12.5s ready default/web-abc-new3
15.5s evicted default/web-abc-2
drained=true forever=false end=15.5s error=
`,
		},
		{
			name: "a StatefulSet: its pod comes back under the same name once the old one is gone",
			world: func() World {
				n := int32(2)
				ss := &apps.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default", UID: "ss-uid"}, Spec: apps.StatefulSetSpec{Replicas: &n}}
				ref := &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "ss-uid", Controller: ptr(true)}
				return World{Nodes: nodes, StatefulSets: []*apps.StatefulSet{ss},
					Pods:    []*v1.Pod{readyPod("db-0", "n1", map[string]string{"app": "db"}, ref), readyPod("db-1", "n1", map[string]string{"app": "db"}, ref)},
					Budgets: []*policy.PodDisruptionBudget{budget("db", &one, nil, "db")}}
			}(),
			opts: Options{Nodes: []string{"n1"}, GracePeriodSeconds: -1},
			want: `0s cordon 
0s evict default/db-0
500ms refused default/db-1 (server retry) 429 The disruption budget db needs 1 healthy pods and has 1 currently
5s created default/db-0 on n2
5s evicted default/db-0
5.5s refused default/db-1 429 The disruption budget db needs 1 healthy pods and has 1 currently
7s ready default/db-0
10.5s evict default/db-1
15.5s created default/db-1 on n3
15.5s evicted default/db-1
drained=true forever=false end=15.5s error=
`,
		},
		{
			name:  "minAvailable 3 of 3 with --timeout: refused until the timeout",
			world: with(func(w *World) { w.Budgets = []*policy.PodDisruptionBudget{budget("web", &three, nil, "web")} }),
			opts:  Options{Nodes: []string{"n2"}, GracePeriodSeconds: -1, Timeout: 30 * time.Second},
			want: `0s cordon 
0s refused default/web-abc-2 429 The disruption budget web needs 3 healthy pods and has 3 currently
0s repeats  5
30s timeout  global timeout reached: 30s
drained=false forever=false end=30s error=error when evicting pods/"web-abc-2" -n "default": global timeout reached: 30s
`,
		},
		{
			name:  "maxUnavailable 0 without --timeout blocks forever",
			world: with(func(w *World) { w.Budgets = []*policy.PodDisruptionBudget{budget("web", nil, &zero, "web")} }),
			opts:  Options{Nodes: []string{"n2"}, GracePeriodSeconds: -1},
			want: `0s cordon 
0s refused default/web-abc-2 429 The disruption budget web needs 3 healthy pods and has 3 currently
0s repeats  -1
drained=false forever=true end=0s error=
`,
		},
		{
			name: "two budgets: 500, not retried",
			world: with(func(w *World) {
				w.Budgets = []*policy.PodDisruptionBudget{budget("a", &hundred, nil, "web"), budget("b", nil, &two, "web")}
			}),
			opts: Options{Nodes: []string{"n2"}, GracePeriodSeconds: -1},
			want: `0s cordon 
0s failed default/web-abc-2 500 
drained=false forever=false end=0s error=error when evicting pods/"web-abc-2" -n "default": This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.
`,
		},
		{
			name:  "a bare pod without --force: kubectl refuses the node",
			world: with(func(w *World) { w.Pods = append(w.Pods, readyPod("bare", "n2", nil, nil)) }),
			opts:  Options{Nodes: []string{"n2"}, GracePeriodSeconds: -1},
			want: `0s cordon 
0s filtered  cannot delete Pods that declare no controller (use --force to override): default/bare
drained=false forever=false end=0s error=cannot delete Pods that declare no controller (use --force to override): default/bare
`,
		},
		{
			name: "DaemonSet pods ignored, bare pod forced",
			world: with(func(w *World) {
				w.DaemonSets = []*apps.DaemonSet{{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default"}}}
				w.Pods = append(w.Pods, readyPod("bare", "n2", nil, nil),
					readyPod("agent-x", "n2", nil, &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", Controller: ptr(true)}))
			}),
			opts: Options{Nodes: []string{"n2"}, GracePeriodSeconds: -1, Force: true, IgnoreDaemonSets: true},
			want: `0s cordon 
0s warning  deleting Pods that declare no controller: default/bare; ignoring DaemonSet-managed Pods: default/agent-x
0s evict default/bare
0s evict default/web-abc-2
0s created default/web-abc-new1 on n3
2s ready default/web-abc-new1
5s evicted default/bare
5s evicted default/web-abc-2
drained=true forever=false end=5s error=
`,
		},
		{
			name: "no schedulable node for the replacement: blocked forever",
			world: with(func(w *World) {
				w.Nodes = []*v1.Node{node("n1"), node("n2")}
				w.Budgets = []*policy.PodDisruptionBudget{budget("web", &two, nil, "web")}
			}),
			opts: Options{Nodes: []string{"n1", "n2"}, GracePeriodSeconds: -1},
			want: `0s cordon 
0s evict default/web-abc-0
0s pending default/web-abc-new1
500ms refused default/web-abc-1 (server retry) 429 The disruption budget web needs 2 healthy pods and has 2 currently
5s evicted default/web-abc-0
5.5s refused default/web-abc-1 429 The disruption budget web needs 2 healthy pods and has 2 currently
5.5s repeats  -1
drained=false forever=true end=5.5s error=
drained=false forever=false end=0s error=never reached: the drain of n1 never ends
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Drain(tt.world, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(p); got != tt.want {
				t.Errorf("Drain() =\n%s\nwant\n%s", got, tt.want)
			}
			if got := strings.Join(p.Assumptions, "\n"); !strings.Contains(got, tt.wantAssumption) {
				t.Errorf("Drain() assumptions =\n%s\nwant one saying %q", got, tt.wantAssumption)
			}
			if got := strings.Join(p.Varies, "\n"); !strings.Contains(got, tt.wantVaries) {
				t.Errorf("Drain() can vary =\n%s\nwant one saying %q", got, tt.wantVaries)
			}
		})
	}
}

// TestDrainConflictRetriesRunOut: 21 pods evicted at once under a budget that has room for one
// at every retry. Each 500ms one more wins the budget update; the 21st has lost 20 times when
// EvictionsRetry's steps are spent, and the API server answers it with the last conflict
// (409), which kubectl does not retry. That is the path where retries meet (RetriesMeet).
func TestDrainConflictRetriesRunOut(t *testing.T) {
	minAvailable := intstr.FromInt32(20)
	d, rs, pods := deployment("web", 21, "n1")
	w := World{Pods: pods, Nodes: []*v1.Node{node("n1"), node("n2")}, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
		Budgets: []*policy.PodDisruptionBudget{budget("web", &minAvailable, nil, "web")}}
	p, err := Drain(w, Options{Nodes: []string{"n1"}, GracePeriodSeconds: -1, ReadyAfter: 100 * time.Millisecond, TerminateAfter: 100 * time.Millisecond, RetriesMeet: true})
	if err != nil {
		t.Fatal(err)
	}
	var approved []time.Duration
	var failed []Event
	for _, e := range p.Nodes[0].Events {
		switch e.Kind {
		case EventEvict:
			approved = append(approved, e.At)
		case EventFailed, EventRefused:
			failed = append(failed, e)
		}
	}
	if len(approved) != EvictionConflictAttempts {
		t.Fatalf("Drain() approved %d evictions, want %d (one per try)", len(approved), EvictionConflictAttempts)
	}
	for i, at := range approved {
		if want := time.Duration(i) * EvictionConflictRetry; at != want {
			t.Errorf("approval %d at %s, want %s", i, at, want)
		}
	}
	if len(failed) != 1 || failed[0].Code != 409 || failed[0].At != (EvictionConflictAttempts-1)*EvictionConflictRetry ||
		!strings.Contains(failed[0].Message, `Operation cannot be fulfilled on poddisruptionbudgets.policy "web"`) {
		t.Fatalf("Drain() refusals = %+v, want one 409 at %s", failed, (EvictionConflictAttempts-1)*EvictionConflictRetry)
	}
	if p.Completed || !strings.Contains(p.Nodes[0].Error, "the object has been modified") {
		t.Errorf("Drain() completed=%v error=%q, want not completed with the conflict", p.Completed, p.Nodes[0].Error)
	}
}
