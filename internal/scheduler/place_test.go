package scheduler

import (
	"fmt"
	"strings"
	"testing"

	apps "k8s.io/api/apps/v1"
	batch "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/controller"

	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

func placedText(placed []Placed) string {
	var parts []string
	for _, p := range placed {
		parts = append(parts, fmt.Sprintf("%s(%s)@%s", p.Pod, p.Owner, p.Node))
	}
	return strings.Join(parts, " ")
}

// TestPlace: the controllers' mirrors make the pods of workloads without any, and the
// scheduler mirror spreads them as the cluster would.
func TestPlace(t *testing.T) {
	d := testkit.ManifestDeployment("web", 3, "")
	hash := controller.ComputeHash(&d.Spec.Template, nil)
	ss := &apps.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: apps.StatefulSetSpec{Replicas: testkit.Ptr(int32(2)), Template: testkit.Template("db", "")}}
	ds := &apps.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default"}, Spec: apps.DaemonSetSpec{Template: testkit.Template("agent", "")}}
	job := &batch.Job{ObjectMeta: metav1.ObjectMeta{Name: "once", Namespace: "default"},
		Spec: batch.JobSpec{Parallelism: testkit.Ptr(int32(2)), Completions: testkit.Ptr(int32(5)), Template: testkit.Template("once", "")}}
	w := World{Nodes: ShapedNodes([]string{"n1", "n2", "n3"}, NodeShape{Pods: 110}),
		Deployments: []*apps.Deployment{d}, StatefulSets: []*apps.StatefulSet{ss}, DaemonSets: []*apps.DaemonSet{ds}, Jobs: []*batch.Job{job}}
	placed := Place(&w)
	got := placedText(placed)
	rs := "web-" + hash
	for _, want := range []string{
		"(daemonset/agent)@n1", "(daemonset/agent)@n2", "(daemonset/agent)@n3",
		"default/db-0(statefulset/db)@", "default/db-1(statefulset/db)@",
		"default/" + rs + "-",
		"(job/once)@",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Place() = %s, want %s", got, want)
		}
	}
	if len(placed) != 3+3+2+2 {
		t.Errorf("Place() made %d pods, want 10: %s", len(placed), got)
	}
	if len(w.ReplicaSets) != 1 || w.ReplicaSets[0].Name != rs || w.ReplicaSets[0].Spec.Template.Labels[apps.DefaultDeploymentUniqueLabelKey] != hash {
		t.Errorf("Place() ReplicaSets = %v, want %s with its pod-template-hash", w.ReplicaSets, rs)
	}
	// The Deployment's three pods go one to a node (spread), as do the StatefulSet's two.
	nodesOf := func(owner string) map[string]int {
		m := map[string]int{}
		for _, p := range placed {
			if p.Owner == owner {
				m[p.Node]++
			}
		}
		return m
	}
	if m := nodesOf("replicaset/" + rs); len(m) != 3 {
		t.Errorf("the Deployment's pods on %v, want one on each of 3 nodes", m)
	}
	if m := nodesOf("statefulset/db"); len(m) != 2 {
		t.Errorf("the StatefulSet's pods on %v, want two nodes", m)
	}
	// A second call finds the pods and makes none.
	if again := Place(&w); len(again) != 0 {
		t.Errorf("Place() again = %s, want nothing", placedText(again))
	}
}

// TestPlaceFilters: cpu fit, taints and cordons decide where pods go, and a pod no node fits
// stays Pending.
func TestPlaceFilters(t *testing.T) {
	nodes := ShapedNodes([]string{"n1", "n2"}, NodeShape{CPU: resource.MustParse("1"), Pods: 110})
	tainted := ShapedNodes([]string{"n3"}, NodeShape{CPU: resource.MustParse("8"), Taints: []v1.Taint{{Key: "gpu", Effect: v1.TaintEffectNoSchedule}}})
	cordoned := ShapedNodes([]string{"n4"}, NodeShape{CPU: resource.MustParse("8")})
	cordoned[0].Spec.Unschedulable = true
	w := World{Nodes: append(append(nodes, tainted...), cordoned...), Deployments: []*apps.Deployment{testkit.ManifestDeployment("web", 3, "600m")}}
	placed := Place(&w)
	on := map[string]int{}
	for _, p := range placed {
		on[p.Node]++
	}
	if on["n1"] != 1 || on["n2"] != 1 || on[""] != 1 || len(placed) != 3 {
		t.Errorf("Place() = %s, want one pod on n1, one on n2 and one Pending (600m each on 1-cpu nodes; n3 tainted, n4 cordoned)", placedText(placed))
	}
	pending := 0
	for _, p := range w.Pods {
		if p.Spec.NodeName == "" && p.Status.Phase == v1.PodPending {
			pending++
		}
	}
	if pending != 1 {
		t.Errorf("%d Pending pods in the world, want 1", pending)
	}
}
