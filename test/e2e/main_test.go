package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The control plane and the plugin binary are shared by every test in the package. Each is
// made at most once, on first use, so that `go test -run X` starts only what X needs;
// TestMain tears both down after the last test.
var (
	clusterOnce sync.Once
	clusterDir  string
	cluster     *Cluster
	clusterErr  error

	// logsOnce prints the control-plane logs once (printLogs): from the cleanup of the first
	// failed test that used the cluster (sharedCluster), so that its failure messages, which go
	// test prints after that test's cleanups, end the output instead of hundreds of log lines.
	logsOnce sync.Once

	pluginOnce sync.Once
	pluginDir  string
	pluginBin  string
	pluginErr  error
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	code := m.Run()
	if cluster != nil {
		if code != 0 {
			printLogs("e2e: tests failed")
		}
		if err := cluster.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: stop control plane: %v\n", err)
			code = 1
		}
	}
	for _, dir := range []string{clusterDir, pluginDir} {
		if dir != "" {
			if err := os.RemoveAll(dir); err != nil {
				fmt.Fprintf(os.Stderr, "e2e: remove %s: %v\n", dir, err)
			}
		}
	}
	return code
}

// requireE2E skips t unless the end-to-end tests were asked for.
func requireE2E(t testing.TB) {
	t.Helper()
	if !Enabled() {
		t.Skip(HowToRun)
	}
}

// sharedCluster returns the package's control plane, starting it on first use. When the
// end-to-end tests are enabled, a control plane that cannot start fails t.
func sharedCluster(t testing.TB) *Cluster {
	t.Helper()
	requireE2E(t)
	clusterOnce.Do(func() {
		bin, err := BinDir()
		if err != nil {
			clusterErr = err
			return
		}
		clusterDir, err = os.MkdirTemp("", "kubectl-workload-e2e-cluster-")
		if err != nil {
			clusterErr = fmt.Errorf("create cluster dir: %w", err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cluster, clusterErr = StartCluster(ctx, ClusterOptions{BinDir: bin, Dir: clusterDir})
		if clusterErr == nil {
			fmt.Fprintf(os.Stderr, "e2e: control plane %s ready in %s (dir %s)\n",
				cluster.Server, cluster.StartupDuration.Round(10*time.Millisecond), clusterDir)
		}
	})
	if clusterErr != nil {
		t.Fatalf("start control plane: %v", clusterErr)
	}
	t.Cleanup(func() {
		if t.Failed() {
			printLogs("e2e: " + t.Name() + " failed (its messages follow these logs)")
		}
	})
	return cluster
}

// printLogs prints the tails of the control plane's logs to stderr, under why, the first time
// it is called.
func printLogs(why string) {
	logsOnce.Do(func() {
		fmt.Fprintf(os.Stderr, "%s; control-plane logs:\n%s", why, cluster.LogTail(60))
	})
}

// repoRoot returns the directory of the module that contains this package.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}

// pluginBinary builds ./cmd/kubectl-workload once and returns the binary's path.
func pluginBinary(t testing.TB) string {
	t.Helper()
	requireE2E(t)
	pluginOnce.Do(func() {
		root, err := repoRoot()
		if err != nil {
			pluginErr = err
			return
		}
		pluginDir, err = os.MkdirTemp("", "kubectl-workload-e2e-plugin-")
		if err != nil {
			pluginErr = fmt.Errorf("create plugin dir: %w", err)
			return
		}
		bin := filepath.Join(pluginDir, "kubectl-workload")
		start := time.Now()
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/kubectl-workload")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			pluginErr = fmt.Errorf("go build ./cmd/kubectl-workload in %s: %w\n%s", root, err, out)
			return
		}
		// The render helper, beside it, as a krew install and a release
		// archive place it.
		cmd = exec.Command("go", "build", "-o", filepath.Join(pluginDir, "kubectl_workload-render"), "./cmd/kubectl_workload-render")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			pluginErr = fmt.Errorf("go build ./cmd/kubectl_workload-render in %s: %w\n%s", root, err, out)
			return
		}
		fmt.Fprintf(os.Stderr, "e2e: built kubectl-workload and kubectl_workload-render in %s\n", time.Since(start).Round(10*time.Millisecond))
		pluginBin = bin
	})
	if pluginErr != nil {
		t.Fatalf("build plugin: %v", pluginErr)
	}
	return pluginBin
}
