package lint_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// TestObjectSize: an object over the API server's 3 MiB request limit is an
// error in the server's words, one over etcd's default 1.5 MiB a warning
// naming that limit, and a small one neither.
func TestObjectSize(t *testing.T) {
	dir := t.TempDir()
	cm := func(name string, size int) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: default\ndata:\n  blob: " + strings.Repeat("a", size) + "\n"
	}
	for name, size := range map[string]int{"huge": 3_500_000, "big": 2_000_000, "small": 10} {
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(cm(name, size)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	res := l.Run(context.Background(), lint.Options{Paths: []string{dir}})
	got := map[string]lint.Finding{}
	for _, f := range res.Findings {
		if f.Rule == lint.RuleObjectSize {
			got[filepath.Base(f.File)] = f
		}
	}
	want := map[string]struct {
		sev lint.Severity
		msg string
	}{
		"huge.yaml": {lint.SeverityError, `ConfigMap huge is 3500106 bytes as JSON: the API server refuses it with 413 "Request entity too large: limit is 3145728"`},
		"big.yaml":  {lint.SeverityWarning, "ConfigMap big is 2000105 bytes as JSON, over etcd's default request limit of 1572864 bytes (1.5 MiB, --max-request-bytes)"},
	}
	for file, w := range want {
		f, ok := got[file]
		if !ok || f.Severity != w.sev || !strings.Contains(f.Message, w.msg) || f.Line != 1 {
			t.Errorf("%s: %s finding = %+v, want %s at line 1 containing %q", file, lint.RuleObjectSize, f, w.sev, w.msg)
		}
	}
	if f, ok := got["small.yaml"]; ok {
		t.Errorf("small.yaml: %s finding = %+v, want none", lint.RuleObjectSize, f)
	}
}
