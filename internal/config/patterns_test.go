package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadText writes text as a configuration file and loads it.
func loadText(t *testing.T, text string) (*File, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return Load(p)
}

func TestStarCrossesSlashInRuleIDs(t *testing.T) {
	f, err := loadText(t, `rules:
  disable: ["*"]
  enforce: ["*"]
  enable: ["pss/*"]
exemptions:
  - rules: ["*"]
    kind: Deployment
    reason: legacy
`)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	for _, rule := range []string{"kind/bare-pod", "pss/baseline/host-namespaces", "api/deprecated", "policy/team/x"} {
		if !f.Disabled(rule) {
			t.Errorf("Disabled(%q) = false with disable [\"*\"], want true", rule)
		}
		if !f.Enforced(rule) {
			t.Errorf("Enforced(%q) = false with enforce [\"*\"], want true", rule)
		}
		if _, ok := f.Exempt(rule, "Deployment", "ns", "web"); !ok {
			t.Errorf("Exempt(%q, Deployment) = false with an exemption for rules [\"*\"], want true", rule)
		}
		if _, ok := f.Exempt(rule, "StatefulSet", "ns", "web"); ok {
			t.Errorf("Exempt(%q, StatefulSet) = true, want false: the exemption names Deployment", rule)
		}
	}
	if !f.Enabled("pss/restricted/run-as-non-root") || f.Enabled("kind/bare-pod") {
		t.Errorf("Enabled with enable [\"pss/*\"]: want pss/restricted/run-as-non-root only")
	}
}

func TestExcludePatterns(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		want    bool
	}{
		{"[a]1.yaml", "a1.yaml", true},
		{"[a]1.yaml", "deploy/a1.yaml", true},
		{"[a]1.yaml", "b1.yaml", false},
		{"{dev,prod}/*.yaml", "env/prod/web.yaml", true},
		{"{dev,prod}/*.yaml", "env/stage/web.yaml", false},
		{"**/gen/*.yaml", "gen/a.yaml", true},
		{"**/gen/*.yaml", "x/y/gen/a.yaml", true},
		{"a/**/b.yaml", "a/b.yaml", true},
		{"a/**/b.yaml", "a/x/y/b.yaml", true},
		{"vendor/**", "vendor/x/y.yaml", true},
		{"*.yaml", "deploy/web.yaml", true}, // a suffix of the path matches
		{"deploy/*.yaml", "deploy/sub/web.yaml", false},
		{`\[a\]1.yaml`, "[a]1.yaml", true},
	}
	for _, tt := range tests {
		f := &File{Exclude: []string{tt.pattern}}
		if got := f.Excluded(tt.path); got != tt.want {
			t.Errorf("Excluded(%q) with exclude [%q] = %v, want %v", tt.path, tt.pattern, got, tt.want)
		}
	}
}

func TestPatternsThatMatchNothingAreErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unclosed class", "exclude: [\"[a1.yaml\"]\n", `.kubectl-workload.yaml:1: exclude: bad pattern "[a1.yaml"`},
		{"reversed range", "exclude:\n  - ok.yaml\n  - \"[z-a].yaml\"\n", `.kubectl-workload.yaml:3: exclude: bad pattern "[z-a].yaml"`},
		{"trailing slash", "exclude: [\"charts/\"]\n", `write "charts/**"`},
		{"dot segment", "exclude: [\"./gen/*.yaml\"]\n", `write "gen/*.yaml"`},
		{"double slash", "exclude: [\"gen//a.yaml\"]\n", `holds "//"`},
		{"empty", "exclude: [\"\"]\n", "empty pattern"},
		{"rule glob", "rules:\n  disable: [\"{kind/*\"]\n", `rules.disable: bad pattern "{kind/*"`},
		{"enforce glob", "rules:\n  enforce: [\"pss/[\"]\n", `rules.enforce: bad pattern "pss/["`},
		{"exemption name", "exemptions:\n  - name: \"web-[\"\n    reason: x\n", `exemption 1: bad pattern "web-["`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadText(t, tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load(%q) = %v, want an error containing %q", tt.text, err, tt.want)
			}
		})
	}
}

func TestCheckRuleRefWithGlobs(t *testing.T) {
	known := []string{"kind/bare-pod", "pss/baseline/host-namespaces"}
	for _, p := range []string{"*", "pss/*", "*/bare-pod", "{kind,pss}/*"} {
		if err := CheckRuleRef("c.yaml", 1, "rules.disable", p, known); err != nil {
			t.Errorf("CheckRuleRef(%q) = %v, want nil", p, err)
		}
	}
	if err := CheckRuleRef("c.yaml", 1, "rules.disable", "pod/*", known); err == nil {
		t.Errorf("CheckRuleRef(pod/*) = nil, want an error: it matches no rule")
	}
}
