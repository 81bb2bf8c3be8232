package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSizeLimits: a Job running 10^9 pods at once, a StatefulSet of 10^9
// replicas and --runs 10000 on a Deployment of 10^6 replicas are errors
// naming the limit, at once (they used to run out of memory or for hours);
// a Deployment of 10^9 replicas, computed in counts, is still planned.
func TestSizeLimits(t *testing.T) {
	const template = `  template:
    metadata: {labels: {app: big}}
    spec:
      restartPolicy: %s
      containers: [{name: c, image: "busybox:1.36"}]
`
	tmpl := func(policy string) string { return strings.Replace(template, "%s", policy, 1) }
	for _, tt := range []struct {
		name, manifest string
		runs           int
		want           string
	}{
		{"job", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: big, namespace: default}\nspec:\n  completions: 1000000000\n  parallelism: 1000000000\n" + tmpl("Never"),
			0, "Job parallelism (at most completions) 1000000000: predict simulates a Job pod by pod, and at most 10000 pods (runner.MaxPods)"},
		{"statefulset", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: big, namespace: default}\nspec:\n  replicas: 1000000000\n  serviceName: big\n  selector: {matchLabels: {app: big}}\n" + tmpl("Always"),
			0, "StatefulSet spec.replicas 1000000000: predict simulates a StatefulSet pod by pod, and at most 10000 pods (runner.MaxPods)"},
		{"deployment runs", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big, namespace: default}\nspec:\n  replicas: 1000000\n  selector: {matchLabels: {app: big}}\n" + tmpl("Always"),
			10_000, "--runs 10000 on 1000000 pods: at most 1000000 runs × pods (runner.MaxPodRuns); give at most --runs 1"},
		{"deployment counts", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big, namespace: default}\nspec:\n  replicas: 1000000000\n  selector: {matchLabels: {app: big}}\n" + tmpl("Always"),
			0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "big.yaml")
			if err := os.WriteFile(file, []byte(tt.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			req := Request{Files: []string{file}, Runs: tt.runs}
			if tt.runs > 0 {
				req.ReadySpread = time.Second
			}
			start := time.Now()
			res, err := Run(context.Background(), req)
			if d := time.Since(start); d > time.Minute {
				t.Errorf("Run took %s", d)
			}
			if tt.want == "" {
				if err != nil || len(res.Predictions) != 1 || res.Predictions[0].Plan == nil {
					t.Fatalf("Run = %+v, %v, want a plan", res, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "big") {
				t.Fatalf("Run error = %v, want one naming the workload and containing %q", err, tt.want)
			}
		})
	}
}
