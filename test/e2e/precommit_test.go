package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// preCommitInstallTimeout bounds a pre-commit run that installs the golang hook: pre-commit
// runs `go install ./...` in its clone of the repository, which links kubectl-workload (and
// compiles whatever the build cache lacks) on a two-core machine.
const preCommitInstallTimeout = 15 * time.Minute

// The fixtures, and what lint says about the broken one.
const (
	preCommitFixtures = "testdata/precommit"
	brokenFinding     = "deploy/broken.yaml:14:7: error api/invalid:"
)

// preCommitEnv is the environment for pre-commit: a private PRE_COMMIT_HOME (so the golang
// hook is really built, from this working tree), git without the user's configuration, and
// the module cache Go already uses. pre-commit points GOPATH at its hook environment, which
// would move the module cache there and download every module again; GOMODCACHE keeps it
// where it is.
func preCommitEnv(t *testing.T) []string {
	t.Helper()
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	return withEnv(gitEnv(t),
		"PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "pre-commit-home"),
		"GOMODCACHE="+strings.TrimSpace(string(modcache)),
		"PRE_COMMIT_COLOR=never",
		"SKIP=") // a SKIP in the caller's environment would skip our hook
}

// newWorkRepo makes a git repository holding the pre-commit fixtures under deploy/, staged.
func newWorkRepo(t *testing.T, env []string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "work")
	for _, name := range []string{"broken.yaml", "clean.yaml"} {
		data, err := os.ReadFile(filepath.Join(preCommitFixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "deploy", name), string(data))
	}
	mustRun(t, filepath.Dir(dir), env, "git", "init", "-q", "-b", "main", dir)
	mustRun(t, dir, env, "git", "add", "-A")
	return dir
}

