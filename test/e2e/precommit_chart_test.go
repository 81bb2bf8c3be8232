package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chartFinding is what lint says about the chart below: replicas given as a
// word by values.yaml ("two"), reported by the API server's decoder at the
// template line that writes replicas.
const chartFinding = "chart/templates/deployment.yaml:8:3: error api/decode:"

// copyTree copies the files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dst, rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPreCommitChart: with the files: pattern the README documents, the
// hook lints a chart, rendered, when any file under it changes (here
// templates/_helpers.tpl, which is not YAML), and blocks the commit of a
// chart whose values make the API server refuse a Deployment.
func TestPreCommitChart(t *testing.T) {
	requirePackaging(t, "the real pre-commit (Debian package pre-commit) and git")
	env := preCommitEnv(t)
	hookRepo, rev := snapshotRepo(t)
	bin := pluginBinary(t)
	env = prependPath(env, filepath.Dir(bin))

	dir := filepath.Join(t.TempDir(), "work")
	copyTree(t, filepath.Join("..", "..", "internal", "render", "testdata", "web"), filepath.Join(dir, "chart"))
	values, err := os.ReadFile(filepath.Join(dir, "chart", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "chart", "values.yaml"), strings.Replace(string(values), "replicas: 2", "replicas: two", 1))
	config := fmt.Sprintf(`repos:
  - repo: %s
    rev: %s
    hooks:
      - id: workload-lint-system
        types_or: [file]
        files: '\.(ya?ml|json|tpl)$|(^|/)\.helmignore$'
`, hookRepo, rev)
	writeFile(t, filepath.Join(dir, ".pre-commit-config.yaml"), config)
	mustRun(t, filepath.Dir(dir), env, "git", "init", "-q", "-b", "main", dir)
	mustRun(t, dir, env, "git", "add", "-A")

	r := runCmd(t, preCommitInstallTimeout, dir, env, "pre-commit", "run", "--files", "chart/templates/_helpers.tpl")
	if r.code == 0 || !strings.Contains(r.out, chartFinding) || !strings.Contains(r.out, "Failed") {
		t.Errorf("pre-commit run --files chart/templates/_helpers.tpl: exit %d, want a Failed hook and %q:\n%s", r.code, chartFinding, r.out)
	}
	// The chart's templates are not linted as plain files.
	if strings.Contains(r.out, "input/unparsable") {
		t.Errorf("a template was linted as a plain file:\n%s", r.out)
	}

	writeFile(t, filepath.Join(dir, "chart", "values.yaml"), string(values))
	mustRun(t, dir, env, "git", "add", "-A")
	r = runCmd(t, time.Minute*5, dir, env, "pre-commit", "run", "--files", "chart/templates/_helpers.tpl")
	if r.code != 0 || !strings.Contains(r.out, "Passed") {
		t.Errorf("pre-commit run with the chart's values fixed: exit %d, want 0 and Passed:\n%s", r.code, r.out)
	}
}
