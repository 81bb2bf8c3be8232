package render

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// countingServer is a loopback HTTP server that counts the requests it
// gets.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		_, _ = w.Write([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fetched\n"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// fakeTools puts git and ssh programs on PATH that leave a marker file when
// run, and returns the marker's path.
func fakeTools(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	for _, name := range []string{"git", "ssh", "helm", "docker"} {
		script := "#!/bin/sh\necho " + name + " \"$@\" >> " + marker + "\nexit 1\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return marker
}

const kustDeployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n" +
	"  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n"

// remoteCases are kustomizations naming URL (the test server's) in each
// field that can name a file, with the field, the line and the value the
// finding must name.
func remoteCases(url string) []struct {
	name, kust string
	files      map[string]string
	field      string
	line       int
	file       string // the file the finding is in, "" for kustomization.yaml
} {
	res := "resources:\n- deploy.yaml\n"
	type c = struct {
		name, kust string
		files      map[string]string
		field      string
		line       int
		file       string
	}
	return []c{
		{name: "resources", kust: "resources:\n- deploy.yaml\n- " + url + "\n", field: "resources", line: 3},
		{name: "bases", kust: "bases:\n- " + url + "\n", field: "bases", line: 2},
		{name: "components", kust: res + "components:\n- " + url + "\n", field: "components", line: 4},
		{name: "crds", kust: res + "crds:\n- " + url + "\n", field: "crds", line: 4},
		{name: "configurations", kust: res + "configurations:\n- " + url + "\n", field: "configurations", line: 4},
		{name: "generators", kust: res + "generators:\n- " + url + "\n", field: "generators", line: 4},
		{name: "transformers", kust: res + "transformers:\n- " + url + "\n", field: "transformers", line: 4},
		{name: "validators", kust: res + "validators:\n- " + url + "\n", field: "validators", line: 4},
		{name: "patches", kust: res + "patches:\n- path: " + url + "\n", field: "patches", line: 4},
		{name: "patchesStrategicMerge", kust: res + "patchesStrategicMerge:\n- " + url + "\n", field: "patchesStrategicMerge", line: 4},
		{name: "patchesJson6902", kust: res + "patchesJson6902:\n- target: {group: apps, version: v1, kind: Deployment, name: web}\n  path: " + url + "\n",
			field: "patchesJson6902", line: 5},
		{name: "openapi.path", kust: res + "openapi:\n  path: " + url + "\n", field: "openapi", line: 4},
		{name: "replacements", kust: res + "replacements:\n- path: " + url + "\n", field: "replacements", line: 4},
		{name: "configMapGenerator files", kust: res + "configMapGenerator:\n- name: c\n  files:\n  - " + url + "\n", field: "configMapGenerator", line: 6},
		{name: "configMapGenerator files key=", kust: res + "configMapGenerator:\n- name: c\n  files:\n  - k=" + url + "\n", field: "configMapGenerator", line: 6},
		{name: "configMapGenerator envs", kust: res + "configMapGenerator:\n- name: c\n  envs:\n  - " + url + "\n", field: "configMapGenerator", line: 6},
		{name: "configMapGenerator env", kust: res + "configMapGenerator:\n- name: c\n  env: " + url + "\n", field: "configMapGenerator", line: 5},
		{name: "secretGenerator files", kust: res + "secretGenerator:\n- name: s\n  files:\n  - " + url + "\n", field: "secretGenerator", line: 6},
		{name: "secretGenerator envs", kust: res + "secretGenerator:\n- name: s\n  envs: [" + url + "]\n", field: "secretGenerator", line: 5},
		{name: "helmCharts repo", kust: "helmCharts:\n- name: x\n  repo: " + url + "\n", field: "helmCharts", line: 3},
		{name: "helmGlobals chartHome", kust: res + "helmGlobals:\n  chartHome: " + url + "\n", field: "helmGlobals", line: 4},
		{name: "inline transformer path", kust: res + "transformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata:\n    name: p\n  path: " + url + "\n",
			field: "transformers", line: 4},
		{name: "transformer file path", kust: res + "transformers:\n- t.yaml\n",
			files: map[string]string{"t.yaml": "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: " + url + "\n"},
			field: "path", line: 5, file: "t.yaml"},
		{name: "generator built by a kustomization", kust: res + "generators:\n- gen\n",
			files: map[string]string{"gen/kustomization.yaml": "resources:\n- g.yaml\n",
				"gen/g.yaml": "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata:\n  name: g\nenvs:\n- " + url + "\n"},
			field: "envs", line: 6, file: "gen/g.yaml"},
		{name: "a base's patch", kust: "resources:\n- base\n",
			files: map[string]string{"base/kustomization.yaml": "resources:\n- ../deploy.yaml\npatches:\n- path: " + url + "\n"},
			field: "patches", line: 4, file: "base/kustomization.yaml"},
	}
}

// TestKustomizeRemoteEveryField: a URL in any field of a kustomization (or
// of a base, a component, a plugin configuration) is an input/remote
// problem naming the file, the field and the line; the server it names gets
// no request.
func TestKustomizeRemoteEveryField(t *testing.T) {
	srv, requests := countingServer(t)
	marker := fakeTools(t)
	for _, tt := range remoteCases(srv.URL + "/x.yaml") {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "kustomization.yaml", tt.kust)
			write(t, dir, "deploy.yaml", kustDeployment)
			for name, text := range tt.files {
				write(t, dir, name, text)
			}
			set := newRenderer(t, Options{}).Render(dir, manifest.Kustomization)
			wantFile := filepath.Join(dir, "kustomization.yaml")
			if tt.file != "" {
				wantFile = filepath.Join(dir, filepath.FromSlash(tt.file))
			}
			if len(set.Problems) != 1 {
				t.Fatalf("problems = %+v, want one input/remote", set.Problems)
			}
			p := set.Problems[0]
			if p.Kind != manifest.Remote || p.File != wantFile || p.Pos.Line != tt.line ||
				!strings.Contains(p.Message, tt.field+" names") || !strings.Contains(p.Message, srv.URL) {
				t.Errorf("problem = %s %s:%d %q, want remote at %s:%d naming %s and the URL", p.Kind, p.File, p.Pos.Line, p.Message, wantFile, tt.line, tt.field)
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the loopback server got %d requests, want 0", n)
	}
	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("a program ran: %s", data)
	}
}

