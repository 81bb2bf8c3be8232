package rules_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// TestSummaryFieldsSuffice checks that the inventory's trimmed entries
// (summaryFields) hold every spec field the rules read of other objects:
// every rule fixture, the examples and the real-world corpus give the same
// findings with whole specs in the inventory.
func TestSummaryFieldsSuffice(t *testing.T) {
	compareTrimmed(t, "trimmed inventory entries", "whole specs", rules.SetFullSummary)
}

// TestDefaultedFieldsSuffice checks that the built-in rules find the same
// with input.defaulted trimmed to the fields they read as with the whole
// defaulted object.
func TestDefaultedFieldsSuffice(t *testing.T) {
	compareTrimmed(t, "input.defaulted trimmed", "the whole defaulted object", rules.SetFullDefaulted)
}

// TestKindGateLosesNothing checks that evaluating each per-object rule only
// on the kinds it can report on (kinds.go) finds the same as evaluating every
// rule on every object, with every rule on (the opt-in ones too).
func TestKindGateLosesNothing(t *testing.T) {
	compareTrimmedWith(t, allRules(t), "the kind gate", "every rule on every kind", rules.SetNoKindGate)
}

// TestServicePortsMatchTheRego checks the inventory's "service_ports"
// answers (rules/bounded.go) against service/target-port-not-exposed's own
// Rego, which computes them when they are absent.
func TestServicePortsMatchTheRego(t *testing.T) {
	compareTrimmedWith(t, allRules(t), "the inventory's service_ports", "the rule's Rego", rules.SetNoServicePorts)
}

// TestReadinessTargetsMatchTheRego checks the inventory's
// "readiness_targets" answers against probes/readiness-missing's own Rego.
func TestReadinessTargetsMatchTheRego(t *testing.T) {
	compareTrimmedWith(t, allRules(t), "the inventory's readiness_targets", "the rule's Rego", rules.SetNoReadinessTargets)
}

// allRules is a configuration that enables every opt-in rule.
func allRules(t *testing.T) *config.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "all.yaml")
	if err := os.WriteFile(p, []byte("rules:\n  enable: [\"*/*\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// compareTrimmed lints the rule fixtures, the examples and the real-world
// corpus as built, then with full() in effect, and compares the findings.
func compareTrimmed(t *testing.T, trimmedName, wholeName string, full func() (undo func())) {
	t.Helper()
	compareTrimmedWith(t, nil, trimmedName, wholeName, full)
}

// compareTrimmedWith is compareTrimmed with settings.
func compareTrimmedWith(t *testing.T, settings *config.File, trimmedName, wholeName string, full func() (undo func())) {
	t.Helper()
	l, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join("testdata", "*"))
	paths = append(paths, filepath.Join("..", "examples"), filepath.Join("..", "..", "shared", "corpus", "real-world"))
	ctx := context.Background()
	findings := func(p string) []string {
		var out []string
		for _, f := range l.Run(ctx, lint.Options{Paths: []string{p}, Settings: settings}).Findings {
			out = append(out, fmt.Sprintf("%s#%d:%d:%d %s %s", f.File, f.Document, f.Line, f.Column, f.Rule, f.Message))
		}
		return out
	}
	total := 0
	for _, p := range paths {
		trimmed := findings(p)
		undo := full()
		whole := findings(p)
		undo()
		if fmt.Sprint(trimmed) != fmt.Sprint(whole) {
			t.Errorf("%s: with %s\n%v\nwith %s\n%v", p, trimmedName, trimmed, wholeName, whole)
		}
		total += len(whole)
	}
	if total == 0 {
		t.Fatal("no findings at all: the comparison proves nothing")
	}
}
