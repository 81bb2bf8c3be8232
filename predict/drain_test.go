package predict

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// TestWorldOfDefaultsNamespace: every namespaced object a drain reads that is
// written without a namespace is in "default", as kubectl apply puts it, so
// that a Job's or ReplicationController's pods find their owner; a written
// namespace and a Node (cluster-scoped) are left alone.
func TestWorldOfDefaultsNamespace(t *testing.T) {
	const docs = `apiVersion: v1
kind: Pod
metadata: {name: p}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: b, namespace: shop}
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
`
	w, err := worldOf(manifest.Parse("cluster.yaml", []byte(docs)))
	if err != nil {
		t.Fatal(err)
	}
	var objs []runtime.Object
	for _, p := range w.Pods {
		objs = append(objs, p)
	}
	for _, b := range w.Budgets {
		objs = append(objs, b)
	}
	for _, d := range w.Deployments {
		objs = append(objs, d)
	}
	for _, rs := range w.ReplicaSets {
		objs = append(objs, rs)
	}
	for _, s := range w.StatefulSets {
		objs = append(objs, s)
	}
	for _, d := range w.DaemonSets {
		objs = append(objs, d)
	}
	for _, rc := range w.ReplicationControllers {
		objs = append(objs, rc)
	}
	for _, j := range w.Jobs {
		objs = append(objs, j)
	}
	if len(objs) != 8 || len(w.Nodes) != 1 {
		t.Fatalf("decoded %d namespaced objects and %d nodes, want 8 and 1", len(objs), len(w.Nodes))
	}
	for _, o := range objs {
		m, _ := meta.Accessor(o)
		want := "default"
		if m.GetName() == "b" {
			want = "shop"
		}
		if m.GetNamespace() != want {
			t.Errorf("%s: namespace %q, want %q", m.GetName(), m.GetNamespace(), want)
		}
	}
	if ns := w.Nodes[0].Namespace; ns != "" {
		t.Errorf("node: namespace %q, want none", ns)
	}
}
