package userpolicy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/rules"
)

// builtinsPolicy calls the bounded built-ins on the object's fields.
const builtinsPolicy = `package fuzz

import rego.v1

deny contains msg if {
	glob.match(input.a, null, input.b)
	msg := "glob"
}

deny contains msg if {
	glob.match(input.a, ["/"], input.b)
	msg := "glob with a separator"
}

deny contains msg if {
	graphql.parse_query(input.a)
	msg := "graphql"
}

deny contains msg if {
	count(json.marshal([input.a, input.b, input.a])) > 0
	count(yaml.marshal({"a": input.a})) > 0
	msg := sprintf("%v %s", [input.b, input.a])
}

deny contains msg if {
	regex.globs_match(input.a, input.b)
	msg := "globs"
}
`

// FuzzBoundedBuiltins evaluates the bounded built-ins of user policies on
// hostile arguments: no panic, no crash, each evaluation within seconds.
//
//	go test ./rules -run '^$' -fuzz FuzzBoundedBuiltins -fuzztime 60s
func FuzzBoundedBuiltins(f *testing.F) {
	f.Add(strings.Repeat("{a,a}", 40)+"[b]", strings.Repeat("a", 40)+"c")
	f.Add("{ a { b } }", "x")
	f.Add(strings.Repeat("{a", 600)+strings.Repeat("}", 600), "")
	f.Add(`"""{{{"""`+strings.Repeat("(", 10), "# {{{")
	f.Add("[a-", "a.b")
	f.Add("a*b?c", "a/x/b/c")
	policy := filepath.Join(f.TempDir(), "fuzz.rego")
	if err := os.WriteFile(policy, []byte(builtinsPolicy), 0o600); err != nil {
		f.Fatal(err)
	}
	e, err := New(Options{Policies: []string{policy}, PolicyTimeout: 10 * time.Second})
	if err != nil {
		f.Fatal(err)
	}
	run, err := e.Prepare(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 1<<12 || len(b) > 1<<12 {
			return
		}
		js, err := json.Marshal(map[string]string{"a": a, "b": b})
		if err != nil {
			return
		}
		start := time.Now()
		_, _ = run.Eval(context.Background(), rules.Object{Namespace: "default", JSON: js})
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("Eval(%q, %q) took %s", a, b, d)
		}
	})
}
