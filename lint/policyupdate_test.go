package lint

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-workload/kubectl-workload/internal/admissionpolicy"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// TestPoliciesOnUpdate: an object the baseline holds a stored version of is admitted as
// an UPDATE, with the stored object as oldObject and what kubectl apply would make of the
// two as object; other objects as a CREATE. The baseline's params (the cluster's) are
// what a paramRef selects from when the input has none of that name.
func TestPoliciesOnUpdate(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	const dir = "testdata/policyupdate/"
	stored := func(replicas int) func(*manifest.Object, ObjectRef) []byte {
		return func(obj *manifest.Object, ref ObjectRef) []byte {
			if ref.Kind != "Deployment" || ref.Namespace != "shop" || ref.Name != "web" {
				return nil
			}
			return []byte(fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","uid":"1","resourceVersion":"7","creationTimestamp":"2026-01-01T00:00:00Z","generation":1},
"spec":{"replicas":%d,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}`, replicas))
		}
	}
	limits := func(max string) []admissionpolicy.Param {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "limits", "namespace": "shop"}, "data": map[string]any{"maxReplicas": max}}}
		return []admissionpolicy.Param{{Object: u, Resource: "configmaps", Namespaced: true}}
	}
	tests := []struct {
		name     string
		baseline *Baseline
		want     []string
	}{
		// parameterNotFoundAction Deny refuses, whatever the binding's validationActions
		// (the dispatcher's own behaviour).
		{name: "created: no oldObject, no params",
			want: []string{`admission/policy-deny: deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'replicas-limit' with binding 'replicas-limit' denied request: failed to configure binding: no params found for policy binding with ` + "`Deny`" + ` parameterNotFoundAction`}},
		{name: "updated from 5 replicas, the cluster's limit 3",
			baseline: &Baseline{Previous: stored(5), Params: limits("3")},
			want: []string{
				`admission/policy-deny: deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'no-scale-down' with binding 'no-scale-down' denied request: replicas may not go down from 5 to 4`,
				`admission/policy-warn: Validation failed for ValidatingAdmissionPolicy 'replicas-limit' with binding 'replicas-limit': at most 3 replicas`,
			}},
		{name: "updated from 2 replicas, the cluster's limit 10",
			baseline: &Baseline{Previous: stored(2), Params: limits("10")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := l.Run(context.Background(), Options{Paths: []string{dir + "policies.yaml", dir + "web.yaml"}, Baseline: tt.baseline})
			if len(res.Errors) > 0 {
				t.Fatalf("Run() errors = %v", res.Errors)
			}
			var got []string
			for _, f := range res.Findings {
				if strings.HasPrefix(f.Rule, "admission/") {
					got = append(got, f.Rule+": "+f.Message)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Run() admission findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestPoliciesOnLiveObjects: with lint --live, the cluster's policies judge each of its
// objects as the no-op UPDATE its next write would be: an UPDATE policy reads the object
// as oldObject too, and a CREATE-only policy does not apply.
func TestPoliciesOnLiveObjects(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	policies := manifest.Load([]string{"testdata/policyupdate/policies.yaml", "testdata/policyupdate/create-only.yaml"}, nil)
	if len(policies.Problems) > 0 || len(policies.Objects) != 6 {
		t.Fatalf("policies: %d objects, problems %v", len(policies.Objects), policies.Problems)
	}
	web := manifest.Parse("cluster://test/shop/Deployment/web", []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, uid: "1", resourceVersion: "7", generation: 1, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  replicas: 8
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.27"}]
`)).Objects
	limits := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "limits", "namespace": "shop"}, "data": map[string]any{"maxReplicas": "6"}}}
	res := l.Run(context.Background(), Options{Baseline: &Baseline{Objects: web, Policies: policies.Objects,
		Params: []admissionpolicy.Param{{Object: limits, Resource: "configmaps", Namespaced: true}}}})
	if len(res.Errors) > 0 {
		t.Fatalf("Run() errors = %v", res.Errors)
	}
	var got []string
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Rule, "admission/") {
			got = append(got, fmt.Sprintf("%s %s: %s", f.File, f.Rule, f.Message))
		}
	}
	want := []string{"cluster://test/shop/Deployment/web admission/policy-warn: Validation failed for ValidatingAdmissionPolicy 'replicas-limit' with binding 'replicas-limit': at most 6 replicas"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Run() admission findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
