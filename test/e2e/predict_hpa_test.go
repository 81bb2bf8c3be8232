package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const predictHPANamespace = "predict-hpa"

// predictHPADeployment leaves spec.replicas to its autoscaler, as the autoscaler's
// documentation asks; IMAGE is replaced.
const predictHPADeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: predict-hpa
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: api
        image: IMAGE
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: api
  namespace: predict-hpa
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 70}
`

// TestPredictAutoscaledLive: a Deployment whose autoscaler holds it at 5 replicas (written
// through the scale subresource, as the autoscaler writes it; this cluster runs no autoscaler
// controller and no metrics) is planned at 5 from the cluster, with the autoscaler named, both
// for deployment/NAME --image and for -f --live of the manifest without spec.replicas; and the
// API server, given that manifest by kubectl apply, keeps spec.replicas at 5, the count
// planned.
func TestPredictAutoscaledLive(t *testing.T) {
	c := sharedCluster(t)
	sharedControllers(t)
	plugin := pluginBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.EnsureNamespace(ctx, predictHPANamespace); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, image string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(predictHPADeployment, "IMAGE", image)), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	v1, v2 := write("v1.yaml", "registry.example.com/api:1.0"), write("v2.yaml", "registry.example.com/api:2.0")
	kubectl := func(args ...string) string {
		t.Helper()
		out, err := c.Kubectl(ctx, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	kubectl("apply", "-f", v1)
	kubectl("scale", "-n", predictHPANamespace, "deployment/api", "--replicas=5")
	kubectl("patch", "-n", predictHPANamespace, "hpa/api", "--subresource=status", "--type=merge",
		"-p", `{"status":{"currentReplicas":5,"desiredReplicas":5}}`)
	kubectl("rollout", "status", "-n", predictHPANamespace, "deployment/api", "--timeout=90s")

	type report struct {
		Predictions []struct {
			Autoscaler *struct {
				Name            string `json:"name"`
				Basis           string `json:"basis"`
				Replicas        int32  `json:"replicas"`
				CurrentReplicas *int32 `json:"currentReplicas"`
				MinReplicas     int32  `json:"minReplicas"`
			} `json:"autoscaler"`
			Plan struct {
				Header struct {
					Replicas int32 `json:"replicas"`
				} `json:"header"`
				Summary struct {
					Completed bool `json:"completed"`
				} `json:"summary"`
			} `json:"plan"`
		} `json:"predictions"`
	}
	for _, args := range [][]string{
		{"deployment/api", "--image", "api=registry.example.com/api:2.0"},
		{"-f", v2, "--live"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.CommandContext(ctx, plugin, append(append([]string{"predict"}, args...),
				"-n", predictHPANamespace, "-o", "json", "--kubeconfig", c.Kubeconfig)...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("predict %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
			}
			var rep report
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("predict %v -o json: %v\n%s", args, err, stdout.String())
			}
			if len(rep.Predictions) != 1 {
				t.Fatalf("predict %v: %d predictions, want 1\n%s", args, len(rep.Predictions), stdout.String())
			}
			p := rep.Predictions[0]
			a := p.Autoscaler
			if a == nil {
				t.Fatalf("predict %v: no autoscaler, want hpa/api\n%s", args, stdout.String())
			}
			if a.Name != "api" || a.Basis != "current" || a.Replicas != 5 || a.MinReplicas != 2 || a.CurrentReplicas == nil || *a.CurrentReplicas != 5 {
				t.Errorf("predict %v: autoscaler %+v, want api at its current 5 (minReplicas 2, status.currentReplicas 5)", args, *a)
			}
			if p.Plan.Header.Replicas != 5 || !p.Plan.Summary.Completed {
				t.Errorf("predict %v: plan at %d replicas (completed %v), want 5, completed", args, p.Plan.Header.Replicas, p.Plan.Summary.Completed)
			}
		})
	}
	// The API server's answer to kubectl apply of the new manifest keeps the count the
	// autoscaler set, which is what the plan ran at.
	out := kubectl("apply", "-f", v2, "--dry-run=server", "-o", "jsonpath={.items[?(@.kind==\"Deployment\")].spec.replicas}")
	if strings.TrimSpace(out) != "5" {
		t.Errorf("kubectl apply --dry-run=server: spec.replicas %q, want 5 (the count planned)", out)
	}
}
