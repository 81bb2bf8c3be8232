package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKubectlKeepsTheLastDuplicateKey establishes what lint's input/duplicate-key says:
// the real kubectl, given a manifest with a key twice, in JSON and in YAML, sends the
// object with the last value, and the API server (asked for strict field validation, as
// kubectl asks by default) accepts it without a word. So a duplicate key never reaches the
// server as one, and lint reports one finding for it, not a strict decoding error.
func TestKubectlKeepsTheLastDuplicateKey(t *testing.T) {
	c := sharedCluster(t)
	dir := t.TempDir()
	docs := map[string]string{
		"dup.json": `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "dup-json", "namespace": "default"},
 "spec": {"containers": [{"name": "c", "image": "busybox:1", "image": "busybox:2"}]}}
`,
		"dup.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: dup-yaml\n  namespace: default\nspec:\n  containers:\n  - name: c\n    image: busybox:1\n    image: busybox:2\n",
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			out, err := c.Kubectl(ctx, "apply", "--dry-run=server", "--validate=strict", "-o", "json", "-f", path)
			if err != nil {
				t.Fatalf("kubectl apply --dry-run=server --validate=strict -f %s: %v\n%s", name, err, out)
			}
			var pod struct {
				Spec struct {
					Containers []struct{ Image string } `json:"containers"`
				} `json:"spec"`
			}
			if err := json.Unmarshal(out, &pod); err != nil {
				t.Fatalf("kubectl -o json: %v\n%s", err, out)
			}
			if len(pod.Spec.Containers) != 1 || pod.Spec.Containers[0].Image != "busybox:2" {
				t.Errorf("kubectl sent %s with containers %+v, want the last image, busybox:2", name, pod.Spec.Containers)
			}
			r, err := runPlugin(ctx, pluginBinary(t), path)
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, f := range r.report.Findings {
				if strings.HasPrefix(f.Rule, "api/") || strings.HasPrefix(f.Rule, "input/") {
					rules = append(rules, f.Rule)
				}
			}
			if len(rules) != 1 || rules[0] != "input/duplicate-key" {
				t.Errorf("lint %s: rules %v, want only input/duplicate-key", name, rules)
			}
		})
	}
}
