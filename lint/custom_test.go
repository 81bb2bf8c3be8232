package lint

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestCustomResources: a CRD in one file checks the custom resources of another; a kind
// whose CRD is nowhere gets one info, on its first object; a policy of --policies-from
// refuses a custom resource after its CRD's defaults are applied.
func TestCustomResources(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{name: "CRD in the input",
			opts: Options{Paths: []string{"testdata/custom/crd.yaml", "testdata/custom/widgets.yaml"}},
			want: []string{
				`testdata/custom/widgets.yaml:14:3 api/invalid spec.color: Invalid value: "Red": spec.color in body should match '^[a-z]+$'`,
				"testdata/custom/widgets.yaml:16:1 api/crd-missing",
			}},
		{name: "CRD from --crds",
			opts: Options{Paths: []string{"testdata/custom/widgets.yaml"}, CRDPaths: []string{"testdata/custom/crd.yaml"}},
			want: []string{
				`testdata/custom/widgets.yaml:14:3 api/invalid spec.color: Invalid value: "Red": spec.color in body should match '^[a-z]+$'`,
				"testdata/custom/widgets.yaml:16:1 api/crd-missing",
			}},
		{name: "no CRD: one info per kind",
			opts: Options{Paths: []string{"testdata/custom/widgets.yaml"}},
			want: []string{"testdata/custom/widgets.yaml:1:1 api/crd-missing", "testdata/custom/widgets.yaml:16:1 api/crd-missing"}},
		{name: "policy from --policies-from",
			opts: Options{Paths: []string{"testdata/custom/crd.yaml", "testdata/custom/big.yaml", "testdata/custom/widgets.yaml"},
				PolicyPaths: []string{"testdata/custom/policy.yaml"}},
			want: []string{
				`testdata/custom/big.yaml:1:1 admission/policy-deny widgets.example.com "big" is forbidden: ValidatingAdmissionPolicy 'small-only' with binding 'small-only' denied request: only small widgets`,
				`testdata/custom/widgets.yaml:14:3 api/invalid spec.color: Invalid value: "Red": spec.color in body should match '^[a-z]+$'`,
				"testdata/custom/widgets.yaml:16:1 api/crd-missing",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := l.Run(context.Background(), tt.opts)
			if len(res.Errors) > 0 {
				t.Fatalf("Run() errors = %v", res.Errors)
			}
			var got []string
			for _, f := range res.Findings {
				if !strings.HasPrefix(f.Rule, "api/") && !strings.HasPrefix(f.Rule, "admission/") {
					continue
				}
				s := fmt.Sprintf("%s:%d:%d %s", f.File, f.Line, f.Column, f.Rule)
				if f.Rule != "api/crd-missing" {
					s += " " + f.Message
				} else if f.Severity != SeverityInfo || !strings.Contains(f.Message, "--crds") {
					t.Errorf("%s: %s %s, want an info naming --crds", s, f.Severity, f.Message)
				}
				got = append(got, s)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Run() findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
