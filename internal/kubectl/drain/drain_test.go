package drain

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

	"github.com/kubectl-workload/kubectl-workload/internal/registry/eviction"
	"github.com/kubectl-workload/kubectl-workload/internal/scheduler"
	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

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
	d, rs, pods := testkit.Deployment("web", 3, "n1", "n1", "n2")
	nodes := []*v1.Node{testkit.Node("n1"), testkit.Node("n2"), testkit.Node("n3")}
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
			world: with(func(w *World) { w.Budgets = []*policy.PodDisruptionBudget{testkit.Budget("web", &two, nil, "web")} }),
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
			world: with(func(w *World) { w.Budgets = []*policy.PodDisruptionBudget{testkit.Budget("web", &two, nil, "web")} }),
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
				d, rs, pods := testkit.Deployment("web", 3, "n1")
				return World{Pods: pods, Nodes: nodes, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
					Budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", &two, nil, "web")}}
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
				d, rs, pods := testkit.Deployment("web", 4, "n1")
				return World{Pods: pods, Nodes: nodes, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
					Budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", nil, &one, "web")}}
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
				d, rs, pods := testkit.Deployment("web", 3, "n1")
				return World{Pods: pods, Nodes: nodes, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
					Budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", &two, nil, "web")}}
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
				d, rs, pods := testkit.Deployment("web", 3, "n1")
				return World{Pods: pods, Nodes: nodes, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
					Budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", &two, nil, "web")}}
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
				ref := &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "ss-uid", Controller: testkit.Ptr(true)}
				return World{Nodes: nodes, StatefulSets: []*apps.StatefulSet{ss},
					Pods:    []*v1.Pod{testkit.ReadyPod("db-0", "n1", map[string]string{"app": "db"}, ref), testkit.ReadyPod("db-1", "n1", map[string]string{"app": "db"}, ref)},
					Budgets: []*policy.PodDisruptionBudget{testkit.Budget("db", &one, nil, "db")}}
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
			world: with(func(w *World) { w.Budgets = []*policy.PodDisruptionBudget{testkit.Budget("web", &three, nil, "web")} }),
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
			world: with(func(w *World) { w.Budgets = []*policy.PodDisruptionBudget{testkit.Budget("web", nil, &zero, "web")} }),
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
				w.Budgets = []*policy.PodDisruptionBudget{testkit.Budget("a", &hundred, nil, "web"), testkit.Budget("b", nil, &two, "web")}
			}),
			opts: Options{Nodes: []string{"n2"}, GracePeriodSeconds: -1},
			want: `0s cordon 
0s failed default/web-abc-2 500 
drained=false forever=false end=0s error=error when evicting pods/"web-abc-2" -n "default": This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.
`,
		},
		{
			name:  "a bare pod without --force: kubectl refuses the node",
			world: with(func(w *World) { w.Pods = append(w.Pods, testkit.ReadyPod("bare", "n2", nil, nil)) }),
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
				w.Pods = append(w.Pods, testkit.ReadyPod("bare", "n2", nil, nil),
					testkit.ReadyPod("agent-x", "n2", nil, &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", Controller: testkit.Ptr(true)}))
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
				w.Nodes = []*v1.Node{testkit.Node("n1"), testkit.Node("n2")}
				w.Budgets = []*policy.PodDisruptionBudget{testkit.Budget("web", &two, nil, "web")}
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
	d, rs, pods := testkit.Deployment("web", 21, "n1")
	w := World{Pods: pods, Nodes: []*v1.Node{testkit.Node("n1"), testkit.Node("n2")}, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
		Budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", &minAvailable, nil, "web")}}
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
	if len(approved) != eviction.ConflictAttempts {
		t.Fatalf("Drain() approved %d evictions, want %d (one per try)", len(approved), eviction.ConflictAttempts)
	}
	for i, at := range approved {
		if want := time.Duration(i) * eviction.ConflictRetry; at != want {
			t.Errorf("approval %d at %s, want %s", i, at, want)
		}
	}
	if len(failed) != 1 || failed[0].Code != 409 || failed[0].At != (eviction.ConflictAttempts-1)*eviction.ConflictRetry ||
		!strings.Contains(failed[0].Message, `Operation cannot be fulfilled on poddisruptionbudgets.policy "web"`) {
		t.Fatalf("Drain() refusals = %+v, want one 409 at %s", failed, (eviction.ConflictAttempts-1)*eviction.ConflictRetry)
	}
	if p.Completed || !strings.Contains(p.Nodes[0].Error, "the object has been modified") {
		t.Errorf("Drain() completed=%v error=%q, want not completed with the conflict", p.Completed, p.Nodes[0].Error)
	}
}

// TestDrainFromManifests: a gatekeeper-like single replica under minAvailable 1, drained
// from manifests over three nodes: its pod is placed on the first node by name, whose drain is
// refused forever; the plan says the pods were placed, not read.
func TestDrainFromManifests(t *testing.T) {
	one := intstr.FromInt32(1)
	b := testkit.Budget("gatekeeper", &one, nil, "gatekeeper")
	w := World{Nodes: scheduler.ShapedNodes([]string{"node-1", "node-2", "node-3"}, scheduler.NodeShape{Pods: 110}),
		Deployments: []*apps.Deployment{testkit.ManifestDeployment("gatekeeper", 1, "100m")}, Budgets: []*policy.PodDisruptionBudget{b}}
	p, err := Drain(w, Options{Nodes: []string{"node-1", "node-2", "node-3"}, GracePeriodSeconds: -1, Place: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Placed) != 1 || p.Placed[0].Node != "node-1" {
		t.Fatalf("Placed = %+v, want the one pod on node-1", p.Placed)
	}
	if p.Completed || !p.Nodes[0].Forever || p.Nodes[1].Error == "" {
		t.Errorf("plan completed=%v, node-1 forever=%v, node-2 error %q: want node-1 blocked forever and node-2 never reached\n%s", p.Completed, p.Nodes[0].Forever, p.Nodes[1].Error, summary(p))
	}
	refused := 0
	for _, e := range p.Nodes[0].Events {
		if e.Kind == EventRefused && e.Code == 429 {
			refused++
			// A refusal says whose pod and where, as an approval does: the upgrade e2e
			// compares refusals by workload.
			if !strings.HasPrefix(e.Owner, "replicaset/gatekeeper-") || e.Node != "node-1" {
				t.Errorf("refused %s: owner %q, node %q; want replicaset/gatekeeper-HASH on node-1", e.Pod, e.Owner, e.Node)
			}
		}
	}
	if refused == 0 {
		t.Errorf("no 429 on node-1:\n%s", summary(p))
	}
	if !strings.Contains(strings.Join(p.Assumptions, "\n"), "1 pod(s) were placed, not read") {
		t.Errorf("assumptions %q do not say the pod was placed", p.Assumptions)
	}
	if len(w.Pods) != 0 {
		t.Errorf("Drain changed the caller's world: %d pods", len(w.Pods))
	}
	// Without Place (a live cluster's world), nothing is made up.
	p, err = Drain(w, Options{Nodes: []string{"node-1"}, GracePeriodSeconds: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Placed) != 0 || !p.Completed {
		t.Errorf("without Place: placed %d, completed %v; want nothing placed and an empty node drained", len(p.Placed), p.Completed)
	}
}
