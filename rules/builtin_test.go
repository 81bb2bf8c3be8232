package rules_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/rules"
)

// TestCatalogueWellFormed walks the whole catalogue: unique ids of the
// form category/name, a title, a description, a severity, a remediation
// ending with a period, a docs page, its source file, one check (per-object
// or cross-resource, the latter with the kinds it reports on), and passing
// and failing fixtures (which TestFixtures runs through the rule); and no
// fewer rules than the catalogue had when it moved from Rego to Go.
func TestCatalogueWellFormed(t *testing.T) {
	if n := len(builtinRules(t)); n < minBuiltinRules {
		t.Errorf("the catalogue has %d rules, want at least %d", n, minBuiltinRules)
	}
	seen := map[string]bool{}
	for _, g := range rules.BuiltinRules() {
		m := g.Meta
		t.Run(m.ID, func(t *testing.T) {
			if seen[m.ID] {
				t.Errorf("rule id %s is used twice", m.ID)
			}
			seen[m.ID] = true
			category, name, ok := strings.Cut(m.ID, "/")
			if !ok || category == "" || name == "" || slices.Contains([]string{"api", "input", "policy"}, category) {
				t.Errorf("id %q: want category/name, and api/, input/ and policy/ are reserved", m.ID)
			}
			checkMetadata(t, m)
			if _, err := os.Stat(filepath.Join("..", "docs", "rules", rules.DocFile(m.ID))); err != nil {
				t.Errorf("no docs page: %v", err)
			}
			if _, err := os.Stat(m.File); err != nil {
				t.Errorf("source file: %v", err)
			}
			if (g.Check == nil) == (g.Cross == nil) {
				t.Errorf("needs exactly one of Check (per-object) and Cross (cross-resource)")
			}
			if g.Cross != nil && len(m.Kinds) == 0 {
				t.Errorf("a cross-resource rule names the kinds it reports on (Meta.Kinds)")
			}
			pass, fail := fixtures(t, m.ID)
			if len(pass) == 0 || len(fail) == 0 {
				t.Errorf("testdata/%s needs at least one pass-*.yaml and one fail-*.yaml (have %d and %d)",
					rules.FixtureDir(m.ID), len(pass), len(fail))
			}
			if r, ok := rules.Lookup(m.ID); !ok || r.ID != m.ID {
				t.Errorf("Lookup(%q) = %v, %v", m.ID, r.ID, ok)
			}
		})
	}
}

// checkMetadata checks what every catalogue entry's metadata holds: a
// title, a description, a severity, and a remediation ending with a
// period.
func checkMetadata(t *testing.T, m rules.Rule) {
	t.Helper()
	if m.Title == "" || m.Description == "" {
		t.Errorf("needs a title and a description")
	}
	switch m.Severity {
	case rules.SeverityError, rules.SeverityWarning, rules.SeverityInfo:
	default:
		t.Errorf("severity %q: want error, warning or info", m.Severity)
	}
	if !strings.HasSuffix(m.Remediation, ".") {
		t.Errorf("remediation %q does not end with a period", m.Remediation)
	}
}
