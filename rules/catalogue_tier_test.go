package rules_test

import (
	"bufio"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/admissionpolicy"
	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/internal/podsecurity"
	"github.com/kubectl-workload/kubectl-workload/internal/render"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// notInCatalogue are the rule ids lint can print that the catalogue does
// not hold yet, each with the reason. TestEveryRuleIDInCatalogue accepts
// these and no other.
var notInCatalogue = map[string]string{}

// ruleIDValue is what a rule id looks like: category/name.
var ruleIDValue = regexp.MustCompile(`^[a-z]+/[a-z0-9-]+$`)

// printableRuleIDs returns every rule id lint can print, other than user
// policies' and the Go checks': each exported string constant named Rule*
// whose value is category/name in the non-test Go files under lint/ and
// internal/, and the ids the API, Pod Security and admission policy tiers
// list (apicheck.Rules names the field.Error rules through a map).
func printableRuleIDs(t *testing.T) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, root := range []string{"../lint", "../internal"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !name.IsExported() || !strings.HasPrefix(name.Name, "Rule") || i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							continue
						}
						if v, err := strconv.Unquote(lit.Value); err == nil && ruleIDValue.MatchString(v) {
							ids[v] = path + ": " + name.Name
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for tier, list := range map[string][]string{"apicheck.Rules": apicheck.Rules(), "podsecurity.Rules": podsecurity.Rules(),
		"admissionpolicy.Rules": admissionpolicy.Rules()} {
		for _, id := range list {
			if _, ok := ids[id]; !ok {
				ids[id] = tier
			}
		}
	}
	// The scan found the tiers: the input checks, the API tier's field
	// errors, Pod Security and the admission policies at least.
	for _, id := range []string{"input/unparsable", "api/invalid", "pss/restricted", "admission/policy-deny"} {
		if _, ok := ids[id]; !ok {
			t.Fatalf("the scan of lint/ and internal/ missed %s: it finds nothing", id)
		}
	}
	return ids
}

// TestEveryRuleIDInCatalogue fails when lint can print a rule id that the
// catalogue (rules.Builtin and rules.Tiers) does not hold, save the stated
// exceptions (notInCatalogue), and when a tier entry names an id that no
// tier raises.
func TestEveryRuleIDInCatalogue(t *testing.T) {
	inCatalogue := map[string]bool{}
	for _, r := range rules.Builtin() {
		inCatalogue[r.ID] = true
	}
	for _, tr := range rules.Tiers() {
		inCatalogue[tr.Meta.ID] = true
	}
	printable := printableRuleIDs(t)
	ids := make([]string, 0, len(printable))
	for id := range printable {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		_, excepted := notInCatalogue[id]
		switch {
		case excepted && inCatalogue[id]:
			t.Errorf("%s is in the catalogue: drop it from notInCatalogue", id)
		case !excepted && !inCatalogue[id]:
			t.Errorf("%s (%s) can be printed by lint and is not in the catalogue: add it to rules/catalogue_tier.go", id, printable[id])
		}
	}
	for id := range notInCatalogue {
		if _, ok := printable[id]; !ok {
			t.Errorf("notInCatalogue names %s, which lint does not print", id)
		}
	}
	for _, tr := range rules.Tiers() {
		if _, ok := printable[tr.Meta.ID]; !ok && !rules.IsBuiltin(tr.Meta.ID) {
			t.Errorf("tier rule %s: no tier of lint/ or internal/ raises it", tr.Meta.ID)
		}
	}
}

// TestTierCatalogueWellFormed walks the tier rules as TestCatalogueWellFormed
// walks the Go checks: ids unique across the whole catalogue, a title, a
// description, a severity, a remediation ending with a period, the package
// that raises it, a docs page (and the heading its anchor names), no Go
// source of its own, and fixtures: a passing one always, a failing one
// unless NoFixture says why no file raises the rule.
func TestTierCatalogueWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range rules.Builtin() {
		seen[r.ID] = true
	}
	for _, tr := range rules.Tiers() {
		m := tr.Meta
		t.Run(m.ID, func(t *testing.T) {
			if seen[m.ID] {
				t.Errorf("rule id %s is used twice", m.ID)
			}
			seen[m.ID] = true
			if !ruleIDValue.MatchString(m.ID) {
				t.Errorf("id %q: want category/name", m.ID)
			}
			checkMetadata(t, m)
			if info, err := os.Stat(filepath.Join("..", tr.Tier)); err != nil || !info.IsDir() {
				t.Errorf("Tier %q: want the package that raises the rule: %v", tr.Tier, err)
			}
			if m.File != "" || len(m.Kinds) > 0 {
				t.Errorf("File %q, Kinds %v: a tier rule has no check in rules/", m.File, m.Kinds)
			}
			checkDocsPage(t, tr.Docs)
			pass, fail := tierFixtures(m.ID)
			if len(pass) == 0 {
				t.Errorf("testdata/tiers/%s needs a pass-* fixture", rules.FixtureDir(m.ID))
			}
			switch {
			case tr.NoFixture == "" && len(fail) == 0:
				t.Errorf("testdata/tiers/%s needs a fail-* fixture, or NoFixture saying why no file raises the rule", rules.FixtureDir(m.ID))
			case tr.NoFixture != "" && len(fail) > 0:
				t.Errorf("NoFixture says no file raises the rule, and testdata/tiers/%s has %v", rules.FixtureDir(m.ID), fail)
			}
		})
	}
}

