package scheduler

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

// zoned is nodes named name-1..n in zone, with room for pods pods each (0: no limit).
func zoned(zone string, n int, pods int64) []*v1.Node {
	var names []string
	for i := 1; i <= n; i++ {
		names = append(names, fmt.Sprintf("%s-%d", zone, i))
	}
	return ShapedNodes(names, NodeShape{Pods: pods, Labels: map[string]string{v1.LabelTopologyZone: zone}})
}

// podOf is a pod of app named name, owned by the ReplicaSet app, with spec's affinity and
// constraints.
func podOf(name, app string, aff *v1.Affinity, tsc ...v1.TopologySpreadConstraint) *v1.Pod {
	p := testkit.ReadyPod(name, "", map[string]string{"app": app}, &metav1.OwnerReference{Kind: "ReplicaSet", Name: app, Controller: testkit.Ptr(true)})
	p.Spec.Affinity, p.Spec.TopologySpreadConstraints = aff, tsc
	return p
}

func antiAffinity(app, key string) *v1.Affinity {
	return &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
		{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: key}}}}
}

func spread(app, key string, maxSkew int32, how v1.UnsatisfiableConstraintAction) v1.TopologySpreadConstraint {
	return v1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: how,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}
}

// place schedules n pods made by mk one after another, binding each, and returns where they
// went ("" for none) and the last Pending pod's reason.
func place(sc *Scheduler, n int, mk func(i int) *v1.Pod) ([]string, string) {
	var where []string
	why := ""
	for i := range n {
		p := mk(i)
		node := sc.Schedule(p)
		where = append(where, node)
		if node == "" {
			why = sc.Why(p)
			continue
		}
		p.Spec.NodeName = node
		sc.Add(p, 1)
	}
	return where, why
}

func zonesOf(sc *Scheduler, where []string) map[string]int {
	out := map[string]int{}
	for _, n := range where {
		if n == "" {
			out["Pending"]++
			continue
		}
		out[sc.state[n].node.Labels[v1.LabelTopologyZone]]++
	}
	return out
}

// TestAntiAffinityHostname: required anti-affinity by hostname puts one pod on a node; the
// fourth of three nodes' worth stays Pending with the scheduler's reason.
func TestAntiAffinityHostname(t *testing.T) {
	sc := New(zoned("a", 3, 0))
	where, why := place(sc, 4, func(i int) *v1.Pod {
		return podOf(fmt.Sprintf("web-%d", i), "web", antiAffinity("web", v1.LabelHostname))
	})
	if strings.Join(where, ",") != "a-1,a-2,a-3," {
		t.Errorf("placed on %v, want a-1,a-2,a-3 then Pending", where)
	}
	if want := "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules."; why != want {
		t.Errorf("Why() = %q, want %q", why, want)
	}
}

// TestAntiAffinityZone: by zone, one pod per zone, and Pending past that; a node without the
// zone label is in no domain, so it takes any number (InterPodAffinity passes a node that
// lacks the term's key).
func TestAntiAffinityZone(t *testing.T) {
	sc := New(append(zoned("a", 2, 0), zoned("b", 2, 0)...))
	mk := func(i int) *v1.Pod {
		return podOf(fmt.Sprintf("db-%d", i), "db", antiAffinity("db", v1.LabelTopologyZone))
	}
	where, why := place(sc, 3, mk)
	z := zonesOf(sc, where)
	if z["a"] != 1 || z["b"] != 1 || z["Pending"] != 1 {
		t.Errorf("zones %v (placed %v), want one in a, one in b, one Pending", z, where)
	}
	if want := "0/4 nodes are available: 4 node(s) didn't match pod anti-affinity rules."; why != want {
		t.Errorf("Why() = %q, want %q", why, want)
	}
	sc.AddNode(ShapedNodes([]string{"nozone"}, NodeShape{})[0])
	where, _ = place(sc, 2, mk)
	if strings.Join(where, ",") != "nozone,nozone" {
		t.Errorf("placed %v after a node without a zone joined, want both there", where)
	}
}

// TestExistingAntiAffinity: an existing pod's anti-affinity keeps an incoming pod without any
// affinity off its node (the symmetry InterPodAffinity checks), and Why names it.
func TestExistingAntiAffinity(t *testing.T) {
	sc := New(zoned("a", 2, 0))
	guard := podOf("guard", "guard", antiAffinity("noisy", v1.LabelHostname))
	guard.Spec.NodeName = "a-1"
	sc.Add(guard, 1)
	where, _ := place(sc, 3, func(i int) *v1.Pod { return podOf(fmt.Sprintf("noisy-%d", i), "noisy", nil) })
	for _, n := range where {
		if n == "a-1" {
			t.Errorf("placed %v: a noisy pod went next to the guard that refuses it", where)
		}
	}
	if where[0] != "a-2" {
		t.Errorf("placed %v, want a-2 first", where)
	}
	// Only a-1 is left once a-2 is cordoned: nothing fits, for that reason.
	sc.Cordon("a-2")
	p := podOf("noisy-x", "noisy", nil)
	if n := sc.Schedule(p); n != "" {
		t.Errorf("Schedule() = %s, want none", n)
	}
	if want := "0/2 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules, 1 node(s) were unschedulable."; sc.Why(p) != want {
		t.Errorf("Why() = %q, want %q", sc.Why(p), want)
	}
	// The guard gone, a-1 takes it.
	sc.Add(guard, -1)
	if n := sc.Schedule(p); n != "a-1" {
		t.Errorf("Schedule() after the guard left = %q, want a-1", n)
	}
}