// TestPreCommitHooks runs the repository's .pre-commit-hooks.yaml with the real pre-commit:
// try-repo on each hook, with a broken and a clean manifest, then an installed hook that
// blocks a real git commit. try-repo installs the hook afresh every time (into a throwaway
// store), so each golang try-repo pays for pre-commit's go install ./...
func TestPreCommitHooks(t *testing.T) {
	requirePackaging(t, "the real pre-commit (Debian package pre-commit) and git")
	preCommit, err := exec.LookPath("pre-commit")
	if err != nil {
		t.Fatalf("pre-commit is not on PATH (hack/install-test-tools.sh installs it): %v", err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not on PATH: %v", err)
	}
	env := preCommitEnv(t)
	t.Logf("%s", strings.TrimSpace(mustRun(t, ".", env, preCommit, "--version")))
	hookRepo, rev := snapshotRepo(t)
	work := newWorkRepo(t, env)

	// tryRepo runs `pre-commit try-repo` on one hook and one file.
	tryRepo := func(t *testing.T, env []string, hook, file string) cmdResult {
		t.Helper()
		return runCmd(t, preCommitInstallTimeout, work, env, preCommit, "try-repo", hookRepo, hook, "--ref", rev, "--files", file)
	}
	// expectBlocked and expectPassed check a hook run's verdict and output.
	expectBlocked := func(t *testing.T, r cmdResult, what string) {
		t.Helper()
		if r.code == 0 || !strings.Contains(r.out, brokenFinding) || !strings.Contains(r.out, "Failed") {
			t.Errorf("%s: exit %d, want non-zero, a Failed hook and the finding %q:\n%s", what, r.code, brokenFinding, r.out)
		}
	}
	expectPassed := func(t *testing.T, r cmdResult, what string) {
		t.Helper()
		if r.code != 0 || !strings.Contains(r.out, "Passed") || strings.Contains(r.out, "error ") {
			t.Errorf("%s: exit %d, want 0 and a Passed hook without findings:\n%s", what, r.code, r.out)
		}
	}

	t.Run("workload-lint builds the plugin and blocks a broken manifest", func(t *testing.T) {
		start := time.Now()
		r := tryRepo(t, env, "workload-lint", "deploy/broken.yaml")
		t.Logf("first run, including pre-commit's go install ./...: %s", time.Since(start).Round(time.Second))
		expectBlocked(t, r, "try-repo workload-lint --files deploy/broken.yaml")
	})
	t.Run("workload-lint passes a clean manifest", func(t *testing.T) {
		expectPassed(t, tryRepo(t, env, "workload-lint", "deploy/clean.yaml"), "try-repo workload-lint --files deploy/clean.yaml")
	})

	t.Run("workload-lint-system uses kubectl-workload on PATH", func(t *testing.T) {
		bin := pluginBinary(t)
		sysEnv := prependPath(env, filepath.Dir(bin))
		expectBlocked(t, tryRepo(t, sysEnv, "workload-lint-system", "deploy/broken.yaml"), "try-repo workload-lint-system --files deploy/broken.yaml")
		expectPassed(t, tryRepo(t, sysEnv, "workload-lint-system", "deploy/clean.yaml"), "try-repo workload-lint-system --files deploy/clean.yaml")

		// Without the binary on PATH, the system hook cannot pass: it uses nothing else.
		noBin := withEnv(env, "PATH="+pathWithout(envValue(env, "PATH"), "kubectl-workload"))
		if r := tryRepo(t, noBin, "workload-lint-system", "deploy/clean.yaml"); r.code == 0 {
			t.Errorf("try-repo workload-lint-system without kubectl-workload on PATH passed, want a failure:\n%s", r.out)
		}
	})

	t.Run("an installed hook blocks git commit of a broken manifest", func(t *testing.T) {
		config := fmt.Sprintf("repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: workload-lint\n", hookRepo, rev)
		writeFile(t, filepath.Join(work, ".pre-commit-config.yaml"), config)
		mustRun(t, work, env, "git", "add", ".pre-commit-config.yaml")
		if out := mustRun(t, work, env, preCommit, "install"); !strings.Contains(out, "pre-commit installed") {
			t.Fatalf("pre-commit install said %q", out)
		}

		r := runCmd(t, preCommitInstallTimeout, work, env, "git", "commit", "-m", "add manifests")
		expectBlocked(t, r, "git commit with deploy/broken.yaml staged")
		// try-repo installs into a throwaway store; an installed hook uses PRE_COMMIT_HOME.
		bins, _ := filepath.Glob(filepath.Join(envValue(env, "PRE_COMMIT_HOME"), "repo*", "golangenv-*", "bin", "kubectl-workload"))
		if len(bins) != 1 {
			t.Errorf("pre-commit's golang environment holds %v, want the kubectl-workload its go install ./... built", bins)
		}
		if head := runCmd(t, time.Minute, work, env, "git", "rev-parse", "--verify", "-q", "HEAD"); head.code == 0 {
			t.Errorf("a commit was made although the hook failed: HEAD is %s", head.out)
		}

		mustRun(t, work, env, "git", "rm", "-q", "--cached", "deploy/broken.yaml")
		r = runCmd(t, preCommitInstallTimeout, work, env, "git", "commit", "-m", "add the clean manifest")
		expectPassed(t, r, "git commit with only deploy/clean.yaml staged")
		files := mustRun(t, work, env, "git", "show", "--name-only", "--format=", "HEAD")
		if !strings.Contains(files, "deploy/clean.yaml") || strings.Contains(files, "deploy/broken.yaml") {
			t.Errorf("HEAD holds %q, want deploy/clean.yaml and not deploy/broken.yaml", files)
		}
	})
}

// envValue returns the value of key in env.
func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// pathWithout drops from a PATH value every directory that holds an executable named name.
func pathWithout(path, name string) string {
	var kept []string
	for _, dir := range filepath.SplitList(path) {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && !info.IsDir() {
			continue
		}
		kept = append(kept, dir)
	}
	return strings.Join(kept, string(os.PathListSeparator))
}
