package helper_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/render"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// buildHelper builds kubectl_workload-render and points EnvPath at it.
func buildHelper(t *testing.T) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), helper.Name)
	cmd := exec.Command("go", "build", "-o", bin, "../../../cmd/kubectl_workload-render")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the helper: %v\n%s", err, out)
	}
	t.Setenv(helper.EnvPath, bin)
}

// TestHelperMatchesInProcess renders charts and overlays (good ones, and
// ones that fail) with the helper and in this process, and compares the
// sets: files, documents, problems, skipped documents, every object and
// the source location of every field of every rendered document.
func TestHelperMatchesInProcess(t *testing.T) {
	buildHelper(t)
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "Chart.yaml"), []byte("apiVersion: v2\nname: bad\nversion: 0.1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(bad, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "templates", "x.yaml"), []byte("kind: {{ required \"need x\" .Values.x }}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		opts helper.Options
		dir  string
		kind manifest.DirKind
	}{
		{helper.Options{}, "../testdata/web", manifest.Chart},
		{helper.Options{ValuesFiles: []string{"../testdata/web/values-prod.yaml"}, Set: []string{"cache.enabled=false"}, SetString: []string{"image.tag=2"},
			ReleaseName: "shop", Namespace: "payments"}, "../testdata/web", manifest.Chart},
		{helper.Options{Set: []string{"replicas=3x"}}, "../testdata/web", manifest.Chart},
		{helper.Options{}, "../testdata/kustomize/overlays/prod", manifest.Kustomization},
		{helper.Options{}, "../testdata/kustomize/overlays/staging", manifest.Kustomization},
		{helper.Options{}, bad, manifest.Chart},
		{helper.Options{}, "../testdata/nonexistent", manifest.Kustomization},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s %+v", c.dir, c.opts)
		local, err := render.New(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		remote, err := helper.New(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		want, got := local.Render(c.dir, c.kind), remote.Render(c.dir, c.kind)
		if w, g := describe(want), describe(got); w != g {
			t.Errorf("%s: the helper's set\n%s\nin process\n%s", name, g, w)
		}
		for file, o := range want.Origins {
			ro, ok := got.Origins[file]
			if !ok {
				t.Errorf("%s: the helper's set has no origin for %s", name, file)
				continue
			}
			n := 0
			for doc, obj := range want.Objects {
				for _, path := range fieldPaths(t, obj.JSON) {
					wl, wok := o.Locate(doc, path)
					gl, gok := ro.Locate(doc, path)
					if wl != gl || wok != gok {
						t.Errorf("%s: Locate(%d, %q) = %v %v through the helper, %v %v in process", name, doc, path, gl, gok, wl, wok)
					}
					n++
				}
			}
			if n == 0 {
				t.Errorf("%s: no field located", name)
			}
		}
		if err := remote.Close(); err != nil {
			t.Errorf("%s: Close: %v", name, err)
		}
	}
}

// describe is everything of a set but its origins, as text.
func describe(s *manifest.Set) string {
	var b strings.Builder
	fmt.Fprintf(&b, "files %d documents %d\nproblems %+v\nskipped %+v\n", s.Files, s.Documents, s.Problems, s.Skipped)
	for _, o := range s.Objects {
		fmt.Fprintf(&b, "%s#%d %s %s/%s at %v: %s dup %+v\n", o.File, o.Document, o.Kind, o.Namespace, o.Name, o.Start, o.JSON, o.Duplicates)
	}
	return b.String()
}

// fieldPaths lists the object's field paths in the API server's notation,
// with a few absent ones.
func fieldPaths(t *testing.T, js []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		t.Fatal(err)
	}
	paths := []string{"", "spec.absent", "spec.template.spec.containers[9].image"}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				if strings.HasSuffix(prefix, "labels") || strings.HasSuffix(prefix, "annotations") {
					p = prefix + "[" + k + "]"
				}
				paths = append(paths, p)
				walk(p, e)
			}
		case []any:
			for i, e := range x {
				p := fmt.Sprintf("%s[%d]", prefix, i)
				paths = append(paths, p)
				walk(p, e)
			}
		}
	}
	walk("", v)
	return paths
}