// checkDocsPage checks that page (path#anchor, from the repository root)
// exists, and that the anchor names one of its headings.
func checkDocsPage(t *testing.T, page string) {
	t.Helper()
	file, anchor, _ := strings.Cut(page, "#")
	f, err := os.Open(filepath.Join("..", filepath.FromSlash(file)))
	if err != nil {
		t.Errorf("docs page: %v", err)
		return
	}
	defer f.Close()
	if anchor == "" {
		return
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if heading, ok := strings.CutPrefix(sc.Text(), "#"); ok && headingAnchor(strings.TrimLeft(heading, "#")) == anchor {
			return
		}
	}
	t.Errorf("docs page %s: no heading whose anchor is #%s", file, anchor)
}

// headingAnchor is the anchor GitHub gives a Markdown heading: lower case,
// spaces as hyphens, punctuation other than hyphens and underscores left
// out.
func headingAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// tierFixtures are a tier rule's fixtures in testdata/tiers/<id>/: files or
// directories (a kustomization) named pass-* and fail-*.
func tierFixtures(id string) (pass, fail []string) {
	dir := filepath.Join("testdata", "tiers", rules.FixtureDir(id))
	pass, _ = filepath.Glob(filepath.Join(dir, "pass-*"))
	fail, _ = filepath.Glob(filepath.Join(dir, "fail-*"))
	return pass, fail
}

// tierFixtureOptions are the lint options the fixtures of a tier rule need
// beyond the file itself.
var tierFixtureOptions = map[string]func(*lint.Options){
	// kubectl's -n: the fixtures' objects are in namespace team (pass) or
	// prod (fail).
	"input/namespace-mismatch": func(o *lint.Options) { o.Namespace = "team" },
	// The configuration enforces kind/bare-pod, which the fail fixture's
	// annotation tries to silence.
	"ignore/enforced": func(o *lint.Options) {
		o.Settings = &config.File{Rules: config.Rules{Enforce: []string{"kind/bare-pod"}}}
	},
}

// TestTierFixtures lints every tier rule's fixtures through lint, as a user
// would (kustomizations rendered in this process): a fail fixture must
// raise its rule, with its severity and at a position, and a pass fixture
// must not raise it.
func TestTierFixtures(t *testing.T) {
	l, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	renderer, err := render.New(render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rules.Tiers() {
		r := tr.Meta
		pass, fail := tierFixtures(r.ID)
		for _, f := range append(pass, fail...) {
			t.Run(filepath.ToSlash(f), func(t *testing.T) {
				opts := lint.Options{Paths: []string{f}, Renderer: renderer}
				if r.OptIn {
					opts.Settings = &config.File{Rules: config.Rules{Enable: []string{r.ID}}}
				}
				if set := tierFixtureOptions[r.ID]; set != nil {
					set(&opts)
				}
				res := l.Run(context.Background(), opts)
				if len(res.Errors) > 0 {
					t.Fatalf("lint %s: %v", f, res.Errors)
				}
				var hits []lint.Finding
				for _, fd := range res.Findings {
					if fd.Rule == r.ID {
						hits = append(hits, fd)
					}
				}
				wantHit := strings.HasPrefix(filepath.Base(f), "fail-")
				if wantHit && len(hits) == 0 {
					t.Errorf("%s raised no %s finding", f, r.ID)
				}
				if !wantHit && len(hits) > 0 {
					t.Errorf("%s raised %s: %+v", f, r.ID, hits)
				}
				for _, h := range hits {
					if h.Line < 1 || h.Column < 1 || h.Severity.String() != r.Severity {
						t.Errorf("finding %+v: want a position and severity %s", h, r.Severity)
					}
				}
			})
		}
	}
}
