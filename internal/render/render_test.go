package render

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

func newRenderer(t *testing.T, opts Options) *Renderer {
	t.Helper()
	r, err := New(opts)
	if err != nil {
		t.Fatalf("New(%+v): %v", opts, err)
	}
	return r
}

// place is where a field of a rendered object is written.
type place struct {
	kind, name, field string
	want              string // file:line
}

// checkPlaces renders dir and checks that each field is located at the
// line a person edits.
func checkPlaces(t *testing.T, r *Renderer, dir string, kind manifest.DirKind, places []place) {
	t.Helper()
	set := r.Render(dir, kind)
	if len(set.Problems) > 0 {
		t.Fatalf("Render(%s): problems %+v", dir, set.Problems)
	}
	origin := set.Origins[manifest.RenderedName(dir, kind)]
	if origin == nil {
		t.Fatalf("Render(%s): no origin for %s in %v", dir, manifest.RenderedName(dir, kind), set.Origins)
	}
	for _, p := range places {
		var obj *manifest.Object
		for _, o := range set.Objects {
			if o.Kind == p.kind && o.Name == p.name {
				obj = o
			}
		}
		if obj == nil {
			t.Errorf("no %s %s rendered from %s", p.kind, p.name, dir)
			continue
		}
		loc, ok := origin.Locate(obj.Document, p.field)
		got := "none"
		if ok {
			got = loc.File + ":" + itoa(loc.Pos.Line)
		}
		if got != p.want {
			t.Errorf("%s %s %s: located at %s, want %s", p.kind, p.name, p.field, got, p.want)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestHelmPlaces(t *testing.T) {
	r := newRenderer(t, Options{ValuesFiles: []string{"testdata/web/values-prod.yaml"}})
	tpl := "testdata/web/templates/deployment.yaml"
	sub := "testdata/web/charts/cache/templates/deployment.yaml"
	checkPlaces(t, r, "testdata/web", manifest.Chart, []place{
		{"Deployment", "release-name-web", "", tpl + ":1"},
		{"Deployment", "release-name-web", "spec.replicas", tpl + ":8"},
		{"Deployment", "release-name-web", "spec.template.spec.containers[0].image", tpl + ":19"},
		// Written by toYaml: the key the template writes it under.
		{"Deployment", "release-name-web", "spec.template.spec.containers[0].resources.limits.cpu", tpl + ":22"},
		// Written by an include: its key.
		{"Deployment", "release-name-web", "metadata.labels[app.kubernetes.io/name]", tpl + ":5"},
		{"Service", "release-name-web", "spec.ports[0].targetPort", "testdata/web/templates/service.yaml:10"},
		{"Deployment", "release-name-cache", "spec.template.spec.containers[0].image", sub + ":17"},
		// A field the template does not write: its container's entry.
		{"Deployment", "release-name-cache", "spec.template.spec.containers[0].resources", sub + ":16"},
		{"Deployment", "release-name-cache", "spec.template.spec.containers", sub + ":15"},
	})
}

func TestKustomizePlaces(t *testing.T) {
	r := newRenderer(t, Options{})
	base := "testdata/kustomize/base/deployment.yaml"
	checkPlaces(t, r, "testdata/kustomize/overlays/prod", manifest.Kustomization, []place{
		{"Deployment", "prod-api", "", base + ":1"},
		// A strategic merge patch in a subdirectory.
		{"Deployment", "prod-api", "spec.replicas", "testdata/kustomize/overlays/prod/patches/replicas.yaml:6"},
		{"Deployment", "prod-api", "spec.strategy.rollingUpdate.maxSurge", "testdata/kustomize/overlays/prod/patches/replicas.yaml:10"},
		// A JSON 6902 patch: its operation's path.
		{"Deployment", "prod-api", "spec.template.spec.containers[0].image", "testdata/kustomize/overlays/prod/patches/image.yaml:2"},
		// A component's patch adds the probe.
		{"Deployment", "prod-api", "spec.template.spec.containers[0].readinessProbe.periodSeconds", "testdata/kustomize/components/probes/probe-patch.yaml:14"},
		{"Deployment", "prod-api", "spec.template.spec.containers[0].readinessProbe", "testdata/kustomize/components/probes/probe-patch.yaml:10"},
		// Fields no patch sets stay in the base's resource.
		{"Deployment", "prod-api", "spec.template.spec", base + ":14"},
		{"Deployment", "prod-api", "spec.template.spec.containers[0].resources.limits.memory", base + ":23"},
		{"Service", "prod-api", "spec.ports[0].port", "testdata/kustomize/base/service.yaml:9"},
		// A generated object: the kustomization's generators.
		{"ConfigMap", "prod-api-config-hf678c7m2b", "data.LOG_LEVEL", "testdata/kustomize/overlays/prod/kustomization.yaml:18"},
	})
	staging := "testdata/kustomize/overlays/staging/kustomization.yaml"
	checkPlaces(t, r, "testdata/kustomize/overlays/staging", manifest.Kustomization, []place{
		// The kustomization's replicas and images entries.
		{"Deployment", "api", "spec.replicas", staging + ":7"},
		{"Deployment", "api", "spec.template.spec.containers[0].image", staging + ":10"},
		{"Deployment", "api", "spec.template.spec.containers[0].name", base + ":16"},
		// Inline patches, JSON 6902 and strategic merge: their lines in the kustomization.
		{"Deployment", "api", "spec.minReadySeconds", staging + ":18"},
		{"Deployment", "api", "spec.revisionHistoryLimit", staging + ":26"},
	})
}

// TestHelmTemplateError: a required value that is missing is a problem at
// the template's line, with helm's message, not a crash.
func TestHelmTemplateError(t *testing.T) {
	r := newRenderer(t, Options{Set: []string{"image.tag=null"}})
	set := r.Render("testdata/web", manifest.Chart)
	if len(set.Problems) != 1 {
		t.Fatalf("problems %+v, want 1", set.Problems)
	}
	p := set.Problems[0]
	if p.File != "testdata/web/templates/deployment.yaml" || p.Pos.Line != 19 || !strings.Contains(p.Message, "image.tag is required") {
		t.Errorf("problem %s:%s %q, want testdata/web/templates/deployment.yaml:19 naming image.tag is required", p.File, p.Pos, p.Message)
	}
}

// TestHelmBadYAML: a template whose output is not YAML is a problem at
// that template.
func TestHelmBadYAML(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", "apiVersion: v2\nname: bad\nversion: 0.1.0\n")
	write(t, dir, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{ .Values.a }}\n b: [c\n")
	set := newRenderer(t, Options{}).Render(dir, manifest.Chart)
	if len(set.Problems) != 1 || set.Problems[0].File != filepath.Join(dir, "templates/cm.yaml") || !strings.Contains(set.Problems[0].Message, "YAML") {
		t.Fatalf("problems %+v, want one at templates/cm.yaml about YAML", set.Problems)
	}
}

// TestHelmMissingDependency: no network, so a dependency not in charts/ is
// an error naming it.
func TestHelmMissingDependency(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: postgresql\n    version: 12.1.0\n    repository: https://charts.example.com\n")
	set := newRenderer(t, Options{}).Render(dir, manifest.Chart)
	if len(set.Problems) != 1 || set.Problems[0].Pos.Line != 4 ||
		!strings.Contains(set.Problems[0].Message, "postgresql 12.1.0 from https://charts.example.com") {
		t.Fatalf("problems %+v, want one at Chart.yaml:4 naming postgresql", set.Problems)
	}
}

// TestKustomizeRemoteBase: a remote base is an error naming it.
func TestKustomizeRemoteBase(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", "resources:\n  - deployment.yaml\n  - https://github.com/example/repo//deploy?ref=v1\n")
	write(t, dir, "deployment.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	set := newRenderer(t, Options{}).Render(dir, manifest.Kustomization)
	if len(set.Problems) != 1 || set.Problems[0].Pos.Line != 3 || !strings.Contains(set.Problems[0].Message, "https://github.com/example/repo//deploy?ref=v1") {
		t.Fatalf("problems %+v, want one at kustomization.yaml:3 naming the URL", set.Problems)
	}
}

func TestNewChecksKubeVersion(t *testing.T) {
	if _, err := New(Options{KubeVersion: "not-a-version"}); err == nil {
		t.Error("New with --kube-version not-a-version: no error")
	}
}

// TestKubeVersionCapabilities: --kube-version reaches .Capabilities.
func TestKubeVersionCapabilities(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", "apiVersion: v2\nname: caps\nversion: 0.1.0\n")
	write(t, dir, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caps\ndata:\n  v: {{ .Capabilities.KubeVersion.Version | quote }}\n")
	for _, v := range []string{"", "v1.31.2"} {
		set := newRenderer(t, Options{KubeVersion: v}).Render(dir, manifest.Chart)
		want := v
		if want == "" {
			want = DefaultKubeVersion()
		}
		if len(set.Objects) != 1 || !bytes.Contains(set.Objects[0].JSON, []byte(`"v":"`+want+`"`)) {
			t.Errorf("--kube-version %q: objects %v, want data.v %s", v, set.Objects, want)
		}
	}
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// objects turns a YAML stream into its objects as JSON, sorted.
func objects(t *testing.T, stream []byte) []string {
	t.Helper()
	var out []string
	for _, doc := range splitDocs(string(stream)) {
		var v any
		if err := sigsyaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("parse %q: %v", doc, err)
		}
		if v == nil {
			continue
		}
		js, _ := json.Marshal(v)
		out = append(out, string(js))
	}
	slices.Sort(out)
	return out
}

// TestSameAsCLIs: the rendered objects are those the helm and kustomize
// command-line tools (of the libraries' versions, built by
// hack/install-test-tools.sh) print.
func TestSameAsCLIs(t *testing.T) {
	helm, kustomize := os.Getenv("KUBECTL_WORKLOAD_HELM"), os.Getenv("KUBECTL_WORKLOAD_KUSTOMIZE")
	if helm == "" || kustomize == "" {
		t.Skip(`KUBECTL_WORKLOAD_HELM and KUBECTL_WORKLOAD_KUSTOMIZE are unset: eval "$(hack/install-test-tools.sh)"`)
	}
	run := func(name string, args ...string) []byte {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
		}
		return out
	}
	rendered := func(set *manifest.Set) []byte {
		if len(set.Problems) > 0 {
			t.Fatalf("problems %+v", set.Problems)
		}
		var b bytes.Buffer
		for _, o := range set.Objects {
			b.WriteString("---\n")
			b.Write(o.JSON)
			b.WriteString("\n")
		}
		return b.Bytes()
	}
	for _, c := range []struct {
		name string
		opts Options
		args []string
	}{
		{"defaults", Options{}, nil},
		{"with tests", Options{HelmTests: true}, nil},
		{"values and sets", Options{ValuesFiles: []string{"testdata/web/values-prod.yaml"}, Set: []string{"cache.enabled=false"}, SetString: []string{"image.tag=2"},
			ReleaseName: "prod", Namespace: "shop", KubeVersion: "v1.35.0"},
			[]string{"--values", "testdata/web/values-prod.yaml", "--set", "cache.enabled=false", "--set-string", "image.tag=2", "--namespace", "shop", "--kube-version", "v1.35.0"}},
	} {
		t.Run("helm "+c.name, func(t *testing.T) {
			release := c.opts.ReleaseName
			if release == "" {
				release = DefaultReleaseName
			}
			args := append([]string{"template", release, "testdata/web"}, c.args...)
			if !slices.Contains(args, "--kube-version") {
				args = append(args, "--kube-version", DefaultKubeVersion())
			}
			if !c.opts.HelmTests {
				// Test hooks are left out by default, as helm template --skip-tests does.
				args = append(args, "--skip-tests")
			}
			want := objects(t, run(helm, args...))
			got := objects(t, rendered(newRenderer(t, c.opts).Render("testdata/web", manifest.Chart)))
			if !slices.Equal(got, want) {
				t.Errorf("rendered objects differ from helm template's:\ngot  %v\nwant %v", got, want)
			}
		})
	}
	for _, dir := range []string{"testdata/kustomize/overlays/prod", "testdata/kustomize/overlays/staging", "testdata/kustomize/base"} {
		t.Run("kustomize "+dir, func(t *testing.T) {
			want := objects(t, run(kustomize, "build", dir))
			got := objects(t, rendered(newRenderer(t, Options{}).Render(dir, manifest.Kustomization)))
			if !slices.Equal(got, want) {
				t.Errorf("built objects differ from kustomize build's:\ngot  %v\nwant %v", got, want)
			}
		})
	}
}

// TestHelmSubchartDirectory: a subchart whose directory is not its name,
// and one the parent aliases, still map to their templates.
func TestHelmSubchartDirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: db\n    version: 0.1.0\n    alias: primary\n")
	write(t, dir, "charts/db-0.1.0/Chart.yaml", "apiVersion: v2\nname: db\nversion: 0.1.0\n")
	write(t, dir, "charts/db-0.1.0/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}\ndata:\n  a: b\n")
	r := newRenderer(t, Options{})
	checkPlaces(t, r, dir, manifest.Chart, []place{
		{"ConfigMap", "primary", "data.a", filepath.Join(dir, "charts/db-0.1.0/templates/cm.yaml") + ":6"},
	})
}

// TestHelmSchemaError: a value values.schema.json refuses is a problem at
// the value's key in values.yaml.
func TestHelmSchemaError(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", "apiVersion: v2\nname: s\nversion: 0.1.0\n")
	write(t, dir, "values.yaml", "# replicas\nimage: x\nreplicas: 1\n")
	write(t, dir, "values.schema.json", `{"type":"object","properties":{"replicas":{"type":"integer"}}}`)
	write(t, dir, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\n")
	set := newRenderer(t, Options{SetString: []string{"replicas=three"}}).Render(dir, manifest.Chart)
	if len(set.Problems) != 1 || set.Problems[0].File != filepath.Join(dir, "values.yaml") || set.Problems[0].Pos.Line != 3 ||
		!strings.Contains(set.Problems[0].Message, "replicas") {
		t.Fatalf("problems %+v, want one at values.yaml:3 about replicas", set.Problems)
	}
}

// TestKustomizeMissingResource: a build error is at the kustomization line
// naming what is missing.
func TestKustomizeMissingResource(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", "resources:\n  - a.yaml\n  - missing.yaml\n")
	write(t, dir, "a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
	set := newRenderer(t, Options{}).Render(dir, manifest.Kustomization)
	if len(set.Problems) != 1 || set.Problems[0].Pos.Line != 3 || !strings.Contains(set.Problems[0].Message, "missing.yaml") {
		t.Fatalf("problems %+v, want one at kustomization.yaml:3 naming missing.yaml", set.Problems)
	}
}