// TestMissingHelper: without the helper, a chart is a problem of its own
// directory that says how to get the helper; nothing crashes.
func TestMissingHelper(t *testing.T) {
	t.Setenv(helper.EnvPath, filepath.Join(t.TempDir(), "nowhere", helper.Name))
	r, err := helper.New(helper.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	set := r.Render("../testdata/web", manifest.Chart)
	if len(set.Objects) != 0 || len(set.Problems) != 1 {
		t.Fatalf("set %+v, want one problem", set)
	}
	p := set.Problems[0]
	if p.File != "../testdata/web" || !strings.Contains(p.Message, "cannot render this helm directory") || !strings.Contains(p.Message, helper.Name) {
		t.Errorf("problem %+v, want one at ../testdata/web naming the helper", p)
	}
}

// TestCheck checks the options as helm template would, before any helper
// starts.
func TestCheck(t *testing.T) {
	opts, err := helper.Check(helper.Options{})
	if err != nil || opts.ReleaseName != "release-name" || opts.Namespace != "default" || opts.KubeVersion != helper.DefaultKubeVersion() {
		t.Errorf("Check({}) = %+v, %v", opts, err)
	}
	for _, v := range []string{"1.30", "v1.31.2", "v1.33.4-gke.1245000"} {
		if _, err := helper.Check(helper.Options{KubeVersion: v}); err != nil {
			t.Errorf("--kube-version %s: %v", v, err)
		}
	}
	if _, err := helper.Check(helper.Options{KubeVersion: "not-a-version"}); err == nil || !strings.Contains(err.Error(), `invalid --kube-version "not-a-version"`) {
		t.Errorf("--kube-version not-a-version: %v", err)
	}
	if _, err := helper.Check(helper.Options{ValuesFiles: []string{"no-such-values.yaml"}}); err == nil || !strings.Contains(err.Error(), "--values no-such-values.yaml") {
		t.Errorf("missing values file: %v", err)
	}
}

// TestKubectlWorkloadLinksNoRenderer: kubectl-workload links neither Helm nor
// the JSON-schema library its chart loading uses, so a run without charts
// does not initialise them; only the helper does.
func TestKubectlWorkloadLinksNoRenderer(t *testing.T) {
	deps := func(pkg string) string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return string(out)
	}
	main := deps("../../../cmd/kubectl-workload")
	for _, banned := range []string{"helm.sh/helm/", "github.com/santhosh-tekuri/jsonschema", "github.com/kubectl-workload/kubectl-workload/internal/render\n"} {
		if strings.Contains(main, banned) {
			t.Errorf("cmd/kubectl-workload links %s", strings.TrimSpace(banned))
		}
	}
	if h := deps("../../../cmd/kubectl_workload-render"); !strings.Contains(h, "helm.sh/helm/v4/pkg/engine") {
		t.Error("cmd/kubectl_workload-render does not link Helm's engine: the test would prove nothing")
	}
}

// TestKustomizeWarningsNameTheOverlay: kustomize's deprecation warnings,
// which the library prints without saying where, come back with the set,
// naming the overlay; nothing is printed while rendering (renders run side
// by side, so what they print would come out in any order).
func TestKustomizeWarningsNameTheOverlay(t *testing.T) {
	buildHelper(t)
	dir := t.TempDir()
	for name, text := range map[string]string{
		"kustomization.yaml": "resources: [cm.yaml]\ncommonLabels:\n  team: shop\n",
		"cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := helper.New(helper.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = wr
	set := r.Render(dir, manifest.Kustomization)
	os.Stderr = saved
	wr.Close()
	r.Close() // the helper holds the pipe too
	out, _ := io.ReadAll(rd)
	if len(set.Objects) != 1 {
		t.Fatalf("%d objects, want the ConfigMap", len(set.Objects))
	}
	if len(out) > 0 {
		t.Errorf("rendering printed %q", out)
	}
	want := dir + ": kustomize: 'commonLabels' is deprecated. Please use 'labels' instead."
	if len(set.Warnings) != 1 || !strings.HasPrefix(set.Warnings[0], want) {
		t.Errorf("warnings %q, want one starting %q", set.Warnings, want)
	}
}

// TestConcurrentRenders: renders from several goroutines (lint's loaders)
// go to a few helpers side by side, and each set's fields are located by
// the helper that rendered it.
func TestConcurrentRenders(t *testing.T) {
	buildHelper(t)
	local, err := render.New(helper.Options{})
	if err != nil {
		t.Fatal(err)
	}
	remote, err := helper.New(helper.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	dirs := []struct {
		dir  string
		kind manifest.DirKind
	}{{"../testdata/web", manifest.Chart}, {"../testdata/kustomize/overlays/prod", manifest.Kustomization}}
	var wg sync.WaitGroup
	sets := make([]*manifest.Set, 8)
	for i := range sets {
		wg.Go(func() { sets[i] = remote.Render(dirs[i%2].dir, dirs[i%2].kind) })
	}
	wg.Wait()
	for i, got := range sets {
		d := dirs[i%2]
		want := local.Render(d.dir, d.kind)
		if describe(got) != describe(want) {
			t.Errorf("render %d of %s: %s, want %s", i, d.dir, describe(got), describe(want))
			continue
		}
		for file, o := range want.Origins {
			wl, wok := o.Locate(0, "spec")
			gl, gok := got.Origins[file].Locate(0, "spec")
			if wl != gl || wok != gok {
				t.Errorf("render %d of %s: Locate(0, spec) = %v %v, want %v %v", i, d.dir, gl, gok, wl, wok)
			}
		}
	}
}
