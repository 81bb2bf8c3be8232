package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadGood(t *testing.T) {
	f, err := Load("testdata/good.yaml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if f.FailOn != "warning" || !f.Disabled("kind/bare-pod") || f.Disabled("rollout/paused") {
		t.Errorf("Load = %+v: want failOn warning and kind/* disabled only", f)
	}
	tests := []struct {
		rule, kind, ns, name string
		want                 bool
		wantLine             int
	}{
		{"rollout/no-readiness-probe", "Deployment", "batch", "worker-7", true, 12},
		{"rollout/no-readiness-probe", "Deployment", "batch", "api", false, 0},
		{"rollout/no-readiness-probe", "Deployment", "web", "worker-7", false, 0},
		{"rollout/paused", "Deployment", "batch", "worker-7", false, 0},
		{"anything/at-all", "StatefulSet", "x", "legacy", true, 17},
	}
	for _, tt := range tests {
		e, got := f.Exempt(tt.rule, tt.kind, tt.ns, tt.name)
		if got != tt.want || e.Line != tt.wantLine {
			t.Errorf("Exempt(%s, %s %s/%s) = %v at line %d, want %v at line %d", tt.rule, tt.kind, tt.ns, tt.name, got, e.Line, tt.want, tt.wantLine)
		}
	}
}

func TestExcluded(t *testing.T) {
	f, err := Load("testdata/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want bool
	}{
		{"charts/web/templates/deploy.yaml", true},
		{"deploy/charts/x.yaml", true},
		{"deploy/app.generated.yaml", true},
		{"app.generated.yaml", true},
		{"deploy/app.yaml", false},
		{"chartsx/a.yaml", false},
	}
	for _, tt := range tests {
		if got := f.Excluded(tt.path); got != tt.want {
			t.Errorf("Excluded(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestLoadErrorsNameTheLine(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"testdata/unknown-key.yaml", []string{`testdata/unknown-key.yaml: line 3: unknown key "disabled"`}},
		{"testdata/no-reason.yaml", []string{"testdata/no-reason.yaml:4: exemption 2 has no reason"}},
		{"testdata/bad-values.yaml", []string{
			`testdata/bad-values.yaml:1: failOn "fatal"`,
			`rules.severity[kind/bare-pod] = "critical"`,
			"testdata/bad-values.yaml:6: exemption 1 names no kind, namespace or name",
		}},
		{"testdata/custom-workloads-bad.yaml", []string{
			"testdata/custom-workloads-bad.yaml:5: customWorkloads entry 2 names no kind",
			`testdata/custom-workloads-bad.yaml:5: customWorkloads entry 2: template path "spec..template"`,
			"testdata/custom-workloads-bad.yaml:7: customWorkloads entry 3 names no templates",
		}},
	}
	for _, tt := range tests {
		_, err := Load(tt.file)
		if err == nil {
			t.Errorf("Load(%s) succeeded, want an error", tt.file)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Load(%s) = %q, want it to contain %q", tt.file, err, w)
			}
		}
	}
}

func TestDiscoverStopsAtGitRoot(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	deep := filepath.Join(repo, "a", "b")
	for _, d := range []string{filepath.Join(repo, ".git"), deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Above the git root: never read.
	if err := os.WriteFile(filepath.Join(root, FileName), []byte("failOn: info\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Discover(deep); err != nil || got != "" {
		t.Errorf("Discover = %q, %v; want nothing: the file above the git root does not count", got, err)
	}
	want := filepath.Join(repo, "a", FileName)
	if err := os.WriteFile(want, []byte("failOn: info\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Discover(deep); err != nil || got != want {
		t.Errorf("Discover = %q, %v; want %q", got, err, want)
	}
}

func TestEnableEnforceContainers(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte(`rules:
  enable: [pss/restricted]
  enforce: ["pss/*"]
exemptions:
  - containers: [istio-*]
    reason: injected sidecar
`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	for _, tt := range []struct {
		got, want bool
		what      string
	}{
		{f.Enabled("pss/restricted"), true, `Enabled("pss/restricted")`},
		{f.Enabled("pss/baseline"), false, `Enabled("pss/baseline")`},
		{f.Enforced("pss/baseline"), true, `Enforced("pss/baseline")`},
		{f.Enforced("api/warning"), false, `Enforced("api/warning")`},
		{(*File)(nil).Enabled("pss/restricted"), false, `nil.Enabled`},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.what, tt.got, tt.want)
		}
	}
	if _, ok := f.ExemptContainer("pss/baseline", "Pod", "default", "p", "istio-proxy"); !ok {
		t.Errorf("ExemptContainer(istio-proxy) = false, want true")
	}
	for _, c := range []string{"app", ""} {
		if _, ok := f.ExemptContainer("pss/baseline", "Pod", "default", "p", c); ok {
			t.Errorf("ExemptContainer(%q) = true, want false", c)
		}
	}
}

func TestHasRuleRefs(t *testing.T) {
	var none *File
	if none.HasRuleRefs() {
		t.Error("no configuration names rules")
	}
	f, err := Load("testdata/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !f.HasRuleRefs() {
		t.Error("testdata/good.yaml disables kind/* but HasRuleRefs is false")
	}
	if (&File{}).HasRuleRefs() {
		t.Error("an empty configuration names no rules")
	}
}

// TestLoadCustomWorkloads: customWorkloads entries are read with their lines.
func TestLoadCustomWorkloads(t *testing.T) {
	f, err := Load("testdata/custom-workloads.yaml")
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	got := fmt.Sprint(f.CustomWorkloads)
	want := "[{apps.kruise.io CloneSet [spec.template] 2} {example.com Batch [spec.jobs[*].template spec.template] 5}]"
	if got != want {
		t.Errorf("Load().CustomWorkloads = %s, want %s", got, want)
	}
}

// TestProfile: profile all turns every opt-in rule on, as rules.enable
// naming it would; profile default leaves them to rules.enable; any other
// profile is an error at its line.
func TestProfile(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		text    string
		enabled bool
		err     string
	}{
		{"profile: all\n", true, ""},
		{"profile: default\n", false, ""},
		{"profile: default\nrules:\n  enable: [pss/baseline]\n", true, ""},
		{"failOn: info\nprofile: everything\n", false, `:2: profile "everything": want default or all`},
	} {
		path := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Load(path)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Load(%q) = %v, want an error containing %q", tt.text, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Load(%q): %v", tt.text, err)
		}
		if got := f.Enabled("pss/baseline"); got != tt.enabled {
			t.Errorf("Load(%q).Enabled(pss/baseline) = %v, want %v", tt.text, got, tt.enabled)
		}
	}
}
