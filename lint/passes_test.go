package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

func TestShallowIndexLookup(t *testing.T) {
	known := map[string]manifest.Pos{
		"metadata":                 {Line: 3, Column: 1},
		"metadata.labels":          {Line: 5, Column: 3},
		"metadata.name":            {Line: 4, Column: 3},
		"spec":                     {Line: 8, Column: 1},
		"spec.selector":            {Line: 9, Column: 3},
		"spec[odd key]":            {Line: 12, Column: 3},
		"spec.template":            {Line: 14, Column: 3},
		"status.conditions.absent": {}, // asked for, not found exactly: left out
	}
	paths := []string{"metadata", "metadata.labels", "metadata.name", "spec", "spec.selector", "spec.template", "spec[odd key]", "status.conditions.absent"}
	start := manifest.Pos{Line: 2, Column: 1}
	for _, s := range []*rules.Keep{rules.NewKeep(), nil} {
		var fields []shallowField
		for _, p := range paths {
			if pos := known[p]; pos.Line > 0 {
				fields = append(fields, shallowField{path: p, pos: pos})
			}
		}
		idx, _ := indexFields(start, fields, s, nil)
		checkLookups(t, idx, start)
	}
	var empty shallowIndex
	if got := empty.lookup("spec.selector"); got != (manifest.Pos{}) {
		t.Errorf("empty index: lookup = %v, want the zero position", got)
	}
}

func checkLookups(t *testing.T, idx shallowIndex, start manifest.Pos) {
	t.Helper()
	for _, tt := range []struct {
		path string
		want manifest.Pos
	}{
		{"metadata.name", manifest.Pos{Line: 4, Column: 3}},
		{"metadata", manifest.Pos{Line: 3, Column: 1}},
		{"metadata.labels[app.kubernetes.io/name]", manifest.Pos{Line: 5, Column: 3}},
		{"spec.selector.matchLabels.app", manifest.Pos{Line: 9, Column: 3}},
		{"spec[odd key]", manifest.Pos{Line: 12, Column: 3}},
		{"spec.template.spec.containers[0].image", manifest.Pos{Line: 14, Column: 3}},
		{"spec.replicas", manifest.Pos{Line: 8, Column: 1}},
		{"spec.sel", manifest.Pos{Line: 8, Column: 1}}, // a prefix of a path is not that path
		{"status.conditions.absent", start},
		{"kind", start},
		{"", start},
	} {
		if got := idx.lookup(tt.path); got != tt.want {
			t.Errorf("lookup(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestSecondPassBatchesMatchOneBatch lints the rule fixtures, the examples
// and the real-world corpus with every namespace in a batch of its own and
// in one batch, and compares the findings: no cross-resource rule reads
// another namespace than its input's.
func TestSecondPassBatchesMatchOneBatch(t *testing.T) {
	paths := []string{"../rules/testdata", "../examples", "../../shared/corpus/real-world"}
	if _, err := os.Stat(paths[2]); err != nil {
		paths = paths[:2] // the corpus lives beside the checkout
	}
	run := func(batch int) *Result {
		old := batchObjects
		batchObjects = batch
		defer func() { batchObjects = old }()
		return newTestLinter(t).Run(context.Background(), Options{Paths: paths})
	}
	one, each := run(1<<30), run(1)
	namespaces := map[string]bool{}
	for _, o := range one.Linted {
		namespaces[o.Object.Namespace] = true
	}
	if len(namespaces) < 3 {
		t.Fatalf("only %d namespaces linted: the batches are not exercised", len(namespaces))
	}
	cross := 0
	for _, f := range one.Findings {
		if strings.HasPrefix(f.Rule, "selector/") || strings.HasPrefix(f.Rule, "service/") || strings.HasPrefix(f.Rule, "pdb/") || strings.HasPrefix(f.Rule, "hpa/") {
			cross++
		}
	}
	if cross == 0 {
		t.Fatal("no cross-resource finding: the comparison proves nothing")
	}
	a, _ := json.Marshal(one.Findings)
	b, _ := json.Marshal(each.Findings)
	if !bytes.Equal(a, b) {
		t.Errorf("findings differ between one batch (%d) and a batch per namespace (%d)", len(one.Findings), len(each.Findings))
	}
}
