package userpolicy_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/lint/userpolicy"
)

func policyFindings(t *testing.T, cfg lint.Config) []string {
	t.Helper()
	l, err := lint.New(cfg)
	if err != nil {
		t.Fatalf("lint.New(%+v): %v", cfg, err)
	}
	res := l.Run(context.Background(), lint.Options{Paths: []string{"../../rules/testdata/policies/input.yaml"}})
	var got []string
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Rule, "policy/") {
			got = append(got, strings.Join([]string{f.Rule, f.Severity.String(), f.Object.Name, f.Field, strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Column), f.Message}, " | "))
		}
	}
	return got
}

func TestConftestPolicyDirectory(t *testing.T) {
	got := policyFindings(t, lint.Config{Policies: []string{"testdata/policies/conftest"}})
	want := []string{
		"policy/main/deny | error | web |  | 1:1 | Deployment web must set runAsNonRoot",
		"policy/main/violation | error | web |  | 1:1 | images must come from ghcr.io",
		"policy/main/warn | warning | web | metadata.labels | 5:3 | team label missing",
		"policy/main/deny_privileged | error | web | spec.template.spec.containers[0].securityContext.privileged | 18:11 | container web is privileged",
		// The Pod has no labels: the finding falls back to metadata.
		"policy/main/warn | warning | debug | metadata.labels | 24:1 | team label missing",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("policy findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRegoV0PolicyInAnotherNamespace(t *testing.T) {
	got := policyFindings(t, lint.Config{Policies: []string{"testdata/policies/v0"}, PolicyNamespaces: []string{"kubernetes.admission"}})
	want := []string{"policy/kubernetes.admission/deny | error | debug |  | 22:1 | pods need an owner label"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("policy findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := policyFindings(t, lint.Config{Policies: []string{"testdata/policies/v0"}}); len(got) != 0 {
		t.Errorf("with the default namespace main, findings = %v, want none", got)
	}
}

func TestPolicyErrors(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		want   []string
	}{
		{name: "network built-in refused", policy: "testdata/policies/network",
			want: []string{"testdata/policies/network/fetch.rego:6:", "http.send is not allowed: policies run without network or environment access"}},
		{name: "syntax error names file and row", policy: "testdata/policies/broken",
			want: []string{"testdata/policies/broken/syntax.rego:4:"}},
		{name: "missing policy path", policy: "testdata/policies/nope",
			want: []string{"policy testdata/policies/nope:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := userpolicy.New(userpolicy.Options{Policies: []string{tt.policy}})
			if err == nil {
				t.Fatalf("userpolicy.New(%s) succeeded, want an error", tt.policy)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}