// TestPodAffinity: required affinity puts the pod in the zone of the pod it follows.
func TestPodAffinity(t *testing.T) {
	sc := New(append(zoned("a", 2, 0), zoned("b", 2, 0)...))
	db := podOf("db", "db", nil)
	db.Spec.NodeName = "b-2"
	sc.Add(db, 1)
	aff := &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
		{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: v1.LabelTopologyZone}}}}
	where, _ := place(sc, 3, func(i int) *v1.Pod { return podOf(fmt.Sprintf("web-%d", i), "web", aff) })
	if z := zonesOf(sc, where); z["b"] != 3 {
		t.Errorf("zones %v, want all three in b with the db", z)
	}
}

// TestSpreadDoNotSchedule: maxSkew 1 over zones keeps the zones within one pod, so a zone
// that is full stops the others one pod above it.
func TestSpreadDoNotSchedule(t *testing.T) {
	nodes := append(append(zoned("a", 2, 0), zoned("b", 1, 0)...), zoned("c", 1, 1)...)
	sc := New(nodes)
	tsc := spread("web", v1.LabelTopologyZone, 1, v1.DoNotSchedule)
	where, why := place(sc, 7, func(i int) *v1.Pod { return podOf(fmt.Sprintf("web-%d", i), "web", nil, tsc) })
	z := zonesOf(sc, where)
	if z["a"] != 2 || z["b"] != 2 || z["c"] != 1 || z["Pending"] != 2 {
		t.Errorf("zones %v, want a 2, b 2, c 1 (full), 2 Pending", z)
	}
	if want := "0/4 nodes are available: 1 Too many pods, 3 node(s) didn't match pod topology spread constraints."; why != want {
		t.Errorf("Why() = %q, want %q", why, want)
	}
	// A pod of zone c leaves: the next goes there.
	for _, st := range sc.state {
		if st.node != nil && st.node.Name == "c-1" {
			sc.Add(st.pods[0], -1)
		}
	}
	if n := sc.Schedule(podOf("web-x", "web", nil, tsc)); n != "c-1" {
		t.Errorf("Schedule() after zone c emptied = %q, want c-1", n)
	}
}

// TestSpreadMinDomains: with fewer zones than minDomains, the global minimum counts as 0, so
// each zone holds at most maxSkew pods.
func TestSpreadMinDomains(t *testing.T) {
	sc := New(append(zoned("a", 2, 0), zoned("b", 2, 0)...))
	tsc := spread("web", v1.LabelTopologyZone, 1, v1.DoNotSchedule)
	tsc.MinDomains = testkit.Ptr(int32(3))
	where, why := place(sc, 4, func(i int) *v1.Pod { return podOf(fmt.Sprintf("web-%d", i), "web", nil, tsc) })
	if z := zonesOf(sc, where); z["a"] != 1 || z["b"] != 1 || z["Pending"] != 2 {
		t.Errorf("zones %v, want one in a, one in b, two Pending (minDomains 3 of 2 zones)", z)
	}
	if !strings.Contains(why, "4 node(s) didn't match pod topology spread constraints") {
		t.Errorf("Why() = %q", why)
	}
	// Without minDomains the same pods spread two and two.
	sc = New(append(zoned("a", 2, 0), zoned("b", 2, 0)...))
	tsc.MinDomains = nil
	where, _ = place(sc, 4, func(i int) *v1.Pod { return podOf(fmt.Sprintf("web-%d", i), "web", nil, tsc) })
	if z := zonesOf(sc, where); z["a"] != 2 || z["b"] != 2 {
		t.Errorf("zones %v without minDomains, want 2 and 2", z)
	}
}

// TestSpreadMissingKey: a node without the constraint's key takes no pod of a DoNotSchedule
// constraint, and says why.
func TestSpreadMissingKey(t *testing.T) {
	sc := New(append(zoned("a", 1, 0), ShapedNodes([]string{"nozone"}, NodeShape{})...))
	sc.Cordon("a-1")
	p := podOf("web-0", "web", nil, spread("web", v1.LabelTopologyZone, 1, v1.DoNotSchedule))
	if n := sc.Schedule(p); n != "" {
		t.Errorf("Schedule() = %q, want none: the only open node has no zone", n)
	}
	if want := "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label), 1 node(s) were unschedulable."; sc.Why(p) != want {
		t.Errorf("Why() = %q, want %q", sc.Why(p), want)
	}
}

