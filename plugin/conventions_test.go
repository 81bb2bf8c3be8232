package plugin

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/loglevel"
)

// TestLogLevelIsKubectls: -v=N is kubectl's log level, accepted by every
// command; what is not a level is refused with a pointer at --verbose.
func TestLogLevelIsKubectls(t *testing.T) {
	t.Cleanup(func() {
		if err := loglevel.Level(0).Apply(io.Discard); err != nil {
			t.Error(err)
		}
	})
	for _, args := range [][]string{
		{"lint", "-v=6", "../examples/good/web.yaml"},
		{"lint", "--v", "2", "../examples/good/web.yaml"},
		{"-v=6", "version"},
		{"predict", "-v=6", "-f", "../examples/good/web.yaml", "--from", "../examples/predict/web-v1.yaml"},
	} {
		if _, errOut, code := run(t, "", args...); code != ExitClean {
			t.Errorf("%v = exit %d, stderr %q; want exit 0", args, code, errOut)
		}
	}
	_, errOut, code := run(t, "", "lint", "-v", "testdata/not-kubernetes.yaml")
	if code != ExitError || !strings.Contains(errOut, "use --verbose") {
		t.Errorf("lint -v FILE = exit %d, stderr %q; want exit 2 pointing at --verbose", code, errOut)
	}
}

// TestTypeNameWithoutFileNamesLive: kubectl's TYPE/NAME given to offline
// lint, with no such file, says that --live reads the cluster.
func TestTypeNameWithoutFileNamesLive(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"lint", "deployment/web"}, "deployment/web: no such file or directory; to lint deployment/web in the cluster, add --live: kubectl workload lint --live deployment/web"},
		{[]string{"lint", "sts.apps/db"}, "add --live: kubectl workload lint --live sts.apps/db"},
		{[]string{"lint", "deploy", "web", "api"}, "add --live: kubectl workload lint --live deploy web api"},
	}
	for _, tt := range tests {
		_, errOut, code := run(t, "", tt.args...)
		if code != ExitError || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v = exit %d, stderr %q; want exit 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
	// A file of that name is a file.
	if err := os.Mkdir("deployment", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("deployment/web", []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, "", "lint", "deployment/web"); strings.Contains(errOut, "--live") {
		t.Errorf("lint deployment/web with such a file = exit %d, stderr %q; want no --live hint", code, errOut)
	}
	// Any other missing path gets no hint.
	if _, errOut, _ := run(t, "", "lint", "k8s/web.yaml"); strings.Contains(errOut, "--live") {
		t.Errorf("lint k8s/web.yaml = stderr %q; want no --live hint", errOut)
	}
}

// TestRuleIDTyposSuggest: a rule id one letter off gets "did you mean"
// wherever a rule id is taken: --explain, the configuration file and the
// ignore annotation.
func TestRuleIDTyposSuggest(t *testing.T) {
	_, errOut, code := run(t, "", "lint", "--explain", "rollout/downtme")
	if code != ExitError || !strings.Contains(errOut, "did you mean rollout/downtime?") {
		t.Errorf("--explain rollout/downtme = exit %d, stderr %q; want a did-you-mean", code, errOut)
	}
	_, errOut, _ = run(t, "", "lint", "--explain", "api/invalud")
	if !strings.Contains(errOut, "did you mean api/invalid?") {
		t.Errorf("--explain api/invalud: stderr %q; want a did-you-mean", errOut)
	}
	dir := t.TempDir()
	cfg := dir + "/c.yaml"
	if err := os.WriteFile(cfg, []byte("rules:\n  disable: [kind/bare-pd]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, _ = run(t, "", "lint", "--config", cfg, "../examples/good/web.yaml")
	if !strings.Contains(errOut, "did you mean kind/bare-pod?") {
		t.Errorf("config naming kind/bare-pd: stderr %q; want a did-you-mean", errOut)
	}
	obj := `apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    kubectl-workload/ignore: kind/bare-pd
    kubectl-workload/ignore-reason: test
spec:
  containers: [{name: c, image: nginx:1}]
`
	out, _, _ := run(t, obj, "lint", "-")
	if !strings.Contains(out, "did you mean kind/bare-pod?") {
		t.Errorf("ignore annotation naming kind/bare-pd:\n%s\nwant a did-you-mean", out)
	}
}

// TestOutputRefusedWhereItDoesNotApply: -o that a mode cannot write is an
// error, not silently text.
func TestOutputRefusedWhereItDoesNotApply(t *testing.T) {
	for _, args := range [][]string{
		{"lint", "--list-rules", "-o", "sarif"},
		{"lint", "--list-rules", "-o", "junit"},
		{"lint", "--explain", "rollout/downtime", "-o", "json"},
	} {
		out, errOut, code := run(t, "", args...)
		if code != ExitError || out != "" || !strings.Contains(errOut, "does not apply") {
			t.Errorf("%v = exit %d, stdout %q, stderr %q; want exit 2, nothing printed", args, code, out, errOut)
		}
	}
}

// TestAPIRuleTitlesDistinct: --list-rules gives each api/* rule its own title.
func TestAPIRuleTitlesDistinct(t *testing.T) {
	out, _, _ := run(t, "", "lint", "--list-rules")
	seen := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "api/") {
			continue
		}
		title := strings.Join(f[3:], " ")
		if other, ok := seen[title]; ok {
			t.Errorf("%s and %s share the title %q", other, f[0], title)
		}
		seen[title] = f[0]
	}
	if len(seen) < 10 {
		t.Errorf("--list-rules lists %d api/* rules, want them all", len(seen))
	}
}

// TestWhatIfNeedsABaseline: --image (or another what-if) on -f without --from, --state,
// --base-ref or --live is refused, not predicted as a creation; with a baseline it runs.
func TestWhatIfNeedsABaseline(t *testing.T) {
	_, errOut, code := run(t, "", "predict", "-f", "../examples/predict/checkout-v2.yaml", "--image", "checkout=nginx:2")
	if code != ExitError || !strings.Contains(errOut, "there is no baseline") || !strings.Contains(errOut, "--from OLD") {
		t.Errorf("predict -f FILE --image without a baseline = exit %d, stderr %q; want exit 2 naming the baselines", code, errOut)
	}
	out, errOut, code := run(t, "", "predict", "-f", "../examples/predict/checkout-v2.yaml", "--from", "../examples/predict/checkout-v1.yaml", "--image", "checkout=nginx:2")
	if code == ExitError || !strings.Contains(out, "checkout-v1.yaml (assumed fully rolled out and available)") {
		t.Errorf("predict with --from and --image = exit %d, stderr %q:\n%s", code, errOut, out)
	}
	if out, _, code := run(t, "", "predict", "-f", "../examples/predict/checkout-v2.yaml"); code == ExitError || !strings.Contains(out, "none: the Deployment is created") {
		t.Errorf("predict -f FILE without a change = exit %d:\n%s\nwant the creation", code, out)
	}
}
