package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/render"
)

// TestFromChart: --from a chart renders it as -f renders the new one, so
// the Deployment's baseline is the old chart's, not "none".
func TestFromChart(t *testing.T) {
	root := t.TempDir()
	write := func(dir, image string) string {
		d := filepath.Join(root, dir)
		files := map[string]string{
			"Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
			"values.yaml": "image: " + image + "\n",
			"templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 4\n" +
				"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n" +
				"    spec:\n      containers:\n      - name: web\n        image: {{ .Values.image }}\n",
		}
		for name, text := range files {
			p := filepath.Join(d, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	oldChart, newChart := write("old", "nginx:1.26"), write("new", "nginx:1.27")
	r, err := render.New(render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Request{Files: []string{newChart}, From: []string{oldChart}, Renderer: r})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("Run: problems %+v", res.Problems)
	}
	if len(res.Predictions) != 1 {
		t.Fatalf("Run: %d predictions, want 1", len(res.Predictions))
	}
	p := res.Predictions[0]
	if strings.HasPrefix(p.Baseline, "none") || !strings.Contains(p.Baseline, "old") {
		t.Errorf("Run(--from chart).Baseline = %q, want the old chart's Deployment", p.Baseline)
	}
}
