package userpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// FuzzUserCompile compiles hostile modules as user policies: compiling never
// panics, and a module that compiles is in no reserved package, refers to
// nothing built-in and calls no refused built-in nor any bounded one but
// through its bound.
//
//	go test ./rules -run '^$' -fuzz FuzzUserCompile -fuzztime 60s
func FuzzUserCompile(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/hostile/policies/*.rego")
	for _, s := range seeds {
		src, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	f.Add("package main\ndeny contains x if { x := replace(input.a, \"\", input.b) }\n")
	f.Add("package main\ndeny contains x if { x := bits.lsh(1, 99999999999) }\n")
	f.Add("package main\ndeny contains x if { x := 1 with bits.lsh as concat }\n")
	f.Add("package kubectl_workload.rules.x\nfindings := set()\n")
	f.Add("package kubectl_workload_bounded\nreplace(a, b, c) := a\n")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<16 {
			return
		}
		m, err := ast.ParseModuleWithOpts("fuzz.rego", src, parserOptions(ast.RegoV1))
		if err != nil {
			return
		}
		c, err := userCompile(map[string]*ast.Module{"policy:fuzz.rego": m})
		if err != nil {
			return
		}
		for _, m := range c.Modules {
			pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
			if pkg == reservedRoot || strings.HasPrefix(pkg, reservedRoot+".") || strings.HasPrefix(pkg, boundedRoot) {
				t.Fatalf("userCompile accepted package %s", pkg)
			}
			ast.WalkRefs(m, func(r ast.Ref) bool {
				name := r.String()
				if isBounded(name) || refusedReason(name) != "" {
					t.Fatalf("userCompile accepted a module that refers to %s", name)
				}
				if strings.HasPrefix(name, "data."+reservedRoot) {
					t.Fatalf("userCompile accepted a module that refers to %s", name)
				}
				return false
			})
		}
	})
}

// TestRecovered: a panic inside a policy's compile or evaluation is an
// error naming what panicked, not a crash.
func TestRecovered(t *testing.T) {
	err := recovered("evaluate p.rego:3", func() error { panic("index out of range") })
	if err == nil || !strings.Contains(err.Error(), "evaluate p.rego:3: index out of range") {
		t.Errorf("recovered(panic) = %v, want an error naming p.rego:3 and the panic", err)
	}
	if err := recovered("x", func() error { return nil }); err != nil {
		t.Errorf("recovered(nil) = %v, want nil", err)
	}
}
