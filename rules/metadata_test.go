package rules

import (
	"testing"
	"time"
)

// The rule ids and metadata are read from the parsed modules: a settings
// check, an ignore annotation or an opt-in test must not wait for the
// compile, which lint's loading overlaps.
func TestMetadataDoesNotWaitForTheCompile(t *testing.T) {
	e := &Engine{byPackage: map[string]*Rule{}, ready: make(chan struct{}), meta: make(chan struct{})}
	e.rules = []Rule{{ID: "x/opt-in", Package: builtinRoot + ".x", OptIn: true}}
	e.byPackage[e.rules[0].Package] = &e.rules[0]
	close(e.meta) // the compile (ready) never finishes
	done := make(chan struct{})
	go func() {
		defer close(done)
		if got, err := e.Metadata(); err != nil || len(got) != 1 {
			t.Errorf("Metadata = %v, %v", got, err)
		}
		if !e.OptIn("x/opt-in") {
			t.Error("OptIn(x/opt-in) = false")
		}
		if _, ok := e.Rule("y/none"); ok {
			t.Error("Rule(y/none) found")
		}
		if got := e.PoliciesNotRun(); got != nil {
			t.Errorf("PoliciesNotRun = %v without user policies", got)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("reading the rules' metadata waited for the compile")
	}
}

func TestMetadataIsPublishedBeforeReady(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := e.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	all, err := e.Rules()
	if err != nil {
		t.Fatal(err)
	}
	if len(meta) == 0 || len(meta) != len(all) {
		t.Fatalf("Metadata has %d rules, Rules %d", len(meta), len(all))
	}
}
