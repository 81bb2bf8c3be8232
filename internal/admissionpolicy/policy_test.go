package admissionpolicy

import (
	"fmt"
	"testing"
)

// TestParamKindsAndNamespaces: what lint --against-live must list for the bindings'
// paramRefs: each policy's paramKind, and the namespaces the paramRefs name, sorted, once.
func TestParamKindsAndNamespaces(t *testing.T) {
	s := NewSet()
	docs := []struct{ kind, json string }{
		{"ValidatingAdmissionPolicy", `{"metadata":{"name":"limits"},"spec":{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"}}}`},
		{"ValidatingAdmissionPolicy", `{"metadata":{"name":"plain"},"spec":{}}`},
		{"ValidatingAdmissionPolicyBinding", `{"metadata":{"name":"b1"},"spec":{"policyName":"limits","paramRef":{"name":"x","namespace":"platform"}}}`},
		{"ValidatingAdmissionPolicyBinding", `{"metadata":{"name":"b2"},"spec":{"policyName":"limits","paramRef":{"selector":{},"namespace":"config"}}}`},
		{"ValidatingAdmissionPolicyBinding", `{"metadata":{"name":"b3"},"spec":{"policyName":"limits","paramRef":{"name":"y"}}}`},
		{"ValidatingAdmissionPolicyBinding", `{"metadata":{"name":"b4"},"spec":{"policyName":"limits","paramRef":{"name":"z","namespace":"platform"}}}`},
	}
	for _, d := range docs {
		if err := s.AddPolicy([]byte(d.json), d.kind, "test"); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := fmt.Sprint(s.ParamKinds()), "[/v1, Kind=ConfigMap]"; got != want {
		t.Errorf("ParamKinds() = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(s.ParamNamespaces()), "[config platform]"; got != want {
		t.Errorf("ParamNamespaces() = %s, want %s", got, want)
	}
}
