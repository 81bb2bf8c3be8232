package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
	"github.com/kubectl-workload/kubectl-workload/lint/userpolicy"
)

// run executes the root command as main would, returning stdout, stderr and
// the exit code.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	streams, in, out, errOut := genericiooptions.NewTestIOStreams()
	in.WriteString(stdin)
	cmd := NewCmdRoot(streams)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	if msg := ErrorMessage(err); msg != "" {
		errOut.WriteString("error: " + msg + "\n")
	}
	return out.String(), errOut.String(), ExitCode(err)
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", "golden", name), got)
}

func TestLintGolden(t *testing.T) {
	tests := []struct {
		name     string
		stdin    string
		args     []string
		wantExit int
	}{
		{name: "examples.txt", args: []string{"lint", "../examples"}, wantExit: 1},
		{name: "examples-good.txt", args: []string{"lint", "../examples/good"}, wantExit: 0},
		{name: "typos.json", args: []string{"lint", "-o", "json", "../examples/broken/typos.yaml"}, wantExit: 1},
		{name: "warning-only.txt", args: []string{"lint", "testdata/warning-only.yaml"}, wantExit: 0},
		{name: "warning-only-fail-on-warning.txt", args: []string{"lint", "--fail-on", "warning", "testdata/warning-only.yaml"}, wantExit: 1},
		{name: "not-kubernetes.txt", args: []string{"lint", "testdata/not-kubernetes.yaml"}, wantExit: 0},
		{name: "stdin-namespace.txt", stdin: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: Bad\n", args: []string{"lint", "-n", "team-a", "-"}, wantExit: 1},
		{name: "filename-flag.txt", args: []string{"lint", "-f", "../examples/broken/selector-mismatch.yaml", "-f", "testdata/warning-only.yaml"}, wantExit: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, tt.stdin, tt.args...)
			if code != tt.wantExit {
				t.Errorf("exit code = %d, want %d (stderr: %s)", code, tt.wantExit, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr = %q, want nothing", errOut)
			}
			golden(t, tt.name, out)
		})
	}
}

func TestLintMissingPathStillLintsTheRest(t *testing.T) {
	out, errOut, code := run(t, "", "lint", "does-not-exist.yaml", "../examples/broken/selector-mismatch.yaml")
	if code != ExitError {
		t.Errorf("exit code = %d, want %d", code, ExitError)
	}
	if !strings.Contains(out, "selector-mismatch.yaml:13:7: error api/invalid:") {
		t.Errorf("stdout = %q, want the other file's finding", out)
	}
	if !strings.Contains(errOut, "error: does-not-exist.yaml: no such file or directory") {
		t.Errorf("stderr = %q, want the missing path named", errOut)
	}
}

func TestLintUsageErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "no paths", args: []string{"lint"}, wantErr: "no input"},
		{name: "bad output", args: []string{"lint", "-o", "yaml", "x.yaml"}, wantErr: `unknown output format "yaml"`},
		{name: "bad fail-on", args: []string{"lint", "--fail-on", "fatal", "x.yaml"}, wantErr: `unknown severity "fatal"`},
		{name: "unknown flag", args: []string{"lint", "--nope"}, wantErr: "unknown flag: --nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, "", tt.args...)
			if code != ExitError || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("run(%v) = exit %d, stderr %q; want exit 2 and %q", tt.args, code, errOut, tt.wantErr)
			}
		})
	}
}

func TestLintVerboseNamesSkippedDocuments(t *testing.T) {
	_, errOut, code := run(t, "", "lint", "--verbose", "testdata/not-kubernetes.yaml")
	if code != ExitClean {
		t.Errorf("exit code = %d, want 0", code)
	}
	if want := "testdata/not-kubernetes.yaml:2:1: skipped: not a Kubernetes object (no apiVersion or kind)\n"; errOut != want {
		t.Errorf("stderr = %q, want %q", errOut, want)
	}
}

