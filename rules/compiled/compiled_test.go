package compiled

import (
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestBuiltinRulesPassEveryCheck compiles the embedded rules with every
// compiler stage, the checks the shared compiles skip (checkOnlyStages)
// included: a rule that fails one of them fails here.
func TestBuiltinRulesPassEveryCheck(t *testing.T) {
	modules, err := Modules(false)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCompiler()
	c.Compile(modules)
	if c.Failed() {
		t.Fatalf("the built-in rules fail the compiler's checks:\n%v", c.Errors)
	}
	if c.TypeEnv == nil {
		t.Error("the full compile did not check types")
	}
}

// TestSharedCompilesSucceed checks the compiles a run uses.
func TestSharedCompilesSucceed(t *testing.T) {
	for name, get := range map[string]func() (*Compiled, error){"Local": Local, "Cross": Cross, "Builtin": Builtin} {
		if c, err := get(); err != nil {
			t.Errorf("%s: %v", name, err)
		} else if len(c.Modules) == 0 {
			t.Errorf("%s compiled no module", name)
		}
	}
}

// TestParsedModulesAreFrozen: a walk of the parsed modules (readFields in
// lint's first pass) and a compile's copy of them (Module.Copy) may run at
// once. OPA sorts an object's or set's keys lazily, on a first walk, and Copy
// reads them without the lock that sorting takes: freeze sorts them all at
// parse time. The race detector (CI's -race run covers this package) fails
// this test without freeze.
func TestParsedModulesAreFrozen(t *testing.T) {
	modules, err := Modules(false)
	if err != nil {
		t.Fatal(err)
	}
	walked := 0
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, m := range modules {
			ast.WalkTerms(m, func(term *ast.Term) bool {
				switch v := term.Value.(type) {
				case ast.Object:
					v.Foreach(func(_, _ *ast.Term) {})
					walked++
				case ast.Set:
					v.Foreach(func(*ast.Term) {})
					walked++
				}
				return false
			})
		}
	})
	wg.Go(func() {
		for _, m := range modules {
			_ = m.Copy()
		}
	})
	wg.Wait()
	if walked == 0 {
		t.Fatal("no object or set in the built-in rules: the test proves nothing")
	}
}
