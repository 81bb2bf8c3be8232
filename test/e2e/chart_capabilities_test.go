package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.capabilities.example.com
spec:
  group: capabilities.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// TestLintChartForTheCluster: with --against-live, a chart is rendered with
// the cluster's discovery as .Capabilities.APIVersions, as helm install
// renders it there (a CRD the cluster serves is seen); without it, with
// the versions a v1.37 cluster serves by default, and --api-versions adds
// one as helm template's does.
func TestLintChartForTheCluster(t *testing.T) {
	c := sharedCluster(t)
	plugin := pluginBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	crd := filepath.Join(dir, "crd.yaml")
	chart := filepath.Join(dir, "web")
	files := map[string]string{
		crd:                                widgetCRD,
		filepath.Join(chart, "Chart.yaml"): "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		filepath.Join(chart, "templates", "d.yaml"): "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ if .Capabilities.APIVersions.Has \"capabilities.example.com/v1/Widget\" }}web-widgets{{ else }}web-plain{{ end }}\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n",
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := c.Kubectl(ctx, "apply", "-f", crd); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	// Deleted and gone from discovery before the next test reads it.
	defer func() { _, _ = c.Kubectl(context.Background(), "delete", "-f", crd, "--wait=true", "--timeout=60s") }()
	if out, err := c.WaitEstablished(ctx, "crd/widgets.capabilities.example.com"); err != nil {
		t.Fatalf("kubectl wait: %v\n%s", err, out)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"offline: a v1.37 cluster's versions", nil, "web-plain"},
		{"--api-versions", []string{"--api-versions", "capabilities.example.com/v1/Widget"}, "web-widgets"},
		{"--against-live: the cluster's discovery", []string{"--against-live", "--kubeconfig", c.Kubeconfig}, "web-widgets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.CommandContext(ctx, plugin, append([]string{"lint", "-o", "json", chart}, tt.args...)...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			_ = cmd.Run() // findings exit 1
			var rep struct {
				Findings []struct {
					Object *struct {
						Name string `json:"name"`
					} `json:"object"`
				} `json:"findings"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("lint %v: %v\nstdout:\n%s\nstderr:\n%s", tt.args, err, stdout.String(), stderr.String())
			}
			var names []string
			for _, f := range rep.Findings {
				if f.Object != nil && !slices.Contains(names, f.Object.Name) {
					names = append(names, f.Object.Name)
				}
			}
			if len(names) != 1 || names[0] != tt.want {
				t.Errorf("lint %v: findings about %q, want %s\nstderr:\n%s", tt.args, names, tt.want, stderr.String())
			}
		})
	}
}
