package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/predict"
	"github.com/kubectl-workload/kubectl-workload/predict/planreport"
)

// deleteObject is one object of a delete scenario as the test sees it: its id as the plan
// names it, its UID and the UIDs of its owners.
type deleteObject struct {
	id     string
	uid    types.UID
	owners []types.UID
}

// TestPredictDeleteDifferential runs real kubectl delete deployment --cascade=background,
// foreground and orphan (the shared kube-controller-manager runs the garbage collector)
// and checks that predict delete, from a dump taken just before and from the cluster
// itself, names the same objects deleted and orphaned. The pods stay Pending (a node
// selector nothing matches), so they go without a grace period and the run takes seconds.
func TestPredictDeleteDifferential(t *testing.T) {
	c := sharedCluster(t)
	sharedControllers(t)
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []struct{ name, target, cascade string }{
		{name: "background", target: "deployment/web", cascade: "background"},
		{name: "foreground", target: "deployment/web", cascade: "foreground"},
		{name: "orphan", target: "deployment/web", cascade: "orphan"},
		// The ReplicaSet under its Deployment: its pods go, and the Deployment creates it again.
		{name: "replicaset", target: "replicaset", cascade: "background"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cascade := sc.cascade
			ns := "delete-" + sc.name
			if err := c.EnsureNamespace(ctx, ns); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _, _ = c.Kubectl(context.Background(), "delete", "namespace", ns, "--wait=false") })
			dir := t.TempDir()
			app := fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: %s}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {predict-delete-e2e: nowhere}
      containers: [{name: web, image: nginx}]
