package lint_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// TestConftestPolicyAtField: a conftest policy given with --policy reports
// at the field its result names (a path string or a list of segments), and
// a result without a path at the object.
func TestConftestPolicyAtField(t *testing.T) {
	const manifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      securityContext: {runAsNonRoot: true}
      containers:
      - name: app
        image: ghcr.io/example/web:1.0
        securityContext:
          privileged: true
`
	path := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := lint.New(lint.Config{Policies: []string{"userpolicy/testdata/policies/conftest"}})
	if err != nil {
		t.Fatal(err)
	}
	res := l.Run(context.Background(), lint.Options{Paths: []string{path}})
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	type at struct {
		line, column int
		severity     lint.Severity
	}
	want := map[string]at{
		"policy/main/deny_privileged": {18, 11, lint.SeverityError}, // securityContext.privileged
		"policy/main/warn":            {5, 3, lint.SeverityWarning}, // metadata.labels
	}
	got := map[string]at{}
	for _, f := range res.Findings {
		if _, ok := want[f.Rule]; ok {
			got[f.Rule] = at{f.Line, f.Column, f.Severity}
		}
	}
	for rule, w := range want {
		if g, ok := got[rule]; !ok || g != w {
			t.Errorf("%s at %+v (found: %v), want %+v", rule, g, ok, w)
		}
	}
}
