package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

func TestLiveFlagCombinations(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "live with files", args: []string{"lint", "--live", "-f", "x.yaml"}, want: "--live reads the cluster, not files"},
		{name: "live and against-live", args: []string{"lint", "--live", "--against-live"}, want: "contradict"},
		{name: "against-live and base-ref", args: []string{"lint", "--against-live", "--base-ref", "HEAD", "x.yaml"}, want: "give one"},
		{name: "all namespaces without live", args: []string{"lint", "-A", "x.yaml"}, want: "applies to --live only"},
		{name: "against-live without files", args: []string{"lint", "--against-live"}, want: "no input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", tt.args...)
			if code != ExitError || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v = exit %d, stdout %q, stderr %q; want exit 2, no stdout, one line containing %q", tt.args, code, out, errOut, tt.want)
			}
		})
	}
}

const baseDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
`

func TestLintBaseRef(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) { testkit.Git(t, dir, args...) }
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	git("init", "-q")
	web := write("web.yaml", baseDeployment)
	write("image.yaml", strings.Replace(baseDeployment, "name: web\n", "name: other\n", 1))
	git("add", ".")
	git("commit", "-q", "-m", "base")
	// The selector changes (immutable), another file changes only its
	// image (fine), a new file has no base version.
	write("web.yaml", strings.ReplaceAll(baseDeployment, "app: web", "app: web2"))
	image := write("image.yaml", strings.Replace(strings.Replace(baseDeployment, "name: web\n", "name: other\n", 1), "nginx:1.27", "nginx:1.28", 1))
	added := write("new.yaml", strings.Replace(baseDeployment, "name: web\n", "name: fresh\n", 1))

	out, errOut, code := run(t, "", "lint", "--no-config", "--base-ref", "HEAD", web, image, added)
	if code != ExitFindings {
		t.Errorf("exit = %d, want 1 (stderr %q)", code, errOut)
	}
	var api []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, " api/") {
			api = append(api, l)
		}
	}
	want := web + `:6:3: error api/invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web2"}}: field is immutable (Deployment default/web)`
	if len(api) != 1 || api[0] != want {
		t.Errorf("api findings =\n%s\nwant\n%s", strings.Join(api, "\n"), want)
	}

	out, errOut, code = run(t, "", "lint", "--no-config", "--base-ref", "no-such-ref", web)
	if code != ExitError || out != "" || !strings.Contains(errOut, "unknown revision") {
		t.Errorf("unknown ref: exit %d, stdout %q, stderr %q; want exit 2 and an unknown revision error only", code, out, errOut)
	}
}
