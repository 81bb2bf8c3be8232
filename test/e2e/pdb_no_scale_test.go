package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// TestPDBNoScaleDifferential checks lint's pdb/no-scale against the real disruption
// controller: a budget with maxUnavailable over a Job's pods, and one over a Pod no
// controller owns, are applied with their pods (which no node takes: only the budget's
// status matters), and each budget's status must say what the finding says: the Job's fails
// its sync with the very error the finding quotes (SyncFailed, disruptionsAllowed 0), the bare
// Pod's expects 0 pods and allows 0. A budget over a Deployment's pods, which has a scale, is
// the control: the rule is quiet and the controller expects its replicas.
func TestPDBNoScaleDifferential(t *testing.T) {
	c := sharedCluster(t)
	sharedControllers(t)
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := "pdb-no-scale"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Kubectl(context.Background(), "delete", "namespace", ns, "--wait=false") })
	// No node carries this label: the pods stay Pending, which the disruption controller
	// counts all the same.
	const nowhere = "nodeSelector: {pdb-no-scale: nowhere}"
	manifest := fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata: {name: batch, namespace: %[1]s}
spec:
  template:
    metadata: {labels: {app: batch}}
    spec:
      %[2]s
      restartPolicy: Never
      containers: [{name: batch, image: busybox}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: batch, namespace: %[1]s}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: batch}}
---
apiVersion: v1
kind: Pod
metadata: {name: tool, namespace: %[1]s, labels: {app: tool}}
spec:
  %[2]s
  containers: [{name: tool, image: busybox}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: tool, namespace: %[1]s}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: tool}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: %[1]s}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      %[2]s
      containers: [{name: web, image: nginx}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: %[1]s}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}
`, ns, nowhere)
	path := filepath.Join(t.TempDir(), "budgets.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}

	linter, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	res := linter.Run(ctx, lint.Options{Paths: []string{path}})
	if len(res.Errors) > 0 {
		t.Fatalf("lint: %v", res.Errors)
	}
	found := map[string]string{} // budget name: message
	for _, f := range res.Findings {
		if f.Rule == "pdb/no-scale" {
			name := strings.Fields(f.Message)[1] // "PodDisruptionBudget NAME sets ..."
			found[name] = f.Message
		}
	}

	if out, err := c.Kubectl(ctx, "apply", "-f", path); err != nil {
		t.Fatalf("apply: %v: %s", err, out)
	}
	budget := func(name string, done func(b *policyv1.PodDisruptionBudget) bool) *policyv1.PodDisruptionBudget {
		t.Helper()
		var last *policyv1.PodDisruptionBudget
		err := waitFor(ctx, nil, time.Minute, "budget "+name+" synced", func() (bool, error) {
			b, err := cs.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			last = b
			return done(b), nil
		})
		if err != nil {
			t.Fatalf("%v (last status %+v)", err, last.Status)
		}
		return last
	}

	// The Job's budget: the controller's sync fails with the error the finding quotes.
	b := budget("batch", func(b *policyv1.PodDisruptionBudget) bool {
		cond := apimeta.FindStatusCondition(b.Status.Conditions, policyv1.DisruptionAllowedCondition)
		return cond != nil && cond.Reason == policyv1.SyncFailedReason
	})
	cond := apimeta.FindStatusCondition(b.Status.Conditions, policyv1.DisruptionAllowedCondition)
	t.Logf("budget batch: disruptionsAllowed %d, %s: %s", b.Status.DisruptionsAllowed, cond.Reason, cond.Message)
	if b.Status.DisruptionsAllowed != 0 {
		t.Errorf("budget batch: disruptionsAllowed %d, want 0", b.Status.DisruptionsAllowed)
	}
	if msg := found["batch"]; !strings.Contains(msg, "("+cond.Message+")") {
		t.Errorf("pdb/no-scale on budget batch = %q, want it to quote the controller's %q", msg, cond.Message)
	}

	// The bare Pod's budget: expects 0, allows 0.
	b = budget("tool", func(b *policyv1.PodDisruptionBudget) bool {
		return b.Status.ObservedGeneration == b.Generation && apimeta.FindStatusCondition(b.Status.Conditions, policyv1.DisruptionAllowedCondition) != nil
	})
	t.Logf("budget tool: expectedPods %d, disruptionsAllowed %d", b.Status.ExpectedPods, b.Status.DisruptionsAllowed)
	if b.Status.ExpectedPods != 0 || b.Status.DisruptionsAllowed != 0 {
		t.Errorf("budget tool: expectedPods %d, disruptionsAllowed %d, want 0 and 0", b.Status.ExpectedPods, b.Status.DisruptionsAllowed)
	}
	if msg := found["tool"]; !strings.Contains(msg, "it expects 0, allows 0 disruptions") {
		t.Errorf("pdb/no-scale on budget tool = %q, want it to say the budget expects 0", msg)
	}

	// The Deployment's budget: a scale, an expected count, no finding.
	b = budget("web", func(b *policyv1.PodDisruptionBudget) bool { return b.Status.ExpectedPods == 2 })
	if msg, ok := found["web"]; ok {
		t.Errorf("pdb/no-scale on budget web = %q, want none: the controller expects %d pods", msg, b.Status.ExpectedPods)
	}
	if len(found) != 2 {
		t.Errorf("pdb/no-scale reported %d budgets (%v), want batch and tool", len(found), found)
	}
}
