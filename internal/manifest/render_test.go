package manifest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recordRenderer renders nothing and records what it was asked to render.
type recordRenderer struct{}

func (recordRenderer) Render(dir string, kind DirKind) *Set {
	return &Set{Files: 1, Skipped: []Skipped{{Source: Source{File: dir}, Reason: string(kind)}}}
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func inputNames(ins []Input) []string {
	var out []string
	for _, in := range ins {
		name := in.Name
		if k, ok := in.RenderKind(); ok {
			name += " (" + string(k) + ")"
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// TestExpandWithRenderer: charts and kustomizations found while walking are
// one input each, their files are not inputs of their own, a Component is
// not built alone, and a file named under a chart stands for the chart.
func TestExpandWithRenderer(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"plain.yaml":                     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
		"web/Chart.yaml":                 "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":                "a: 1\n",
		"web/templates/d.yaml":           "kind: {{ .Values.a }}\n",
		"web/charts/db/Chart.yaml":       "apiVersion: v2\nname: db\nversion: 0.1.0\n",
		"kust/base/kustomization.yaml":   "resources:\n  - d.yaml\n",
		"kust/base/d.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
		"kust/prod/kustomization.yml":    "resources:\n  - ../base\n",
		"kust/comp/kustomization.yaml":   "kind: Component\npatches:\n  - path: p.yaml\n",
		"kust/comp/p.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
		"kust/other/Kustomization":       "resources: []\n",
		"kust/other/patches/extra.yaml":  "a: b\n",
		"notachart/templates/chart.yaml": "a: b\n",
	})
	ins, probs := ExpandWith([]string{root}, nil, recordRenderer{})
	if len(probs) > 0 {
		t.Fatalf("problems %+v", probs)
	}
	rel := func(names []string) []string {
		for i, n := range names {
			names[i] = strings.TrimPrefix(n, root+"/")
		}
		return names
	}
	got := rel(inputNames(ins))
	want := []string{"kust/base (kustomize)", "kust/other (kustomize)", "kust/prod (kustomize)", "notachart/templates/chart.yaml", "plain.yaml", "web (helm)"}
	if !slices.Equal(got, want) {
		t.Errorf("ExpandWith(root) = %q, want %q", got, want)
	}

	// Without a renderer, nothing changes: every file is read.
	ins, _ = Expand([]string{root}, nil)
	if n := len(ins); n < 9 {
		t.Errorf("Expand(root) = %d inputs, want every YAML file", n)
	}

	// A template named on its own (as a pre-commit hook does) is its chart,
	// the outermost one.
	ins, _ = ExpandWith([]string{filepath.Join(root, "web/templates/d.yaml"), filepath.Join(root, "web/charts/db/Chart.yaml")}, nil, recordRenderer{})
	if got := rel(inputNames(ins)); !slices.Equal(got, []string{"web (helm)"}) {
		t.Errorf("ExpandWith(template, subchart file) = %q, want the chart once", got)
	}
	// A Component named as a directory is built (and kustomize says why it cannot be).
	ins, _ = ExpandWith([]string{filepath.Join(root, "kust/comp")}, nil, recordRenderer{})
	if got := rel(inputNames(ins)); !slices.Equal(got, []string{"kust/comp (kustomize)"}) {
		t.Errorf("ExpandWith(component) = %q", got)
	}
	set := LoadWith([]string{filepath.Join(root, "web")}, nil, recordRenderer{})
	if set.Files != 1 || len(set.Skipped) != 1 || set.Skipped[0].Reason != "helm" {
		t.Errorf("LoadWith(chart) = %+v, want the renderer's set", set)
	}
}

// failRenderer fails the test when asked to render.
type failRenderer struct{ t *testing.T }

func (f failRenderer) Render(dir string, kind DirKind) *Set {
	f.t.Errorf("Render(%s, %s) called for plain files", dir, kind)
	return &Set{}
}

// TestPlainFilesNeverRender: without a chart or kustomization in the input,
// the renderer is never called, so plain runs cost what they did.
func TestPlainFilesNeverRender(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"a.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
		"sub/b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
	})
	set := LoadWith([]string{root, filepath.Join(root, "a.yaml")}, nil, failRenderer{t})
	if len(set.Objects) != 2 {
		t.Errorf("LoadWith = %d objects, want 2", len(set.Objects))
	}
}

// TestInputRoot: the boundary of a chart's links is the git work tree
// holding the argument, else the argument itself.
func TestInputRoot(t *testing.T) {
	repo := t.TempDir()
	chart := filepath.Join(repo, "deploy", "charts", "app")
	if err := os.MkdirAll(chart, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := InputRoot(chart); got != chart {
		t.Errorf("InputRoot(%s) outside any repository = %s, want the argument", chart, got)
	}
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{chart, filepath.Join(repo, "deploy")} {
		if got := InputRoot(arg); got != repo {
			t.Errorf("InputRoot(%s) = %s, want the work tree %s", arg, got, repo)
		}
	}
}
