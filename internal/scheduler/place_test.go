package disruption

import (
	"fmt"
	"strings"
	"testing"

	apps "k8s.io/api/apps/v1"
	batch "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/controller"
)

func template(app string, cpu string) v1.PodTemplateSpec {
	c := v1.Container{Name: "c", Image: "nginx"}
	if cpu != "" {
		c.Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}
	}
	return v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}}, Spec: v1.PodSpec{Containers: []v1.Container{c}}}
}

func manifestDeployment(name string, n int32, cpu string) *apps.Deployment {
	return &apps.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: apps.DeploymentSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}, Template: template(name, cpu)}}
}

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
	d := manifestDeployment("web", 3, "")
	hash := controller.ComputeHash(&d.Spec.Template, nil)
	ss := &apps.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: apps.StatefulSetSpec{Replicas: ptr(int32(2)), Template: template("db", "")}}
	ds := &apps.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default"}, Spec: apps.DaemonSetSpec{Template: template("agent", "")}}
	job := &batch.Job{ObjectMeta: metav1.ObjectMeta{Name: "once", Namespace: "default"},
		Spec: batch.JobSpec{Parallelism: ptr(int32(2)), Completions: ptr(int32(5)), Template: template("once", "")}}
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
	w := World{Nodes: append(append(nodes, tainted...), cordoned...), Deployments: []*apps.Deployment{manifestDeployment("web", 3, "600m")}}
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

// TestDrainFromManifests: a gatekeeper-like single replica under minAvailable 1, drained
// from manifests over three nodes: its pod is placed on the first node by name, whose drain is
// refused forever; the plan says the pods were placed, not read.
func TestDrainFromManifests(t *testing.T) {
	one := intstr.FromInt32(1)
	b := budget("gatekeeper", &one, nil, "gatekeeper")
	w := World{Nodes: ShapedNodes([]string{"node-1", "node-2", "node-3"}, NodeShape{Pods: 110}),
		Deployments: []*apps.Deployment{manifestDeployment("gatekeeper", 1, "100m")}, Budgets: []*policy.PodDisruptionBudget{b}}
	p, err := Drain(w, Options{Nodes: []string{"node-1", "node-2", "node-3"}, GracePeriodSeconds: -1, Place: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Placed) != 1 || p.Placed[0].Node != "node-1" {
		t.Fatalf("Placed = %s, want the one pod on node-1", placedText(p.Placed))
	}
	if p.Completed || !p.Nodes[0].Forever || p.Nodes[1].Error == "" {
		t.Errorf("plan completed=%v, node-1 forever=%v, node-2 error %q: want node-1 blocked forever and node-2 never reached\n%s", p.Completed, p.Nodes[0].Forever, p.Nodes[1].Error, summary(p))
	}
	refused := 0
	for _, e := range p.Nodes[0].Events {
		if e.Kind == EventRefused && e.Code == 429 {
			refused++
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
