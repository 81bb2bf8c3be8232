package rules_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// TestSummaryFieldsSuffice checks that the inventory's trimmed entries
// (summaryFields) hold every spec field the rules read of other objects:
// every rule fixture, the examples and the real-world corpus give the same
// findings with whole specs in the inventory.
func TestSummaryFieldsSuffice(t *testing.T) {
	l, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join("testdata", "*"))
	paths = append(paths, filepath.Join("..", "examples"), filepath.Join("..", "..", "shared", "corpus", "real-world"))
	ctx := context.Background()
	findings := func(p string) []string {
		var out []string
		for _, f := range l.Run(ctx, lint.Options{Paths: []string{p}}).Findings {
			out = append(out, fmt.Sprintf("%s#%d:%d:%d %s %s", f.File, f.Document, f.Line, f.Column, f.Rule, f.Message))
		}
		return out
	}
	total := 0
	for _, p := range paths {
		trimmed := findings(p)
		undo := rules.SetFullSummary()
		whole := findings(p)
		undo()
		if fmt.Sprint(trimmed) != fmt.Sprint(whole) {
			t.Errorf("%s: with trimmed inventory entries\n%v\nwith whole specs\n%v", p, trimmed, whole)
		}
		total += len(whole)
	}
	if total == 0 {
		t.Fatal("no findings at all: the comparison proves nothing")
	}
}
