package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// TestLoadRestrictor: an overlay whose patch is outside its directory
// (../../common/patch.yaml, as Argo CD and Flux build with
// LoadRestrictionsNone) builds with --load-restrictor LoadRestrictionsNone
// and fails as kustomize's default does; either way the patch is never
// loaded as a manifest of its own.
func TestLoadRestrictor(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"base/kustomization.yaml": "resources:\n- deploy.yaml\n",
		"base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n" +
			"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n" +
			"    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n",
		"overlays/prod/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: ../../common/patch.yaml\n",
		"common/patch.yaml":                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		restrictor string
		wantErr    string // in the kustomization's problem; "" for none
		wantAt     string // where the built Deployment's spec.replicas is
	}{
		{name: "default: root only", wantErr: "is not in or below"},
		{name: "LoadRestrictionsNone", restrictor: LoadRestrictionsNone, wantAt: "common/patch.yaml:6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRenderer(t, Options{LoadRestrictor: tt.restrictor})
			// The whole tree, as a repository is linted: the patch is a
			// sibling of the overlay, not below it.
			set := manifest.LoadWith([]string{root}, nil, r)
			var problems []string
			for _, p := range set.Problems {
				problems = append(problems, p.Source.File+": "+p.Message)
			}
			for _, o := range set.Objects {
				if strings.HasSuffix(o.File, "patch.yaml") && o.Rendered == nil {
					t.Errorf("the patch %s is loaded as a manifest of its own", o.File)
				}
			}
			if tt.wantErr != "" {
				if len(problems) != 1 || !strings.Contains(problems[0], tt.wantErr) {
					t.Errorf("problems = %q, want one holding %q", problems, tt.wantErr)
				}
				return
			}
			if len(problems) > 0 {
				t.Fatalf("problems = %q", problems)
			}
			overlay := filepath.Join(root, "overlays", "prod")
			origin := set.Origins[manifest.RenderedName(overlay, manifest.Kustomization)]
			var got []string
			for _, o := range set.Objects {
				if o.Kind != "Deployment" || o.File != manifest.RenderedName(overlay, manifest.Kustomization) {
					continue
				}
				if loc, ok := origin.Locate(o.Document, "spec.replicas"); ok {
					rel, _ := filepath.Rel(root, loc.File)
					got = append(got, filepath.ToSlash(rel)+":"+itoa(loc.Pos.Line))
				}
			}
			if len(got) != 1 || got[0] != tt.wantAt {
				t.Errorf("the overlay's Deployment's spec.replicas is at %q, want %s", got, tt.wantAt)
			}
		})
	}
}
