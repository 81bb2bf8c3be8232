package compiled

import (
	"testing"
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