// TestSpreadNodePolicies: nodeAffinityPolicy Honor (the default) counts only the nodes the
// pod's selector picks; nodeTaintsPolicy Honor drops a cordoned node's domain, which Ignore
// (the default) keeps counting; a removed node's domain no longer counts.
func TestSpreadNodePolicies(t *testing.T) {
	nodes := append(append(zoned("a", 1, 0), zoned("b", 1, 0)...), zoned("c", 1, 0)...)
	tsc := spread("web", v1.LabelTopologyZone, 1, v1.DoNotSchedule)
	mk := func(i int) *v1.Pod { return podOf(fmt.Sprintf("web-%d", i), "web", nil, tsc) }
	sc := New(nodes)
	sc.Cordon("c-1")
	// Zone c is cordoned and empty: with Ignore it still counts, so a and b hold one each.
	where, _ := place(sc, 3, mk)
	if z := zonesOf(sc, where); z["a"] != 1 || z["b"] != 1 || z["Pending"] != 1 {
		t.Errorf("Ignore: zones %v, want a 1, b 1, one Pending (the cordoned zone c counts as 0)", z)
	}
	honor := v1.NodeInclusionPolicyHonor
	tsc.NodeTaintsPolicy = &honor
	if n := sc.Schedule(mk(9)); n == "" {
		t.Errorf("Honor: Schedule() = none, want a node: the cordoned zone's taint drops it")
	}
	tsc.NodeTaintsPolicy = nil
	sc.RemoveNode("c-1")
	if n := sc.Schedule(mk(9)); n == "" {
		t.Errorf("after c-1 left: Schedule() = none, want a node")
	}
	// c-1 joins again, schedulable: zone c is the emptiest and takes the pod.
	sc.AddNode(zoned("c", 1, 0)[0])
	if n := sc.Schedule(mk(9)); n != "c-1" {
		t.Errorf("after c-1 joined again: Schedule() = %q, want c-1", n)
	}
	// A nodeSelector for zone a and b: zone c does not count even uncordoned.
	sc = New(nodes)
	where, _ = place(sc, 4, func(i int) *v1.Pod {
		p := mk(i)
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelTopologyZone, Operator: v1.NodeSelectorOpIn, Values: []string{"a", "b"}}}}}}}}
		return p
	})
	if z := zonesOf(sc, where); z["a"] != 2 || z["b"] != 2 {
		t.Errorf("nodeAffinity Honor: zones %v, want a 2, b 2", z)
	}
}

// TestSpreadMatchLabelKeys: matchLabelKeys narrows the count to the pod's own revision.
func TestSpreadMatchLabelKeys(t *testing.T) {
	nodes := append(zoned("a", 1, 0), zoned("b", 1, 1)...)
	for _, keys := range [][]string{nil, {"pod-template-hash"}} {
		sc := New(nodes)
		for i := range 2 {
			old := podOf(fmt.Sprintf("old-%d", i), "web", nil)
			old.Labels["pod-template-hash"] = "v1"
			old.Spec.NodeName = "a-1"
			sc.Add(old, 1)
		}
		full := podOf("other", "other", nil)
		full.Spec.NodeName = "b-1"
		sc.Add(full, 1)
		tsc := spread("web", v1.LabelTopologyZone, 1, v1.DoNotSchedule)
		tsc.MatchLabelKeys = keys
		p := podOf("new", "web", nil, tsc)
		p.Labels = maps.Clone(p.Labels)
		p.Labels["pod-template-hash"] = "v2"
		got := sc.Schedule(p)
		want := "a-1"
		if keys == nil {
			want = "" // a has 2 of app=web, b none and full
		}
		if got != want {
			t.Errorf("matchLabelKeys %v: Schedule() = %q, want %q", keys, got, want)
		}
	}
}

// TestSpreadScheduleAnyway: a ScheduleAnyway zone constraint balances zones where the spread
// by controller alone balances nodes.
func TestSpreadScheduleAnyway(t *testing.T) {
	nodes := append(zoned("a", 2, 0), zoned("b", 1, 0)...)
	for _, anyway := range []bool{false, true} {
		sc := New(nodes)
		where, _ := place(sc, 4, func(i int) *v1.Pod {
			if anyway {
				return podOf(fmt.Sprintf("web-%d", i), "web", nil, spread("web", v1.LabelTopologyZone, 1, v1.ScheduleAnyway))
			}
			return podOf(fmt.Sprintf("web-%d", i), "web", nil)
		})
		z := zonesOf(sc, where)
		if anyway && (z["a"] != 2 || z["b"] != 2) {
			t.Errorf("ScheduleAnyway: zones %v (placed %v), want 2 and 2", z, where)
		}
		if !anyway && (z["a"] != 3 || z["b"] != 1) {
			t.Errorf("no constraint: zones %v (placed %v), want 3 in a (its two nodes) and 1 in b", z, where)
		}
	}
}
