package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The packaging tests (pre-commit, krew, kubectl completion) run the real tools but need no
// control plane: they never call sharedCluster.

// requirePackaging skips t unless the end-to-end tests were asked for. It says what the
// test needs, since these tests need tools rather than a control plane.
func requirePackaging(t *testing.T, needs string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("packaging end-to-end test: needs %s; run it with %s=1 and the environment of eval \"$(hack/install-test-tools.sh)\" (hack/test.sh does both)", needs, EnvEnable)
	}
}

// cmdResult is what a finished command said.
type cmdResult struct {
	out  string // stdout and stderr, interleaved
	code int
}

// runCmd runs name with args in dir with env (the complete environment), failing t when
// the command cannot start or outlives timeout. A non-zero exit is a result, not a failure.
func runCmd(t *testing.T, timeout time.Duration, dir string, env []string, name string, args ...string) cmdResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("$ %s %s (in %s, %s)", name, strings.Join(args, " "), dir, time.Since(start).Round(10*time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("%s %s: timed out after %s:\n%s", name, strings.Join(args, " "), timeout, out.String())
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return cmdResult{out: out.String()}
	case errors.As(err, &exit):
		return cmdResult{out: out.String(), code: exit.ExitCode()}
	default:
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
		return cmdResult{}
	}
}

// mustRun is runCmd for commands that must succeed.
func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	r := runCmd(t, 2*time.Minute, dir, env, name, args...)
	if r.code != 0 {
		t.Fatalf("%s %s: exit %d:\n%s", name, strings.Join(args, " "), r.code, r.out)
	}
	return r.out
}

// withEnv returns env with each KEY=value of set replacing any earlier KEY.
func withEnv(env []string, set ...string) []string {
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		key, _, _ := strings.Cut(kv, "=")
		replaced := false
		for _, s := range set {
			if k, _, _ := strings.Cut(s, "="); k == key {
				replaced = true
			}
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// gitEnv is the environment for git in a test: an identity for commits, and no global or
// system configuration (a core.hooksPath there would make pre-commit refuse to install).
func gitEnv(t *testing.T) []string {
	t.Helper()
	return withEnv(os.Environ(),
		"GIT_AUTHOR_NAME=kubectl-workload e2e", "GIT_AUTHOR_EMAIL=e2e@kubectl-workload.invalid",
		"GIT_COMMITTER_NAME=kubectl-workload e2e", "GIT_COMMITTER_EMAIL=e2e@kubectl-workload.invalid",
		"GIT_CONFIG_GLOBAL="+filepath.Join(t.TempDir(), "gitconfig"), "GIT_CONFIG_NOSYSTEM=1")
}

// snapshotRepo copies the repository's working tree as it is now (tracked files with their
// uncommitted changes, and untracked files that are not ignored) into a new git repository
// with one commit, and returns its directory and commit. pre-commit installs hooks from a
// commit: pointed at the repository itself, it would not see files not yet committed.
func snapshotRepo(t *testing.T) (string, string) {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	env := gitEnv(t)
	list := mustRun(t, root, env, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	dir := filepath.Join(t.TempDir(), "kubectl-workload")
	copied := 0
	for _, name := range strings.Split(list, "\x00") {
		if name == "" {
			continue
		}
		src := filepath.Join(root, name)
		info, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		copied++
	}
	if copied == 0 {
		t.Fatalf("git ls-files in %s listed no files", root)
	}
	mustRun(t, dir, env, "git", "init", "-q", "-b", "main")
	mustRun(t, dir, env, "git", "add", "-A")
	mustRun(t, dir, env, "git", "commit", "-q", "-m", "snapshot of the working tree")
	rev := strings.TrimSpace(mustRun(t, dir, env, "git", "rev-parse", "HEAD"))
	return dir, rev
}

// kubectlPath is the real kubectl: $KUBECTL (hack/test.sh points it at the v1.37.1 build),
// else /usr/bin/kubectl.
func kubectlPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("KUBECTL")
	if p == "" {
		p = "/usr/bin/kubectl"
	}
	if _, err := exec.LookPath(p); err != nil {
		t.Fatalf("kubectl: %v (set KUBECTL to a kubectl binary, 1.26 or later)", err)
	}
	return p
}

// writeFile writes a test file, creating its directory.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// prependPath returns env with dirs put first on PATH.
func prependPath(env []string, dirs ...string) []string {
	path := os.Getenv("PATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return withEnv(env, fmt.Sprintf("PATH=%s%c%s", strings.Join(dirs, string(os.PathListSeparator)), os.PathListSeparator, path))
}
