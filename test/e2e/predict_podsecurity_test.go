package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// predictPSSNamespace is labelled enforce=restricted in the cluster only.
const predictPSSNamespace = "predict-pss"

const predictPSSDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: predict-pss
spec:
  replicas: 2
  progressDeadlineSeconds: 60
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.example.com/web:1.0
`

// TestPredictPodSecurityFailedCreate predicts, with --live, a Deployment whose namespace
// the cluster labels enforce=restricted, then applies it to the real controllers: predict
// says the rollout stalls because the namespace refuses every pod, and the ReplicaSet
// controller's FailedCreate event carries the same `violates PodSecurity ...` text.
func TestPredictPodSecurityFailedCreate(t *testing.T) {
	c := sharedCluster(t)
	sharedControllers(t)
	plugin := pluginBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.EnsureNamespace(ctx, predictPSSNamespace); err != nil {
		t.Fatal(err)
	}
	if out, err := c.Kubectl(ctx, "label", "namespace", predictPSSNamespace, "--overwrite",
		"pod-security.kubernetes.io/enforce=restricted"); err != nil {
		t.Fatalf("label namespace: %v\n%s", err, out)
	}
	path := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(path, []byte(predictPSSDeployment), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, plugin, "predict", "-f", path, "--live", "-o", "json", "--kubeconfig", c.Kubeconfig)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var exitErr *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &exitErr) || exitErr.ExitCode() != 1 {
		t.Fatalf("predict: %v, want exit 1 (a stalled rollout)\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var rep struct {
		Predictions []struct {
			Timing struct {
				PodSecurityRefusal string `json:"podSecurityRefusal"`
			} `json:"timing"`
			Plan struct {
				Summary struct {
					Completed   bool   `json:"completed"`
					StallReason string `json:"stallReason"`
					PeakPods    int    `json:"peakPods"`
				} `json:"summary"`
			} `json:"plan"`
		} `json:"predictions"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Predictions) != 1 {
		t.Fatalf("predict -o json: %v, %d predictions\n%s", err, len(rep.Predictions), stdout.String())
	}
	p := rep.Predictions[0]
	prefix := "namespace " + predictPSSNamespace + " refuses every new pod: "
	if p.Plan.Summary.Completed || !strings.HasPrefix(p.Plan.Summary.StallReason, prefix) {
		t.Fatalf("predict: completed %v, stall reason %q; want a stall starting %q", p.Plan.Summary.Completed, p.Plan.Summary.StallReason, prefix)
	}
	reason, _, _ := strings.Cut(strings.TrimPrefix(p.Plan.Summary.StallReason, prefix), "; ")
	if !strings.HasPrefix(reason, `violates PodSecurity "restricted:latest": `) {
		t.Fatalf("predicted reason %q", reason)
	}

	if out, err := c.Kubectl(ctx, "apply", "-f", path); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	defer func() {
		_, _ = c.Kubectl(context.Background(), "delete", "-f", path, "--wait=false")
	}()
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for ctx.Err() == nil {
		events, err := cs.CoreV1().Events(predictPSSNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		seen = seen[:0]
		for _, e := range events.Items {
			if e.Reason != "FailedCreate" || e.InvolvedObject.Kind != "ReplicaSet" {
				continue
			}
			seen = append(seen, e.Message)
			// Error creating: pods "web-<hash>-<suffix>" is forbidden: violates PodSecurity ...
			if _, after, ok := strings.Cut(e.Message, " is forbidden: "); ok && strings.HasPrefix(e.Message, `Error creating: pods "web-`) {
				if after != reason {
					t.Errorf("FailedCreate event:\n  %s\npredicted reason:\n  %s", e.Message, reason)
				}
				pods, err := cs.CoreV1().Pods(predictPSSNamespace).List(ctx, metav1.ListOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(pods.Items) != 0 {
					t.Errorf("%d pods exist in namespace %s; the namespace should refuse every one", len(pods.Items), predictPSSNamespace)
				}
				// The plan creates no pod either: the refused pods are not counted.
				if p.Plan.Summary.PeakPods != len(pods.Items) {
					t.Errorf("the plan's peak is %d pods, the cluster has %d", p.Plan.Summary.PeakPods, len(pods.Items))
				}
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("no FailedCreate event from the ReplicaSet controller; events seen: %q", seen)
}