`, ns)
			if err := os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(app), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := c.Kubectl(ctx, "apply", "-f", filepath.Join(dir, "app.yaml")); err != nil {
				t.Fatalf("apply: %v: %s", err, out)
			}
			err := waitFor(ctx, nil, time.Minute, "a ReplicaSet and 2 pods", func() (bool, error) {
				objs, err := deleteWorld(ctx, cs, ns)
				return len(objs) == 4, err
			})
			if err != nil {
				t.Fatal(err)
			}
			before, err := deleteWorld(ctx, cs, ns)
			if err != nil {
				t.Fatal(err)
			}
			target := sc.target
			for _, o := range before {
				if target == "replicaset" && strings.HasPrefix(o.id, "ReplicaSet/") {
					target = "replicaset/" + strings.TrimPrefix(o.id, "ReplicaSet/"+ns+"/")
				}
			}
			state, err := c.Kubectl(ctx, "get", "deploy,rs,pods", "-n", ns, "-o", "yaml")
			if err != nil {
				t.Fatalf("dump: %v: %s", err, state)
			}
			statePath := filepath.Join(dir, "state.yaml")
			if err := os.WriteFile(statePath, state, 0o600); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			targets, err := predict.ParseDeleteTargets([]string{target})
			if err != nil {
				t.Fatal(err)
			}
			o := predict.DeleteRequest{Files: []string{statePath}, Cascade: cascade, Namespace: ns, Targets: targets}
			predictDelete := func(c *live.Client) {
				t.Helper()
				res, err := predict.Delete(ctx, o, c)
				if err != nil {
					t.Fatalf("predict delete: %v", err)
				}
				out.Reset()
				if err := planreport.DeleteJSON(&out, res.Plans...); err != nil {
					t.Fatal(err)
				}
			}
			predictDelete(nil)
			plan := deletePlanSets(t, out.Bytes())
			getter := genericclioptions.NewConfigFlags(false)
			getter.KubeConfig = &c.Kubeconfig
			client, err := live.Connect(ctx, getter, func(string) {})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			o.Files = nil
			predictDelete(client)
			if livePlan := deletePlanSets(t, out.Bytes()); !reflect.DeepEqual(livePlan, plan) {
				t.Errorf("predict delete from the cluster = %v, from the dump %v", livePlan, plan)
			}

			if out, err := c.Kubectl(ctx, "delete", target, "-n", ns, "--cascade="+cascade); err != nil {
				t.Fatalf("kubectl delete: %v: %s", err, out)
			}
			// The collector is done when no remaining object is deleting or points at an owner
			// that is gone.
			var after []deleteObject
			err = waitFor(ctx, nil, time.Minute, "the garbage collector to settle", func() (bool, error) {
				var err error
				if after, err = deleteWorldSettled(ctx, cs, ns); err != nil || after == nil {
					return false, err
				}
				return true, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			real := realDeleteSets(before, after)
			t.Logf("real kubectl delete --cascade=%s: %v", cascade, real)
			if !reflect.DeepEqual(plan, real) {
				t.Errorf("predict delete --cascade=%s = %v, real %v", cascade, plan, real)
			}
		})
	}
}

// deleteWorld lists the namespace's Deployments, ReplicaSets and pods.
func deleteWorld(ctx context.Context, cs kubernetes.Interface, ns string) ([]deleteObject, error) {
	objs, _, err := deleteWorldMeta(ctx, cs, ns)
	return objs, err
}

// deleteWorldSettled is deleteWorld once no object is deleting nor owned by a missing
// owner, and a remaining Deployment owns a ReplicaSet; nil before.
func deleteWorldSettled(ctx context.Context, cs kubernetes.Interface, ns string) ([]deleteObject, error) {
	objs, deleting, err := deleteWorldMeta(ctx, cs, ns)
	if err != nil || deleting {
		return nil, err
	}
	uids := map[types.UID]bool{}
	for _, o := range objs {
		uids[o.uid] = true
	}
	owned := map[types.UID]bool{}
	for _, o := range objs {
		for _, u := range o.owners {
			if !uids[u] {
				return nil, nil
			}
			owned[u] = true
		}
	}
	// A Deployment left standing has its ReplicaSet again (the Deployment controller has
	// caught up).
	for _, o := range objs {
		if strings.HasPrefix(o.id, "Deployment/") && !owned[o.uid] {
			return nil, nil
		}
	}
	return append([]deleteObject{}, objs...), nil
}

func deleteWorldMeta(ctx context.Context, cs kubernetes.Interface, ns string) (objs []deleteObject, deleting bool, err error) {
	add := func(kind string, m metav1.ObjectMeta) {
		o := deleteObject{id: kind + "/" + m.Namespace + "/" + m.Name, uid: m.UID}
		for _, r := range m.OwnerReferences {
			o.owners = append(o.owners, r.UID)
		}
		objs = append(objs, o)
		deleting = deleting || m.DeletionTimestamp != nil
	}
	ds, err := cs.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, false, err
	}
	for _, d := range ds.Items {
		add("Deployment", d.ObjectMeta)
	}
	rss, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, false, err
	}
	for _, rs := range rss.Items {
		add("ReplicaSet", rs.ObjectMeta)
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, false, err
	}
	for _, p := range pods.Items {
		add("Pod", p.ObjectMeta)
	}
	return objs, deleting, nil
}

// realDeleteSets compares the objects before and after: deleted are those whose UID is
// gone, orphaned those still there that lost an ownerReference, recreated those gone whose
// name is back under a new UID.
func realDeleteSets(before, after []deleteObject) map[string][]string {
	now, names := map[types.UID]deleteObject{}, map[string]bool{}
	for _, o := range after {
		now[o.uid], names[o.id] = o, true
	}
	sets := map[string][]string{"deleted": {}, "orphaned": {}, "recreated": {}}
	// New pods (a recreated ReplicaSet's) are counted: their names are random.
	was := map[types.UID]bool{}
	for _, o := range before {
		was[o.uid] = true
	}
	created := 0
	for _, o := range after {
		if !was[o.uid] && strings.HasPrefix(o.id, "Pod/") {
			created++
		}
	}
	sets["createdPods"] = []string{fmt.Sprint(created)}
	for _, o := range before {
		a, ok := now[o.uid]
		switch {
		case !ok:
			sets["deleted"] = append(sets["deleted"], o.id)
			if names[o.id] {
				sets["recreated"] = append(sets["recreated"], o.id)
			}
		case len(a.owners) < len(o.owners):
			sets["orphaned"] = append(sets["orphaned"], o.id)
		}
	}
	for _, l := range sets {
		sort.Strings(l)
	}
	return sets
}

// deletePlanSets reads the deleted, orphaned and recreated objects of a predict delete -o
// json plan (recreated: those that come back under the same name; pods replaced under new
// names are not compared); a plan with anything waiting fails the test (no scenario has a
// finalizer).
func deletePlanSets(t *testing.T, out []byte) map[string][]string {
	t.Helper()
	var p struct{ Deleted, Orphaned, Waiting, Recreated, Created []string }
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("predict delete -o json: %v: %s", err, out)
	}
	if len(p.Waiting) > 0 {
		t.Errorf("predict delete: waiting %v; want none", p.Waiting)
	}
	sameName := []string{}
	for _, id := range p.Recreated {
		if !strings.HasPrefix(id, "Pod/") {
			sameName = append(sameName, id)
		}
	}
	return map[string][]string{"deleted": p.Deleted, "orphaned": p.Orphaned, "recreated": sameName, "createdPods": {fmt.Sprint(len(p.Created))}}
}
