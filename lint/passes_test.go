package lint

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/manifest"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// TestTwoPassesMatchOnePass checks the two-pass Rego tier against the plain
// one: every rule run on every whole object against the inventory of the
// whole input (rules.Engine.Prepare, Run.Eval), with positions from the
// whole parsed object. Per-object rules, cross-resource rules on trimmed
// objects and their positions must give exactly the same findings on every
// rule fixture and example.
func TestTwoPassesMatchOnePass(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	paths, _ := filepath.Glob(filepath.Join("..", "rules", "testdata", "*"))
	paths = append(paths, filepath.Join("..", "examples"))
	builtin := map[string]bool{}
	for _, r := range l.Rules() {
		builtin[r.ID] = true
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			var got []string
			for _, f := range l.Run(ctx, Options{Paths: []string{p}}).Findings {
				if builtin[f.Rule] {
					got = append(got, describe(f))
				}
			}
			var cs []*checked
			var inputs []rules.Object
			set := manifest.Load([]string{p}, nil)
			for _, obj := range set.Objects {
				c := l.checkObject(ctx, obj, Options{})
				cs = append(cs, c)
				inputs = append(inputs, c.input)
			}
			run, err := l.rules.Prepare(ctx, rules.NewInventory(inputs))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, c := range cs {
				found, err := run.Eval(ctx, c.input)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range found {
					sev, _ := ParseSeverity(f.Severity)
					want = append(want, describe(c.at(f.RuleID, sev, f.Path, f.Message)))
				}
			}
			sort.Strings(got)
			sort.Strings(want)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("two passes found\n%v\none pass found\n%v", got, want)
			}
			t.Logf("%d findings", len(want))
		})
	}
}

func describe(f Finding) string {
	return fmt.Sprintf("%s#%d:%d:%d %s %s %s: %s", f.File, f.Document, f.Line, f.Column, f.Severity, f.Rule, f.Field, f.Message)
}