func TestLintJSONIsValidAndCounts(t *testing.T) {
	out, _, _ := run(t, "", "lint", "-o", "json", "../examples")
	var rep struct {
		SchemaVersion     int    `json:"schemaVersion"`
		KubernetesVersion string `json:"kubernetesVersion"`
		Findings          []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
			Line     int    `json:"line"`
			Column   int    `json:"column"`
		} `json:"findings"`
		Summary struct {
			Errors int `json:"errors"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("-o json is not JSON: %v\n%s", err, out)
	}
	errs := 0
	for _, f := range rep.Findings {
		if f.Severity == "error" {
			errs++
		}
	}
	if rep.SchemaVersion != 1 || rep.Summary.Errors != errs || errs == 0 {
		t.Errorf("report = %+v, want schema 1 and summary.errors counting the error findings", rep)
	}
	for _, f := range rep.Findings {
		if f.Line < 1 || f.Column < 1 {
			t.Errorf("finding %+v has no position", f)
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, code := run(t, "", "version")
	if code != 0 || !regexp.MustCompile(`(?m)^Kubernetes v1\.37\.\d+ `).MatchString(out) {
		t.Errorf("version = exit %d, %q; want the embedded Kubernetes v1.37 release", code, out)
	}
	out, _, _ = run(t, "", "version", "-o", "json")
	var info struct{ Plugin, Kubernetes string }
	if err := json.Unmarshal([]byte(out), &info); err != nil || !strings.HasPrefix(info.Kubernetes, "v1.37.") {
		t.Errorf("version -o json = %q (%v), want kubernetes v1.37.x", out, err)
	}
}

func TestHelpShowsKubectlPrefix(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"lint", "--help"}} {
		out, _, _ := run(t, "", args...)
		if !strings.Contains(out, "kubectl workload") || strings.Contains(out, "kubectl-workload lint") {
			t.Errorf("help for %v does not show the kubectl workload prefix:\n%s", args, out)
		}
	}
}

// TestOnlyPoliciesCompileRego: the built-in rules are Go, so version, predict and lint
// compile no Rego; lint --policy compiles the user policies. Each command runs in a fresh
// process (this test binary, re-run on this test alone), so that each counts its own compiles.
func TestOnlyPoliciesCompileRego(t *testing.T) {
	if args := os.Getenv("KUBECTL_WORKLOAD_COMPILE_PROBE"); args != "" {
		_, stderr, code := run(t, "", strings.Fields(args)...)
		fmt.Printf("compiles=%d exit=%d %s\n", userpolicy.Compiles(), code, stderr)
		return
	}
	for _, tt := range []struct {
		args string
		want bool
	}{
		{"version", false},
		{"predict -f ../examples/predict/checkout-v2.yaml --from ../examples/predict/checkout-v1.yaml", false},
		{"lint ../examples/good", false},
		{"lint ../examples/good --policy ../lint/userpolicy/testdata/policies/conftest", true},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOnlyPoliciesCompileRego$")
		cmd.Env = append(os.Environ(), "KUBECTL_WORKLOAD_COMPILE_PROBE="+tt.args)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.args, err, out)
		}
		m := regexp.MustCompile(`compiles=(\d+) exit=[01] `).FindSubmatch(out)
		if m == nil {
			t.Fatalf("%s: no probe result, or an exit other than 0 (clean) or 1 (findings), in:\n%s", tt.args, out)
		}
		if got := string(m[1]) != "0"; got != tt.want {
			t.Errorf("%s compiled Rego %s times, want compiles: %v", tt.args, m[1], tt.want)
		}
	}
}

// TestPluginStaysThin: the plugin wires flags to library calls and prints. It stays under 1500
// lines of non-test Go (800 until issue 39 moved every command's options, their checks and
// the printing of predict, predict drain and predict delete out of the libraries into plugin,
// as kubectl's pkg/cmd holds them, the help texts to help/*.txt; issue 40 added predict
// upgrade's 130), and reaches the API tier, git and the predictors only through the
// libraries (lint, predict), never by importing internal/apicheck, internal/gitref, a
// controller mirror (internal/controller/..., internal/kubectl/..., internal/registry/...,
// internal/scheduler) or predict's own subpackages but its report package, which renders the
// plans the plugin prints.
func TestPluginStaysThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	forbidden := regexp.MustCompile(`"github.com/kubectl-workload/kubectl-workload/(internal/(apicheck|gitref|controller|kubectl|registry|scheduler)(/[^"]*)?|predict/[^"]+)"`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(src), "\n")
		for _, m := range forbidden.FindAllString(string(src), -1) {
			if m == `"github.com/kubectl-workload/kubectl-workload/predict/planreport"` {
				continue
			}
			t.Errorf("%s imports %s", f, m)
		}
	}
	if lines == 0 || lines >= 1500 {
		t.Errorf("plugin/ holds %d lines of non-test Go, want fewer than 1500", lines)
	}
}

// TestLibrariesNeverPrint: no package under lint/, predict/, rules/ or internal/ imports cobra
// or names os.Stdout or os.Stderr. plugin/ owns the flags and the printing; a library says what
// it found through the values it returns. It parses every non-test Go file there.
//
// The one exception is internal/render/serve.go: the loop of the render helper, a process of
// its own (cmd/kubectl_workload-render), which captures the kustomize library's writes to its
// standard error to return them as warnings.
func TestLibrariesNeverPrint(t *testing.T) {
	exempt := map[string]bool{filepath.Join("..", "internal", "render", "serve.go"): true}
	checked := 0
	for _, dir := range []string{"lint", "predict", "rules", "internal"} {
		err := filepath.WalkDir(filepath.Join("..", dir), func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")):
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
				return nil
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			checked++
			osName := ""
			for _, imp := range f.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				if p == "github.com/spf13/cobra" || strings.HasPrefix(p, "github.com/spf13/cobra/") {
					t.Errorf("%s imports %s: flags and commands are plugin's", path, p)
				}
				if p == "os" {
					osName = "os"
					if imp.Name != nil {
						osName = imp.Name.Name
					}
				}
			}
			if osName == "" || exempt[path] {
				return nil
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Stdout" || sel.Sel.Name == "Stderr") {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName {
						t.Errorf("%s: os.%s: a library returns what it found; plugin prints it", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 200 {
		t.Fatalf("checked %d files, want every library file", checked)
	}
}
