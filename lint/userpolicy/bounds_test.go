package userpolicy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/lint/userpolicy"
)

// TestUnboundedBuiltinsAreBounded: each policy's deny rule calls a built-in
// that OPA runs without bound in one call (glob.match backtracking, a
// json.marshal of 1,000 references to one 9.8 MB string, graphql.parse_query
// of a query nested 2^21 deep, which overflows the stack): each is an error
// naming the policy and the bound, well within the timeout and the memory
// guard, and the file's warn rule, which calls the same built-in on
// ordinary arguments, still reports.
func TestUnboundedBuiltinsAreBounded(t *testing.T) {
	for _, tt := range []struct {
		policy, errWant, warn string
	}{
		{"glob-bomb.rego", "", "policy/main/warn: a ConfigMap"},
		{"marshal-shared.rego", "the most a policy may make in one call", "policy/main/warn: marshalled"},
		{"graphql-deep.rego", "a GraphQL document nested 2097152 deep, over the 512", "policy/main/warn: parsed"},
	} {
		t.Run(tt.policy, func(t *testing.T) {
			start := time.Now()
			first, _, err, _ := evalPolicy(t, userpolicy.Options{Policies: []string{hostilePolicies + tt.policy},
				PolicyTimeout: time.Minute, PolicyMemory: 256 << 20})
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("evaluating %s took %s", tt.policy, d)
			}
			switch {
			case tt.errWant == "" && err != nil:
				t.Errorf("Eval(%s) error = %v, want none", tt.policy, err)
			case tt.errWant != "" && (err == nil || !strings.Contains(err.Error(), tt.errWant) || !strings.Contains(err.Error(), tt.policy+":")):
				t.Errorf("Eval(%s) error = %v, want one naming %s and containing %q", tt.policy, err, tt.policy, tt.errWant)
			}
			if got := strings.Join(userFindings(first), "\n"); got != tt.warn {
				t.Errorf("Eval(%s) findings = %q, want %q", tt.policy, got, tt.warn)
			}
		})
	}
}

// TestReachablePathsRefused: graph.reachable_paths, whose result may be
// exponentially large, is a compile error naming the file and row.
func TestReachablePathsRefused(t *testing.T) {
	_, err := userpolicy.New(userpolicy.Options{Policies: []string{hostilePolicies + "reachable-paths.rego"}})
	if want := "reachable-paths.rego:6: graph.reachable_paths is not allowed"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("userpolicy.New(reachable-paths.rego) error = %v, want it to contain %q", err, want)
	}
}
