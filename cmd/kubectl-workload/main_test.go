package main

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildPlugin builds this command into a fresh directory, named as kubectl
// expects a plugin to be named.
func buildPlugin(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubectl-workload")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestBinaryExitCodes runs the real binary, so that main's mapping of results
// to exit codes is what is tested.
func TestBinaryExitCodes(t *testing.T) {
	bin := buildPlugin(t)
	tests := []struct {
		name     string
		args     []string
		wantExit int
		wantOut  string
		wantErr  string
	}{
		{name: "clean", args: []string{"lint", "../../examples/good"}, wantExit: 0, wantOut: "0 errors"},
		{name: "findings", args: []string{"lint", "../../examples/broken"}, wantExit: 1, wantOut: "error api/invalid"},
		{name: "missing file among good ones", args: []string{"lint", "nope.yaml", "../../examples/good"}, wantExit: 2,
			wantOut: "7 objects in 3 files", wantErr: "error: nope.yaml: no such file or directory"},
		{name: "usage", args: []string{"lint"}, wantExit: 2, wantErr: "error: no input"},
		{name: "unknown command", args: []string{"frobnicate"}, wantExit: 2, wantErr: `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if got := exitCode(err); got != tt.wantExit {
				t.Errorf("exit = %d, want %d\nstdout: %s\nstderr: %s", got, tt.wantExit, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantOut) {
				t.Errorf("stdout = %q, want it to contain %q", stdout.String(), tt.wantOut)
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.wantErr)
			}
		})
	}
}

// TestKubectlFindsThePlugin runs `kubectl workload version` with the binary on
// PATH, as a user does after installing it. It needs a kubectl: $KUBECTL, or
// one on PATH.
func TestKubectlFindsThePlugin(t *testing.T) {
	kubectl := os.Getenv("KUBECTL")
	if kubectl == "" {
		var err error
		if kubectl, err = exec.LookPath("kubectl"); err != nil {
			t.Skip("no kubectl on PATH and KUBECTL is unset; .ci/run sets KUBECTL")
		}
	}
	bin := buildPlugin(t)
	cmd := exec.Command(kubectl, "workload", "version")
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl workload version: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Kubernetes v1.37.") {
		t.Errorf("kubectl workload version = %q, want the embedded Kubernetes version", out)
	}
	cmd = exec.Command(kubectl, "plugin", "list")
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin))
	out, _ = cmd.CombinedOutput() // exits 1 when it warns about other plugins
	if !strings.Contains(string(out), bin) {
		t.Errorf("kubectl plugin list = %q, want it to list %s", out, bin)
	}
}

// TestNoInitSideEffects: no package of the module starts a goroutine or changes runtime
// settings from an init (or a package-level initializer): main starts the GC tuner, and lint
// starts the rule compile, explicitly. It parses every non-test Go file of the module.
func TestNoInitSideEffects(t *testing.T) {
	root := filepath.Join("..", "..")
	forbidden := map[string]bool{"runtime": true, "runtime/debug": true, "github.com/kubectl-workload/kubectl-workload/internal/gctune": true}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		imports := map[string]string{} // local name -> path
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			name := p[strings.LastIndex(p, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			imports[name] = p
		}
		check := func(what string, n ast.Node) {
			ast.Inspect(n, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.GoStmt:
					t.Errorf("%s: %s starts a goroutine", path, what)
				case *ast.SelectorExpr:
					if id, ok := n.X.(*ast.Ident); ok && forbidden[imports[id.Name]] {
						t.Errorf("%s: %s uses %s.%s", path, what, imports[id.Name], n.Sel.Name)
					}
				}
				return true
			})
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Name.Name == "init" && decl.Recv == nil {
					check("func init", decl.Body)
				}
			case *ast.GenDecl:
				if decl.Tok == token.VAR {
					check("a package-level var", decl)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files, want the whole module", checked)
	}
}