// TestKustomizeRemoteGitForms: repository references in the forms
// kustomize clones (scp-style, GitHub.com in any case, git::, ssh://,
// file://, ?ref=) are refused, and no git or ssh runs.
func TestKustomizeRemoteGitForms(t *testing.T) {
	marker := fakeTools(t)
	for _, ref := range []string{
		"user@host:org/repo",
		"git@github.com:org/repo//deploy",
		"GitHub.com/org/repo",
		"GITHUB.COM/org/repo/deploy?ref=v1",
		"github.com:org/repo",
		"git::https://host/org/repo",
		"Git::HTTPS://host/org/repo",
		"ssh://git@host/org/repo",
		"SSH://host/org/repo",
		"file:///tmp/repo",
		"https://host/org/repo.git",
		"gh:org/repo",
		"host.example/org/repo.git//deploy",
		"dir/_git/repo",
	} {
		t.Run(ref, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "kustomization.yaml", "resources:\n- deploy.yaml\n- "+ref+"\n")
			write(t, dir, "deploy.yaml", kustDeployment)
			set := newRenderer(t, Options{}).Render(dir, manifest.Kustomization)
			if len(set.Problems) != 1 || set.Problems[0].Kind != manifest.Remote || set.Problems[0].Pos.Line != 3 {
				t.Fatalf("problems = %+v, want one input/remote at line 3", set.Problems)
			}
		})
	}
	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("a program ran: %s", data)
	}
}

// TestKustomizeLocalNotRemote: local names that look a little like hosts
// or URLs are not refused.
func TestKustomizeLocalNotRemote(t *testing.T) {
	for _, s := range []string{"deploy.yaml", "../base", "overlays/prod", "v1.2/deploy.yaml", "a-b_c.d/e.yaml", "config.kubernetes.io/x.yaml"} {
		if isRemote(s) {
			t.Errorf("isRemote(%q) = true, want false", s)
		}
	}
	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", "resources:\n- v1.2/deploy.yaml\nconfigMapGenerator:\n- name: c\n  files:\n  - k=cfg/app.properties\n  envs:\n  - cfg/app.env\n")
	write(t, dir, "v1.2/deploy.yaml", kustDeployment)
	write(t, dir, "cfg/app.properties", "a=b\n")
	write(t, dir, "cfg/app.env", "A=B\n")
	set := newRenderer(t, Options{}).Render(dir, manifest.Kustomization)
	if len(set.Problems) != 0 || len(set.Objects) != 2 {
		t.Fatalf("problems %+v, %d objects; want none and 2", set.Problems, len(set.Objects))
	}
}

