package live

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/yaml"
)

func TestSkewWarning(t *testing.T) {
	tests := []struct {
		name string
		info *version.Info
		want string // a substring; "" means no warning
	}{
		{name: "same minor", info: &version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.1"}},
		{name: "same minor, managed", info: &version.Info{Major: "1", Minor: "37+", GitVersion: "v1.37.3-eks-1"}},
		{name: "older", info: &version.Info{Major: "1", Minor: "36", GitVersion: "v1.36.2"}, want: "runs Kubernetes v1.36.2"},
		{name: "newer, minor only in gitVersion", info: &version.Info{GitVersion: "v1.38.0"}, want: "validation rules and defaulting"},
		{name: "unreadable", info: &version.Info{GitVersion: "v0.0.0-master+$Format:%H$"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SkewWarning(tt.info)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("SkewWarning(%+v) = %q, want %q", tt.info, got, tt.want)
			}
			if strings.Contains(got, "\n") {
				t.Errorf("SkewWarning() = %q, want one line", got)
			}
		})
	}
}

func TestManifestPositionsAreKubectlGetYAMLs(t *testing.T) {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  managedFields:
  - manager: kubectl
    operation: Update
spec:
  replicas: 2
`), &u.Object); err != nil {
		t.Fatal(err)
	}
	m, err := Manifest("prod/eu", u)
	if err != nil {
		t.Fatal(err)
	}
	if want := "cluster://prod%2Feu/shop/Deployment/web"; m.File != want {
		t.Errorf("File = %q, want %q", m.File, want)
	}
	if strings.Contains(string(m.JSON), "managedFields") {
		t.Errorf("JSON keeps managedFields: %s", m.JSON)
	}
	// kubectl get -o yaml sorts keys: apiVersion, kind, metadata (name,
	// namespace), spec.
	if pos, exact := m.Position("spec.replicas"); !exact || pos.Line != 7 || pos.Column != 3 {
		t.Errorf("Position(spec.replicas) = %v, %v, want 7:3, exact", pos, exact)
	}
	if u.Object["metadata"].(map[string]any)["managedFields"] == nil {
		t.Errorf("Manifest changed its argument")
	}
}

func TestExplainIsOneLineWithoutSecrets(t *testing.T) {
	c := &Client{Context: "prod", Server: "https://k8s.example", secrets: []string{"s3cret-token"}}
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	tests := []struct {
		name       string
		err        error
		wantReason Reason
		want       string
	}{
		{name: "unauthorized", err: apierrors.NewUnauthorized("Unauthorized"), wantReason: Unauthorized, want: `context "prod": the API server at https://k8s.example rejected the credentials (401 Unauthorized)`},
		{name: "forbidden", err: apierrors.NewForbidden(gr, "", errors.New("no")), wantReason: Forbidden, want: `context "prod": deployments.apps is forbidden`},
		{name: "not found", err: apierrors.NewNotFound(gr, "web"), wantReason: NotFound, want: `context "prod": deployments.apps "web" not found`},
		{name: "unreachable", err: errors.New(`Get "https://k8s.example/version": dial tcp 10.0.0.1:443: connect: connection refused`), wantReason: Unreachable,
			want: `context "prod": cannot reach the API server at https://k8s.example: dial tcp 10.0.0.1:443: connect: connection refused`},
		{name: "secret in a message", err: errors.New("bad header Bearer s3cret-token\nsecond line"), wantReason: Other, want: "[redacted] second line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Explain(tt.err, "list deployments.apps")
			var le *Error
			if !errors.As(err, &le) || le.Reason != tt.wantReason {
				t.Fatalf("Explain() = %v, want an *Error with reason %s", err, tt.wantReason)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") || strings.Contains(msg, "s3cret") {
				t.Errorf("Explain() = %q, want one line containing %q and no secret", msg, tt.want)
			}
			if IsNotFound(err) != (tt.wantReason == NotFound) {
				t.Errorf("IsNotFound(%v) = %v", err, IsNotFound(err))
			}
		})
	}
}
