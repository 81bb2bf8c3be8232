package rules_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"

	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/rules/ from the rules' METADATA")

// builtinRules is the catalogue of a fresh engine.
func builtinRules(t *testing.T) []rules.Rule {
	t.Helper()
	rs, err := engine(t).Rules()
	if err != nil {
		t.Fatalf("Rules: %v", err)
	}
	return rs
}

func engine(t *testing.T) *rules.Engine {
	t.Helper()
	e, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatalf("rules.New: %v", err)
	}
	return e
}

// TestCatalogueWellFormed walks the whole catalogue: unique ids, a
// remediation that ends with a period, a _test.rego beside every rule, and
// at least one passing and one failing fixture.
func TestCatalogueWellFormed(t *testing.T) {
	rs := builtinRules(t)
	if len(rs) == 0 {
		t.Fatal("no built-in rules")
	}
	seen := map[string]string{}
	for _, r := range rs {
		if prev, dup := seen[r.ID]; dup {
			t.Errorf("rule id %s is used by %s and %s", r.ID, prev, r.File)
		}
		seen[r.ID] = r.File
		if !strings.HasSuffix(r.Remediation, ".") {
			t.Errorf("%s: remediation %q does not end with a period", r.ID, r.Remediation)
		}
		if !strings.Contains(r.ID, "/") || strings.HasPrefix(r.ID, "api/") || strings.HasPrefix(r.ID, "input/") || strings.HasPrefix(r.ID, "policy/") {
			t.Errorf("%s: ids are category/name, and api/, input/ and policy/ are reserved", r.ID)
		}
		if _, err := os.Stat(strings.TrimSuffix(r.File, ".rego") + "_test.rego"); err != nil {
			t.Errorf("%s: no %s_test.rego beside %s", r.ID, strings.TrimSuffix(filepath.Base(r.File), ".rego"), r.File)
		}
		pass, fail := fixtures(t, r.ID)
		if len(pass) == 0 || len(fail) == 0 {
			t.Errorf("%s: testdata/%s needs at least one pass-*.yaml and one fail-*.yaml (have %d and %d)",
				r.ID, rules.FixtureDir(r.ID), len(pass), len(fail))
		}
	}
}

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

// TestRegoUnitTests runs every _test.rego through OPA's test runner.
func TestRegoUnitTests(t *testing.T) {
	modules, err := rules.BuiltinModules(true)
	if err != nil {
		t.Fatal(err)
	}
	// Each test is bounded (OPA's default is 5s); the race detector slows evaluation tenfold.
	ch, err := tester.NewRunner().SetTimeout(time.Minute).SetCompiler(ast.NewCompiler().WithEnablePrintStatements(true)).
		CapturePrintOutput(true).SetModules(modules).RunTests(context.Background(), nil)
	if err != nil {
		t.Fatalf("OPA test runner: %v", err)
	}
	n := 0
	for r := range ch {
		n++
		if r.Fail || r.Error != nil {
			t.Errorf("%s.%s (%s): fail=%v error=%v\n%s", r.Package, r.Name, r.Location, r.Fail, r.Error, r.Output)
		}
	}
	if n == 0 {
		t.Fatal("no Rego tests ran")
	}
	t.Logf("%d Rego tests", n)
}

// TestFixtures lints every fixture, whole, through lint: a fail fixture must
// raise its rule, a pass fixture must not, and neither may be an object the
// API server rejects (built-in rules leave those alone).
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