// TestKustomizationFieldsClassified: every field of kustomize's
// Kustomization is known to take paths (kustRefs reads it) or not; a field
// a kustomize upgrade adds fails here until it is classified.
func TestKustomizationFieldsClassified(t *testing.T) {
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" && f.Anonymous {
				walk(f.Type)
				continue
			}
			if !kustPathFields[name] && !kustPlainFields[name] {
				t.Errorf("kustomization field %s (%s) is neither in kustPathFields nor in kustPlainFields", name, f.Name)
			}
		}
	}
	walk(reflect.TypeFor[types.Kustomization]())
	if len(kustPathFields)+len(kustPlainFields) < 30 {
		t.Errorf("only %d fields classified", len(kustPathFields)+len(kustPlainFields))
	}
}

// TestKustomizeBuildCount: overlays that each build the next level twice
// (2^16 builds) are refused before building.
func TestKustomizeBuildCount(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "l16/kustomization.yaml", "resources:\n- deploy.yaml\n")
	write(t, dir, "l16/deploy.yaml", kustDeployment)
	for i := 15; i >= 0; i-- {
		next := "../l" + itoa(i+1)
		write(t, dir, "l"+itoa(i)+"/kustomization.yaml", "resources:\n- "+next+"\n- "+next+"/\n")
	}
	set := newRenderer(t, Options{}).Render(filepath.Join(dir, "l0"), manifest.Kustomization)
	if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, "more than 1000 kustomizations") {
		t.Fatalf("problems = %+v, want one refusing the build count", set.Problems)
	}
}

// TestKustomizeAliasBomb: a resource whose aliases expand past
// manifest.MaxAliasExpansion is refused, as lint refuses the file alone.
func TestKustomizeAliasBomb(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  x: y\nbomb:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		b.WriteString("  " + n + ": &" + n + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n")
		prev = n
	}
	write(t, dir, "kustomization.yaml", "resources:\n- bomb.yaml\n")
	write(t, dir, "bomb.yaml", b.String())
	set := newRenderer(t, Options{}).Render(dir, manifest.Kustomization)
	if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, "alias") {
		t.Fatalf("problems = %+v, want one naming the aliases", set.Problems)
	}
}

// TestIsolatedKustomize: in a process Isolate has run in (the helper's),
// kustomize itself, given remote references with no check before it, sends
// no request and runs no program. The test runs itself as that process.
func TestIsolatedKustomize(t *testing.T) {
	if dir := os.Getenv("KW_TEST_ISOLATED_KUSTOMIZE"); dir != "" {
		Isolate()
		var errs []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			_, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(dir, e.Name()))
			if err == nil {
				errs = append(errs, e.Name()+": built")
			}
		}
		out, _ := json.Marshal(errs)
		os.Stdout.Write(out)
		return
	}
	srv, requests := countingServer(t)
	marker := fakeTools(t)
	root := t.TempDir()
	cases := remoteCases(srv.URL + "/x.yaml")
	for _, ref := range []string{"user@host:org/repo", "GitHub.com/org/repo", "git::https://host/org/repo", "ssh://git@host/org/repo"} {
		cases = append(cases, struct {
			name, kust string
			files      map[string]string
			field      string
			line       int
			file       string
		}{name: ref, kust: "resources:\n- " + ref + "\n"})
	}
	for i, tt := range cases {
		dir := filepath.Join(root, itoa(i))
		write(t, dir, "kustomization.yaml", tt.kust)
		write(t, dir, "deploy.yaml", kustDeployment)
		for name, text := range tt.files {
			write(t, dir, name, text)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestIsolatedKustomize$")
	cmd.Env = append(os.Environ(), "KW_TEST_ISOLATED_KUSTOMIZE="+root)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the isolated process: %v", err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the loopback server got %d requests from kustomize, want 0", n)
	}
	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("kustomize ran a program: %s", data)
	}
	t.Logf("isolated process: %s", out)
}
