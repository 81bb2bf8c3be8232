package rules

import (
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestReadPaths derives the fields of input.defaulted a module reads: references, object.get
// with a key or a path, aliases (a rule's value, a local variable), a variable key (the whole
// value from there) and a use as a whole value (a function argument).
func TestReadPaths(t *testing.T) {
	m := ast.MustParseModuleWithOpts(`package p
import rego.v1

spec := input.defaulted.spec

a if input.defaulted.spec.strategy.type == "Recreate"
b if object.get(input.defaulted, ["spec", "template", "metadata", "labels"], {}) != {}
c if object.get(spec, "replicas", 1) > 1
d if {
	tpl := input.defaulted.spec.template
	tpl.spec.terminationGracePeriodSeconds == 0
}
e if input.defaulted.spec.selector.matchLabels[k] == "x"
f if count(input.defaulted.status.conditions) > 0
g if input.object.spec.paused
`, ast.ParserOptions{RegoVersion: ast.RegoV1})
	got := map[string]any{}
	for _, p := range readPaths(m, "defaulted") {
		addPath(got, p)
	}
	want := "spec.replicas, spec.selector.matchLabels, spec.strategy.type, spec.template.metadata.labels, spec.template.spec.terminationGracePeriodSeconds, status.conditions"
	if d := describeFields(got); d != want {
		t.Errorf("fields = %s\nwant     %s", d, want)
	}
}

// TestReadFieldsOfBuiltinRules: the fields derived from the built-in rules hold those the
// rollout rules are known to read, and the cross-resource part is a part of them.
func TestReadFieldsOfBuiltinRules(t *testing.T) {
	sets, err := readFields()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range [][]string{{"spec", "replicas"}, {"spec", "strategy"}, {"spec", "template", "metadata", "labels"}} {
		if !hasPath(sets.defaulted, path) {
			t.Errorf("defaulted fields %s lack %v", describeFields(sets.defaulted), path)
		}
	}
	if !hasPath(sets.crossDefaulted, []string{"spec", "replicas"}) {
		t.Errorf("cross fields %s lack spec.replicas", describeFields(sets.crossDefaulted))
	}
}

func hasPath(fields map[string]any, path []string) bool {
	for _, k := range path {
		v, ok := fields[k]
		if !ok {
			return false
		}
		sub, ok := v.(map[string]any)
		if !ok {
			return true // kept whole
		}
		fields = sub
	}
	return true
}

// TestReadPathsOfAWholeUse: a module that passes input.defaulted itself to a function reads
// all of it.
func TestReadPathsOfAWholeUse(t *testing.T) {
	m := ast.MustParseModuleWithOpts(`package p
import rego.v1

a if count(input.defaulted) > 0
`, ast.ParserOptions{RegoVersion: ast.RegoV1})
	paths := readPaths(m, "defaulted")
	if len(paths) != 1 || len(paths[0]) != 1 || paths[0][0] != wholeValue {
		t.Errorf("paths = %q, want the whole value", paths)
	}
}

// describeFields renders a field tree as "a.b, a.c, d", sorted: for tests and messages.
func describeFields(fields map[string]any) string {
	var out []string
	var walk func(prefix string, f map[string]any)
	walk = func(prefix string, f map[string]any) {
		for k, v := range f {
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(prefix+k+".", sub)
			} else {
				out = append(out, prefix+k)
			}
		}
	}
	walk("", fields)
	sort.Strings(out)
	return strings.Join(out, ", ")
}
