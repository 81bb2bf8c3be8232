package rules

import (
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kubectl-workload/kubectl-workload/rules/compiled"
)

// TestKindsOfLocalRules checks what kindsOf derives for a few built-in
// rules of each shape: a kind test, a pod-template rule (through
// lib.pod_containers and lib.pod_spec_path's else chain), a rule reading its
// own partial object (job_specs), a set membership test.
func TestKindsOfLocalRules(t *testing.T) {
	local, err := compiled.Local()
	if err != nil {
		t.Fatal(err)
	}
	a := newKindAnalysis(local.Compiler)
	podSpec := "[CronJob DaemonSet Deployment Job Pod PodTemplate ReplicaSet ReplicationController StatefulSet]"
	for pkg, want := range map[string]string{
		"rollout_no_progress_deadline":  "[Deployment]",
		"resources_requests_missing":    podSpec,
		"hygiene_automount_token":       podSpec,
		"job_onfailure_backoff":         "[CronJob Job]",
		"availability_no_spread":        "[Deployment StatefulSet]",
		"rollout_mutable_image_tag":     "[CronJob DaemonSet Deployment Job ReplicaSet ReplicationController StatefulSet]",
		"pdb_unhealthy_eviction_policy": "[PodDisruptionBudget]",
	} {
		got := a.kindsOf(ast.MustParseRef("data." + builtinRoot + "." + pkg + ".findings"))
		if got == nil || fmt.Sprint(got.sorted()) != want {
			t.Errorf("%s: kinds %v, want %s", pkg, got.sorted(), want)
		}
	}
}

// TestKindsOfErrsTowardsAnyKind checks the shapes that must not restrict:
// a negated test, a comprehension, a default, the size of a partial set
// (defined when empty), a function, an every, and a partial rule referred
// to as a whole.
func TestKindsOfErrsTowardsAnyKind(t *testing.T) {
	const lib = `package lib
import rego.v1
spec_path := ["spec"] if input.object.kind == "Deployment"
spec := object.get(input.object, spec_path, {})
items contains x if some x in object.get(spec, "items", [])
with_default := 1 if input.object.kind == "Job"
default with_default := 0
fn(x) := x if input.object.kind == "Pod"
`
	cases := map[string]string{
		"kind":         `findings contains 1 if input.object.kind == "Deployment"`,
		"kind-in":      `findings contains 1 if input.object.kind in {"Job", "CronJob"}`,
		"spec":         `findings contains 1 if object.get(data.lib.spec, "x", 0) == 0`,
		"iterate":      `findings contains x if some x in data.lib.items`,
		"lookup":       `findings contains 1 if data.lib.items[_] == 2`,
		"negated":      `findings contains 1 if not input.object.kind == "Deployment"`,
		"not-spec":     `findings contains 1 if not data.lib.spec.x`,
		"compr":        `findings contains 1 if { xs := [x | some x in data.lib.items]; count(xs) == 0 }`,
		"count":        `findings contains 1 if count(data.lib.items) == 0`,
		"default":      `findings contains 1 if data.lib.with_default == 0`,
		"function":     `findings contains 1 if data.lib.fn(1) == 1`,
		"every":        `findings contains 1 if every x in data.lib.items { x > 0 }`,
		"two-bodies":   "findings contains 1 if input.object.kind == \"Deployment\"\nfindings contains 2 if input.object.kind == \"Pod\"",
		"unrestricted": "findings contains 1 if input.object.kind == \"Deployment\"\nfindings contains 2 if input.object.metadata.name == \"x\"",
	}
	want := map[string]string{
		"kind": "[Deployment]", "kind-in": "[CronJob Job]", "spec": "[Deployment]", "iterate": "[Deployment]",
		"lookup": "[Deployment]", "two-bodies": "[Deployment Pod]",
	}
	for name, body := range cases {
		modules := map[string]*ast.Module{
			"lib.rego": ast.MustParseModuleWithOpts(lib, ast.ParserOptions{RegoVersion: ast.RegoV1}),
			"r.rego":   ast.MustParseModuleWithOpts("package r\nimport rego.v1\n"+body+"\n", ast.ParserOptions{RegoVersion: ast.RegoV1}),
		}
		c := compiled.NewCompiler()
		if c.Compile(modules); c.Failed() {
			t.Fatalf("%s: %v", name, c.Errors)
		}
		got := newKindAnalysis(c).kindsOf(ast.MustParseRef("data.r.findings"))
		w, restricted := want[name]
		switch {
		case !restricted && got != nil:
			t.Errorf("%s: kinds %v, want any kind", name, got.sorted())
		case restricted && (got == nil || fmt.Sprint(got.sorted()) != w):
			t.Errorf("%s: kinds %v (nil: any), want %s", name, got.sorted(), w)
		}
	}
}

// TestEvaluates checks Engine.Evaluates against the two gates it reports:
// the kinds derived from a per-object rule's Rego, and a cross-resource
// rule's metadata kinds.
func TestEvaluates(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, kind string
		want     bool
	}{
		{"rollout/no-progress-deadline", "Deployment", true},   // local, derived [Deployment]
		{"rollout/no-progress-deadline", "StatefulSet", false}, // local, outside the derived kinds
		{"resources/requests-missing", "CronJob", true},        // local, any pod template
		{"resources/requests-missing", "Service", false},
		{"service/target-port-not-exposed", "Service", true}, // cross, metadata kinds [Service]
		{"service/target-port-not-exposed", "Deployment", false},
		{"pdb/zero-disruptions", "PodDisruptionBudget", true},
		{"no/such-rule", "Deployment", false},
	} {
		if got := e.Evaluates(c.id, c.kind); got != c.want {
			t.Errorf("Evaluates(%q, %q) = %v, want %v", c.id, c.kind, got, c.want)
		}
	}
}
