package lint_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/bench"
	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// differentialObjects is the size of each generated bench shape the
// differential test lints: enough for every shape's kinds, companions and
// defects to appear, small enough to lint twice in seconds.
const differentialObjects = 1000

// TestGoRulesMatchRego is the differential test of the port of the
// built-in rules to Go: it lints every fixture (rules/testdata), examples/,
// the real-world corpus and the four bench shapes twice, with the rules
// written in Go and with every rule in Rego, and requires identical
// findings (rule, file, line, column, severity, message, related count).
// It logs, per rule written in Go, how many findings both agreed on.
func TestGoRulesMatchRego(t *testing.T) {
	goLinter, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	regoLinter, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	lint.RegoOnly(regoLinter)
	builtins, err := lint.BuiltinRules()
	if err != nil {
		t.Fatal(err)
	}
	// Every rule on, opt-in rules too.
	var optIn []string
	for _, r := range builtins {
		if r.OptIn {
			optIn = append(optIn, r.ID)
		}
	}
	settings := &config.File{Rules: config.Rules{Enable: optIn}}

	type corpus struct {
		name  string
		paths []string
	}
	var corpora []corpus
	fixtures, _ := filepath.Glob("../rules/testdata/*/*.yaml")
	for _, f := range fixtures {
		corpora = append(corpora, corpus{filepath.ToSlash(f), []string{f}})
	}
	corpora = append(corpora, corpus{"examples", []string{"../examples"}})
	if _, err := os.Stat("../../shared/corpus/real-world"); err == nil {
		corpora = append(corpora, corpus{"real-world", []string{"../../shared/corpus/real-world"}})
	} else {
		t.Logf("real-world corpus not found: skipped")
	}
	if _, err := os.Stat("../test/realworld/rendered"); err == nil {
		corpora = append(corpora, corpus{"realworld-charts", []string{"../test/realworld/rendered"}})
	}
	for _, shape := range []string{"bench", "repo", "services", "one-namespace"} {
		dir := t.TempDir()
		var err error
		switch shape {
		case "bench":
			_, err = bench.GenerateCorpus(dir, differentialObjects)
		case "repo":
			_, err = bench.GenerateRepoShaped(dir, differentialObjects, 1)
		case "services":
			_, err = bench.GenerateServicesShaped(dir, differentialObjects, 1)
		case "one-namespace":
			_, err = bench.GenerateOneNamespace(dir, differentialObjects, 1)
		}
		if err != nil {
			t.Fatalf("generate %s: %v", shape, err)
		}
		corpora = append(corpora, corpus{"bench shape " + shape, []string{dir}})
	}

	agreed := map[string]int{}
	for _, c := range corpora {
		opts := lint.Options{Paths: c.paths, Settings: settings}
		got := goLinter.Run(context.Background(), opts)
		want := regoLinter.Run(context.Background(), opts)
		if len(got.Errors) > 0 || len(want.Errors) > 0 {
			t.Errorf("%s: errors: Go %v, Rego %v", c.name, got.Errors, want.Errors)
		}
		g, w := findingLines(got.Findings), findingLines(want.Findings)
		if missing, extra := diffLines(w, g); len(missing) > 0 || len(extra) > 0 {
			t.Errorf("%s: the Go rules' findings differ from the Rego rules'\nonly in Rego:\n%s\nonly in Go:\n%s",
				c.name, strings.Join(missing, "\n"), strings.Join(extra, "\n"))
			continue
		}
		for _, f := range got.Findings {
			if rules.InGo(f.Rule) {
				agreed[f.Rule]++
			}
		}
	}
	var ported []string
	for _, r := range rules.GoRules() {
		ported = append(ported, fmt.Sprintf("%s (%d findings alike)", r.Meta.ID, agreed[r.Meta.ID]))
		if agreed[r.Meta.ID] == 0 {
			t.Errorf("%s: written in Go, but no corpus raises it: the comparison proves nothing", r.Meta.ID)
		}
	}
	t.Logf("%d of %d built-in rules written in Go, identical to Rego on %d corpora: %s",
		len(ported), len(builtins), len(corpora), strings.Join(ported, "; "))
}

// findingLines renders findings as comparable lines, sorted.
func findingLines(fs []lint.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%s:%d:%d: %s %s related=%d: %s", f.File, f.Line, f.Column, f.Rule, f.Severity, f.Related, f.Message)
	}
	sort.Strings(out)
	return out
}

// diffLines returns the lines only in want, and only in got.
func diffLines(want, got []string) (missing, extra []string) {
	count := map[string]int{}
	for _, l := range want {
		count[l]++
	}
	for _, l := range got {
		count[l]--
	}
	for _, l := range want {
		if count[l] > 0 {
			missing = append(missing, l)
			count[l]--
		}
	}
	for _, l := range got {
		if count[l] < 0 {
			extra = append(extra, l)
			count[l]++
		}
	}
	return missing, extra
}
