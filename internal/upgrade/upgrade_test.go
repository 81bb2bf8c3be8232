package upgrade

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-workload/kubectl-workload/internal/kubectl/drain"
	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

// poolNode is a node of pool "blue" (or another pool) with room for maxPods pods.
func poolNode(name, pool string, maxPods int64, taints ...v1.Taint) *v1.Node {
	alloc := v1.ResourceList{v1.ResourcePods: *resource.NewQuantity(maxPods, resource.DecimalSI)}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": pool, v1.LabelHostname: name}},
		Spec:   v1.NodeSpec{Taints: taints},
		Status: v1.NodeStatus{Allocatable: alloc, Capacity: alloc, Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}}}
}

// placements lists, per drained node, where each replacement went ("" when Pending).
func placements(p *Plan) string {
	var b strings.Builder
	for _, st := range p.Nodes {
		fmt.Fprintf(&b, "%s %s:", st.Node, st.Outcome)
		for _, e := range st.Drain.Events {
			switch e.Kind {
			case drain.EventCreated:
				fmt.Fprintf(&b, " %s", e.Node)
			case drain.EventPending:
				b.WriteString(" pending")
			case drain.EventRefused:
				// Refusals repeat every 5s while the world changes: one says it.
				if tok := fmt.Sprintf(" refused(%s)", e.Budget); !strings.HasSuffix(b.String(), tok) {
					b.WriteString(tok)
				}
			}
		}
		for _, e := range st.Forced {
			if e.Kind == drain.EventDelete {
				b.WriteString(" forced")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestUpgrade(t *testing.T) {
	one, two := intstr.FromInt32(1), intstr.FromInt32(2)
	zero := intstr.FromInt32(0)
	noSchedule := v1.Taint{Key: "dedicated", Value: "blue", Effect: v1.TaintEffectNoSchedule}
	// web: 2 replicas, one on each blue node; spare is another pool's node.
	world := func(maxPods int64, taints ...v1.Taint) drain.World {
		d, rs, pods := testkit.Deployment("web", 2, "blue-1", "blue-2")
		return drain.World{Pods: pods, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
			Nodes: []*v1.Node{poolNode("blue-1", "blue", maxPods, taints...), poolNode("blue-2", "blue", maxPods, taints...), poolNode("spare", "green", maxPods)}}
	}
	// full: the spare node runs two pods of another workload and has room for no other
	// (worlds of at most 2 pods a node).
	full := func(w drain.World) drain.World {
		w.Pods = append(w.Pods, testkit.ReadyPod("db-0", "spare", map[string]string{"app": "db"}, nil),
			testkit.ReadyPod("db-1", "spare", map[string]string{"app": "db"}, nil))
		return w
	}
	withBudget := func(w drain.World, b *policy.PodDisruptionBudget) drain.World {
		w.Budgets = append(w.Budgets, b)
		return w
	}
	tolerate := func(w drain.World) drain.World {
		for _, p := range w.Pods {
			p.Spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "blue", Effect: v1.TaintEffectNoSchedule}}
		}
		return w
	}
	surge1 := Algorithm{MaxSurge: one, MaxUnavailable: zero, OnTimeout: OnTimeoutFail}
	unavailable1 := Algorithm{MaxSurge: zero, MaxUnavailable: one, OnTimeout: OnTimeoutFail}
	tests := []struct {
		name      string
		world     drain.World
		alg       Algorithm
		want      string
		completed bool
		// blocker is a budget the blocker names and a fix it gives ("" for none).
		blocker, fix string
		// unplaced is the pods that waited, with the node that took them.
		unplaced  string
		minLength time.Duration
	}{
		{name: "surge 1: each old node's pod moves to its surge node", world: world(110), alg: surge1, completed: true,
			want: "blue-1 upgraded: blue-1-upgraded\nblue-2 upgraded: blue-2-upgraded\n"},
		{name: "surge 0: the pod moves to a node not yet drained", world: full(world(2)), alg: unavailable1, completed: true,
			want: "blue-1 upgraded: blue-2\nblue-2 upgraded: blue-1-upgraded blue-1-upgraded\n"},
		{name: "budget minAvailable = replicas blocks the first node forever", alg: surge1,
			world: withBudget(world(110), testkit.Budget("web", &two, nil, "web")),
			want:  "blue-1 blocked: refused(web)\nblue-2 not-reached:\n", blocker: "web", fix: "lower minAvailable to 1, or scale deployment/web to 3 replicas"},
		{name: "budget blocks until the timeout: the upgrade fails", alg: Algorithm{MaxSurge: one, MaxUnavailable: zero, OnTimeout: OnTimeoutFail, DrainTimeout: 15 * time.Minute},
			world: withBudget(world(110), testkit.Budget("web", &two, nil, "web")),
			want:  "blue-1 failed: refused(web)\nblue-2 not-reached:\n", blocker: "web", minLength: 15 * time.Minute},
		{name: "GKE-style: the budget is forced after the timeout", alg: Algorithm{MaxSurge: one, MaxUnavailable: zero, OnTimeout: OnTimeoutForce, DrainTimeout: time.Hour},
			world: withBudget(world(110), testkit.Budget("web", &two, nil, "web")), completed: true,
			want: "blue-1 upgraded: refused(web) forced\nblue-2 upgraded: refused(web) forced\n", minLength: 2 * time.Hour},
		{name: "capacity shortfall: full nodes and no surge leave the pod Pending until the new node joins", world: full(world(1)), alg: unavailable1, completed: true,
			want:     "blue-1 upgraded: pending\nblue-2 upgraded: pending\n",
			unplaced: "default/web-abc-new1 on blue-1-upgraded, default/web-abc-new2 on blue-2-upgraded"},
		{name: "taints: the surge node keeps the pool's taint, so untolerating pods go to the other pool", world: world(110, noSchedule), alg: surge1, completed: true,
			want: "blue-1 upgraded: spare\nblue-2 upgraded: spare\n"},
		{name: "taints tolerated: the pods go to the surge nodes", world: tolerate(world(110, noSchedule)), alg: surge1, completed: true,
			want: "blue-1 upgraded: blue-1-upgraded\nblue-2 upgraded: blue-2-upgraded\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel := labels.SelectorFromSet(labels.Set{"pool": "blue"})
			plan, err := Upgrade(tt.world, Options{Selector: sel, Algorithm: tt.alg, Drain: drain.Options{ReadyAfter: 10 * time.Second, TerminateAfter: 5 * time.Second}})
			if err != nil {
				t.Fatalf("Upgrade() error = %v", err)
			}
			if got := placements(plan); got != tt.want {
				t.Errorf("Upgrade() placements =\n%s\nwant\n%s", got, tt.want)
			}
			if plan.Completed != tt.completed {
				t.Errorf("Upgrade().Completed = %v, want %v", plan.Completed, tt.completed)
			}
			if tt.blocker == "" && plan.Blocker != nil {
				t.Errorf("Upgrade().Blocker = %+v, want none", plan.Blocker)
			}
			if tt.blocker != "" {
				if plan.Blocker == nil || strings.Join(plan.Blocker.Budgets, ",") != tt.blocker {
					t.Fatalf("Upgrade().Blocker = %+v, want budgets %s", plan.Blocker, tt.blocker)
				}
				if tt.fix != "" && !strings.Contains(strings.Join(plan.Blocker.Fixes, "\n"), tt.fix) {
					t.Errorf("Upgrade().Blocker.Fixes = %q, want one containing %q", plan.Blocker.Fixes, tt.fix)
				}
			}
			var got []string
			for _, u := range plan.Unplaced {
				got = append(got, u.Pod+" on "+u.Node)
			}
			if g := strings.Join(got, ", "); g != tt.unplaced {
				t.Errorf("Upgrade().Unplaced = %q, want %q", g, tt.unplaced)
			}
			if plan.Duration < tt.minLength {
				t.Errorf("Upgrade().Duration = %s, want at least %s", plan.Duration, tt.minLength)
			}
			if tt.completed && len(plan.NewNodes) != 2 {
				t.Errorf("Upgrade() new nodes = %d, want 2", len(plan.NewNodes))
			}
		})
	}
}

func TestUpgradeSurgeNodesTakeTheOldNodesShape(t *testing.T) {
	w := drain.World{Nodes: []*v1.Node{poolNode("blue-1", "blue", 7, v1.Taint{Key: "k", Value: "v", Effect: v1.TaintEffectNoSchedule})}}
	plan, err := Upgrade(w, Options{Algorithm: Algorithm{MaxSurge: intstr.FromInt32(1), OnTimeout: OnTimeoutFail}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.NewNodes) != 1 || !plan.NewNodes[0].Surge || plan.NewNodes[0].Like != "blue-1" {
		t.Fatalf("Upgrade().NewNodes = %+v, want one surge node like blue-1", plan.NewNodes)
	}
	n := newNodeLike(w.Nodes[0], map[string]bool{})
	if n.Labels["pool"] != "blue" || n.Labels[v1.LabelHostname] != n.Name || len(n.Spec.Taints) != 1 || n.Status.Allocatable.Pods().Value() != 7 {
		t.Errorf("newNodeLike(blue-1) = %+v, want pool=blue, its own hostname, the taint and 7 pods", n)
	}
}

func TestAlgorithmCounts(t *testing.T) {
	tests := []struct {
		name                      string
		alg                       Algorithm
		pool                      int
		surge, unavailable, batch int
		wantErr                   bool
	}{
		{name: "aks 10% of 25 rounds up", alg: presets["aks"].Algorithm, pool: 25, surge: 3, unavailable: 0, batch: 3},
		{name: "eks drains one at a time", alg: presets["eks"].Algorithm, pool: 10, surge: 2, unavailable: 1, batch: 1},
		{name: "gke surge 1", alg: presets["gke"].Algorithm, pool: 10, surge: 1, unavailable: 0, batch: 1},
		{name: "both zero", alg: Algorithm{OnTimeout: OnTimeoutFail}, pool: 3, wantErr: true},
		{name: "batch bounded by the pool", alg: Algorithm{MaxSurge: intstr.FromInt32(5), MaxUnavailable: intstr.FromInt32(5)}, pool: 3, surge: 5, unavailable: 5, batch: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, u, b, err := tt.alg.counts(tt.pool)
			if (err != nil) != tt.wantErr {
				t.Fatalf("counts(%d) error = %v, want error %v", tt.pool, err, tt.wantErr)
			}
			if !tt.wantErr && (s != tt.surge || u != tt.unavailable || b != tt.batch) {
				t.Errorf("counts(%d) = %d, %d, %d, want %d, %d, %d", tt.pool, s, u, b, tt.surge, tt.unavailable, tt.batch)
			}
		})
	}
}

func TestPresetsCiteSources(t *testing.T) {
	for _, name := range PresetNames() {
		p, err := PresetNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Sources) == 0 || p.Description == "" {
			t.Errorf("preset %s: want a description and sources", name)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	if _, err := PresetNamed("openshift"); err == nil {
		t.Error("PresetNamed(openshift) = nil error, want one")
	}
}

// TestUpgradeBatchDrainsAtOnce: the nodes of a batch drain at the same time. A budget over
// pods on both nodes allows its one disruption to the batch as a whole, not to each node;
// replacements go to the surge nodes, never to a cordoned node of the batch; and the batch
// lasts as long as its slowest node, not the sum of its nodes.
func TestUpgradeBatchDrainsAtOnce(t *testing.T) {
	one, zero, two := intstr.FromInt32(1), intstr.FromInt32(0), intstr.FromInt32(2)
	batch2 := Algorithm{MaxSurge: two, MaxUnavailable: zero, OnTimeout: OnTimeoutFail}
	sel := labels.SelectorFromSet(labels.Set{"pool": "blue"})
	opts := Options{Selector: sel, Algorithm: batch2, Drain: drain.Options{ReadyAfter: 10 * time.Second, TerminateAfter: 5 * time.Second, GracePeriodSeconds: -1}}
	nodes := func() []*v1.Node {
		return []*v1.Node{poolNode("blue-1", "blue", 110), poolNode("blue-2", "blue", 110)}
	}

	t.Run("a shared budget allows its disruptions to the batch in total", func(t *testing.T) {
		d, rs, pods := testkit.Deployment("web", 4, "blue-1", "blue-2")
		w := drain.World{Pods: pods, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs}, Nodes: nodes(),
			Budgets: []*policy.PodDisruptionBudget{testkit.Budget("web", nil, &one, "web")}}
		plan, err := Upgrade(w, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !plan.Completed || plan.BatchSize != 2 {
			t.Fatalf("Upgrade() completed %v, batch %d; want completed, batch 2", plan.Completed, plan.BatchSize)
		}
		var evictions []time.Duration
		refusedAtStart := map[string]bool{}
		for _, st := range plan.Nodes {
			if st.Drain.Start != 0 {
				t.Errorf("node %s drains from %s, want 0s (with the other node of its batch)", st.Node, st.Drain.Start)
			}
			for _, e := range st.Drain.Events {
				switch e.Kind {
				case drain.EventEvict:
					evictions = append(evictions, e.At)
				case drain.EventRefused:
					if e.At == 0 && e.Budget == "web" {
						refusedAtStart[st.Node] = true
					}
				case drain.EventCreated:
					if e.Node == "blue-1" || e.Node == "blue-2" {
						t.Errorf("replacement %s placed on %s, a cordoned node of the batch", e.Pod, e.Node)
					}
				}
			}
		}
		slices.Sort(evictions)
		if len(evictions) != 4 {
			t.Fatalf("evictions at %v, want 4", evictions)
		}
		// maxUnavailable 1: the next eviction waits for the last replacement to be Ready
		// (10s), whichever node its pod is on.
		for i := 1; i < len(evictions); i++ {
			if evictions[i]-evictions[i-1] < 10*time.Second {
				t.Errorf("evictions at %v: two within 10s, so budget web (maxUnavailable 1) allowed 2 disruptions at once", evictions)
			}
		}
		if !refusedAtStart["blue-2"] || refusedAtStart["blue-1"] {
			t.Errorf("refused by web at 0s on %v, want blue-2 only (blue-1's request took the one disruption)", refusedAtStart)
		}
	})

	t.Run("the batch lasts as long as its slowest node", func(t *testing.T) {
		// blue-1: one pod of web, gone 5s after its eviction. blue-2: two pods of db under
		// maxUnavailable 1: the second's first request conflicts with the first's, is refused
		// on the API server's retry at 0.5s, and is approved on kubectl's retry at 10.5s, once
		// the first's replacement is Ready (10s): gone at 15.5s. One after the other: 20.5s.
		web, webRS, webPods := testkit.Deployment("web", 1, "blue-1")
		db, dbRS, dbPods := testkit.Deployment("db", 2, "blue-2")
		w := drain.World{Pods: append(webPods, dbPods...), Deployments: []*apps.Deployment{web, db}, ReplicaSets: []*apps.ReplicaSet{webRS, dbRS},
			Nodes: nodes(), Budgets: []*policy.PodDisruptionBudget{testkit.Budget("db", nil, &one, "db")}}
		plan, err := Upgrade(w, opts)
		if err != nil {
			t.Fatal(err)
		}
		ends := map[string]time.Duration{}
		for _, st := range plan.Nodes {
			ends[st.Node] = st.Drain.End
			if st.EmptyAt != st.Drain.End {
				t.Errorf("node %s empty at %s, want at its drain's end %s", st.Node, st.EmptyAt, st.Drain.End)
			}
		}
		slowest := 15500 * time.Millisecond
		if ends["blue-1"] != 5*time.Second || ends["blue-2"] != slowest {
			t.Errorf("drains end at %v, want blue-1 at 5s and blue-2 at 15.5s", ends)
		}
		if plan.Duration != slowest {
			t.Errorf("Upgrade().Duration = %s, want 15.5s (the slower node), not the 20.5s of one drain after the other", plan.Duration)
		}
		for _, st := range plan.Nodes {
			if st.DeletedAt != slowest {
				t.Errorf("node %s deleted at %s, want 15.5s (when its batch ends)", st.Node, st.DeletedAt)
			}
		}
	})
}

// TestUpgradeAntiAffinityUnplaced: with no surge, a replacement whose required anti-affinity
// refuses the only other node waits Pending, with the scheduler's reason, until the upgraded
// node joins.
func TestUpgradeAntiAffinityUnplaced(t *testing.T) {
	d, rs, pods := testkit.Deployment("web", 2, "blue-1", "blue-2")
	aff := &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
		{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: v1.LabelHostname}}}}
	for _, p := range pods {
		p.Spec.Affinity = aff
	}
	rs.Spec.Template.Spec.Affinity, d.Spec.Template.Spec.Affinity = aff, aff
	w := drain.World{Pods: pods, Deployments: []*apps.Deployment{d}, ReplicaSets: []*apps.ReplicaSet{rs},
		Nodes: []*v1.Node{poolNode("blue-1", "blue", 110), poolNode("blue-2", "blue", 110)}}
	plan, err := Upgrade(w, Options{Algorithm: Algorithm{MaxSurge: intstr.FromInt32(0), MaxUnavailable: intstr.FromInt32(1), OnTimeout: OnTimeoutFail},
		Drain: drain.Options{ReadyAfter: 10 * time.Second, TerminateAfter: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Completed || len(plan.Unplaced) != 2 {
		t.Fatalf("Upgrade() completed %v, unplaced %+v, want completed with both replacements waiting", plan.Completed, plan.Unplaced)
	}
	u := plan.Unplaced[0]
	if want := "0/2 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 1 node(s) were unschedulable."; u.Reason != want || u.Node != "blue-1-upgraded" {
		t.Errorf("Upgrade().Unplaced[0] = %+v, want reason %q and placed on blue-1-upgraded", u, want)
	}
}
