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
	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// goldenObjects is the size of each generated bench shape the golden test
// lints: enough for every shape's kinds, companions and defects to appear,
// small enough to lint in seconds.
const goldenObjects = 1000

// rulesGoldenDir holds one golden file per corpus of TestBuiltinRulesGolden.
const rulesGoldenDir = "testdata/rules-golden"

// goldenCorpus is one input of TestBuiltinRulesGolden: what is linted
// (paths), how its file names are written in the golden file (root is
// replaced by name), and the golden file.
type goldenCorpus struct {
	name, root, golden string
	paths              []string
}

// TestBuiltinRulesGolden freezes what the differential test of the port to
// Go (Go rules against the Rego rules they replaced, identical on every
// corpus) proved: it lints every rule fixture (rules/testdata, each file
// alone), examples/, the rendered real-world charts, the shared real-world
// corpus (when present) and the four bench shapes with every built-in rule
// on, opt-in rules too, and compares the findings (file, line, column, rule,
// severity, related count, message) with the golden files the Rego rules'
// output was recorded in. Run with -update to accept an intended change.
func TestBuiltinRulesGolden(t *testing.T) {
	settings := allRulesOn()
	l, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	run := func(c goldenCorpus) string {
		res := l.Run(context.Background(), lint.Options{Paths: c.paths, Settings: settings})
		if len(res.Errors) > 0 {
			t.Errorf("%s: errors: %v", c.name, res.Errors)
		}
		// Only the built-in rules' findings: the API tier and the rest
		// have golden files of their own.
		var builtin []lint.Finding
		for _, f := range res.Findings {
			if rules.IsBuiltin(f.Rule) {
				seen[f.Rule]++
				builtin = append(builtin, f)
			}
		}
		lines := findingLines(builtin)
		for i, line := range lines {
			if c.root != "" {
				line = strings.ReplaceAll(line, filepath.ToSlash(c.root), c.name)
			}
			lines[i] = line
		}
		sort.Strings(lines)
		return strings.Join(lines, "\n") + "\n"
	}

	// The fixtures, each linted alone, in one golden file.
	fixtures, err := filepath.Glob("../rules/testdata/*/*.yaml")
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no rule fixtures found: %v", err)
	}
	sort.Strings(fixtures)
	var b strings.Builder
	for _, f := range fixtures {
		fmt.Fprintf(&b, "== %s\n", filepath.ToSlash(f))
		out := run(goldenCorpus{name: f, paths: []string{f}})
		if out != "\n" {
			b.WriteString(out)
		}
	}
	compareGolden(t, filepath.Join(rulesGoldenDir, "fixtures.txt"), b.String())

	corpora := []goldenCorpus{
		{name: "examples", paths: []string{"../examples"}, golden: "examples.txt"},
		{name: "realworld-charts", paths: []string{"../test/realworld/rendered"}, golden: "realworld-charts.txt"},
	}
	const shared = "../../shared/corpus/real-world"
	if _, err := os.Stat(shared); err == nil {
		corpora = append(corpora, goldenCorpus{name: "real-world", root: shared, paths: []string{shared}, golden: "real-world.txt"})
	} else {
		t.Logf("shared real-world corpus %s not found: its golden file is not compared", shared)
	}
	for _, shape := range []string{"bench", "repo", "services", "one-namespace"} {
		dir := t.TempDir()
		var err error
		switch shape {
		case "bench":
			_, err = bench.GenerateCorpus(dir, goldenObjects)
		case "repo":
			_, err = bench.GenerateRepoShaped(dir, goldenObjects, 1)
		case "services":
			_, err = bench.GenerateServicesShaped(dir, goldenObjects, 1)
		case "one-namespace":
			_, err = bench.GenerateOneNamespace(dir, goldenObjects, 1)
		}
		if err != nil {
			t.Fatalf("generate %s: %v", shape, err)
		}
		corpora = append(corpora, goldenCorpus{name: "bench-" + shape, root: dir, paths: []string{dir}, golden: "bench-" + shape + ".txt"})
	}
	for _, c := range corpora {
		compareGolden(t, filepath.Join(rulesGoldenDir, c.golden), run(c))
	}

	// Every rule must be raised somewhere, or its golden lines prove nothing.
	for _, r := range rules.BuiltinRules() {
		if seen[r.Meta.ID] == 0 {
			t.Errorf("%s: no corpus raises it: the golden files do not cover it", r.Meta.ID)
		}
	}
}

// allRulesOn is a configuration that turns every opt-in built-in rule on.
func allRulesOn() *config.File {
	var optIn []string
	for _, r := range rules.BuiltinRules() {
		if r.Meta.OptIn {
			optIn = append(optIn, r.Meta.ID)
		}
	}
	return &config.File{Rules: config.Rules{Enable: optIn}}
}

// compareGolden is testkit.Golden for golden files of thousands of lines: a
// difference is shown as the lines only in the golden file and only in the
// output (the first few of each), not as both files whole.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *testkit.Update {
		testkit.Golden(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run the test with -update to create it): %v", err)
	}
	if got == string(want) {
		return
	}
	missing, extra := diffLines(strings.Split(string(want), "\n"), strings.Split(got, "\n"))
	const show = 20
	t.Errorf("the built-in rules' findings differ from %s (run with -update to accept): %d lines only there, %d only in the output\nonly in %s:\n%s\nonly in the output:\n%s",
		path, len(missing), len(extra), path, strings.Join(missing[:min(show, len(missing))], "\n"), strings.Join(extra[:min(show, len(extra))], "\n"))
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
