package rules_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/rules/ from the rules' metadata")

// builtinRules is the catalogue.
func builtinRules(t *testing.T) []rules.Rule {
	t.Helper()
	rs := rules.Builtin()
	if len(rs) == 0 {
		t.Fatal("no built-in rules")
	}
	return rs
}

// minBuiltinRules is how many built-in rules the catalogue had when they
// moved from Rego to Go: none may be lost.
const minBuiltinRules = 53

func fixtures(t *testing.T, id string) (pass, fail []string) {
	t.Helper()
	dir := filepath.Join("testdata", rules.FixtureDir(id))
	pass, _ = filepath.Glob(filepath.Join(dir, "pass-*.yaml"))
	fail, _ = filepath.Glob(filepath.Join(dir, "fail-*.yaml"))
	// info-*.yaml: a case the rule reports only as information (a finding
	// may lower its rule's severity); they are failing fixtures too.
	info, _ := filepath.Glob(filepath.Join(dir, "info-*.yaml"))
	return pass, append(fail, info...)
}

// TestFixtures lints every fixture, whole, through lint: a fail fixture must
// raise its rule, at a position and with its severity, a pass fixture must
// not, and neither may be an object the API server rejects (built-in rules
// leave those alone). With the rule disabled (rules.disable), a fail
// fixture raises it no more: the finding is the rule's own.
func TestFixtures(t *testing.T) {
	l, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range builtinRules(t) {
		pass, fail := fixtures(t, r.ID)
		for _, f := range append(pass, fail...) {
			t.Run(filepath.ToSlash(f), func(t *testing.T) {
				opts := lint.Options{Paths: []string{f}}
				if r.OptIn {
					opts.Settings = &config.File{Rules: config.Rules{Enable: []string{r.ID}}}
				}
				res := l.Run(context.Background(), opts)
				var hits []lint.Finding
				for _, fd := range res.Findings {
					if strings.HasPrefix(fd.Rule, "api/") && fd.Severity == lint.SeverityError || strings.HasPrefix(fd.Rule, "input/") {
						t.Errorf("fixture is not a valid object: %s:%d:%d: %s: %s", fd.File, fd.Line, fd.Column, fd.Rule, fd.Message)
					}
					if fd.Rule == r.ID {
						hits = append(hits, fd)
					}
				}
				wantHit := !strings.HasPrefix(filepath.Base(f), "pass-")
				wantSeverity := r.Severity
				if strings.HasPrefix(filepath.Base(f), "info-") {
					wantSeverity = rules.SeverityInfo
				}
				if wantHit && len(hits) == 0 {
					t.Errorf("%s raised no %s finding", f, r.ID)
				}
				if wantHit {
					off := lint.Options{Paths: []string{f}, Settings: &config.File{Rules: config.Rules{Disable: []string{r.ID}}}}
					for _, fd := range l.Run(context.Background(), off).Findings {
						if fd.Rule == r.ID {
							t.Errorf("%s raised %s with the rule disabled: %+v", f, r.ID, fd)
						}
					}
				}
				if !wantHit && len(hits) > 0 {
					t.Errorf("%s raised %s: %+v", f, r.ID, hits)
				}
				for _, h := range hits {
					if h.Line < 1 || h.Column < 1 || h.Severity.String() != wantSeverity {
						t.Errorf("finding %+v: want a position and severity %s", h, wantSeverity)
					}
				}
			})
		}
	}
}

// TestDocsUpToDate fails when docs/rules/ is stale: run
// go test ./rules -run TestDocsUpToDate -update-docs to regenerate it.
func TestDocsUpToDate(t *testing.T) {
	rs := builtinRules(t)
	want := map[string]string{"README.md": rules.DocIndex(rs)}
	for _, r := range rs {
		want[rules.DocFile(r.ID)] = rules.Doc(r)
	}
	dir := filepath.Join("..", "docs", "rules")
	if *updateDocs {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range want {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	entries, _ := os.ReadDir(dir)
	var have []string
	for _, e := range entries {
		have = append(have, e.Name())
		if _, ok := want[e.Name()]; !ok {
			t.Errorf("docs/rules/%s belongs to no rule (run with -update-docs)", e.Name())
		}
	}
	sort.Strings(have)
	for name, text := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != text {
			t.Errorf("docs/rules/%s is stale or missing: run go test ./rules -run TestDocsUpToDate -update-docs", name)
		}
	}
}
