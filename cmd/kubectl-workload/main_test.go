package main

import (
	"errors"
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

// TestGCTunerStartsBeforeHeavyInits checks, with the runtime's init trace,
// that the GC tuner's package is initialized before the Kubernetes packages
// whose inits allocate most (so that they run with the collector tuned),
// and that no collection runs before main in a plain start.
func TestGCTunerStartsBeforeHeavyInits(t *testing.T) {
	bin := buildPlugin(t)
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1,gctrace=1")
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		cmd.Env = append(cmd.Env, v+"=") // set but empty: the tuner's own check
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("version: %v\n%s", err, stderr.String())
	}
	order := map[string]int{}
	var gcs []string
	for i, line := range strings.Split(stderr.String(), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 1 && f[0] == "init":
			order[f[1]] = i
		case len(f) > 0 && f[0] == "gc":
			gcs = append(gcs, line)
		}
	}
	tuner, ok := order["github.com/kubectl-workload/kubectl-workload/gctune/autostart"]
	if !ok {
		t.Fatalf("no init trace line for gctune/autostart in:\n%s", stderr.String())
	}
	for _, heavy := range []string{
		"k8s.io/client-go/kubernetes/scheme",
		"k8s.io/kubernetes/pkg/features",
		"k8s.io/kubernetes/pkg/apis/core/install",
		"github.com/open-policy-agent/opa/v1/ast",
	} {
		i, ok := order[heavy]
		if !ok {
			t.Errorf("no init trace line for %s", heavy)
			continue
		}
		if i < tuner {
			t.Errorf("%s is initialized before gctune/autostart", heavy)
		}
	}
	if len(gcs) > 0 {
		t.Errorf("collections during a plain start, want none:\n%s", strings.Join(gcs, "\n"))
	}
}
