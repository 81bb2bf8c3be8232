package compiled

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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

// TestCompileStartsAfterInternWriters checks that every package the binary
// links whose code writes OPA's global maps of interned terms and built-ins
// (ast.InternStringTerm, ast.InternVarValue, ast.RegisterBuiltin: "only at
// initialization time", and not safe against concurrent reads) is a
// dependency of this package, so that Go runs its inits before this
// package's init starts the compile in the background. A writer initialized
// later made some runs die with "concurrent map read and map write".
func TestCompileStartsAfterInternWriters(t *testing.T) {
	deps := func(pkg string) map[string]string {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		m := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.SplitN(line, "\t", 3)
			if len(f) == 3 {
				m[f[0]] = f[1] + "\t" + f[2]
			}
		}
		return m
	}
	binary := deps("github.com/kubectl-workload/kubectl-workload/cmd/kubectl-workload")
	mine := deps("github.com/kubectl-workload/kubectl-workload/rules/compiled")
	const self = "github.com/kubectl-workload/kubectl-workload/rules/compiled"
	writers := 0
	for pkg, where := range binary {
		dir, files, _ := strings.Cut(where, "\t")
		for _, name := range strings.Fields(files) {
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`\b(InternStringTerm|InternVarValue|RegisterBuiltin)\(`).Match(src) {
				continue
			}
			writers++
			if _, ok := mine[pkg]; !ok || pkg == self {
				t.Errorf("%s (%s) writes OPA's interned terms but is not initialized before %s", pkg, name, self)
			}
			break
		}
	}
	if writers == 0 {
		t.Fatal("found no package that interns terms: the check looks for the wrong calls")
	}
}
