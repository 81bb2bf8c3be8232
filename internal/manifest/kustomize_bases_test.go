package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadKustomizeBasesFollowed: a base named under the deprecated bases: key (which
// kustomize still reads, and kustomize's own types.Kustomization has) is followed like a
// resource, so the patches its kustomization lists are skipped, not linted as objects.
func TestLoadKustomizeBasesFollowed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("overlay/kustomization.yaml", "bases: [../base]\n")
	write("base/kustomization.yaml", "resources: [deploy.yaml]\npatchesStrategicMerge: [../shared/replicas.yaml]\n")
	write("base/deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n")
	write("shared/replicas.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3}\n")
	set := Load([]string{filepath.Join(dir, "overlay"), filepath.Join(dir, "shared")}, nil)
	skipped := false
	for _, s := range set.Skipped {
		if strings.HasSuffix(s.File, "replicas.yaml") && strings.Contains(s.Reason, "Kustomize patch") {
			skipped = true
		}
	}
	for _, o := range set.Objects {
		if strings.HasSuffix(o.File, "replicas.yaml") {
			t.Errorf("Load linted the patch %s, listed by a base named under bases:", o.File)
		}
	}
	if !skipped {
		t.Errorf("Load skipped %+v, want shared/replicas.yaml skipped as a Kustomize patch", set.Skipped)
	}
}
