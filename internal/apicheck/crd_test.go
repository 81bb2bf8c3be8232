package apicheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// widgetCRD is a small CRD with the checks people trip on: a required field, an enum,
// a pattern, a default, a CEL rule with a message and a transition rule (oldSelf).
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            x-kubernetes-validations:
            - rule: "self.min <= self.max"
              message: "min must not exceed max"
            - rule: "self.size == oldSelf.size"
              message: "size is immutable"
            properties:
              size: {type: string, enum: [small, large]}
              color: {type: string, pattern: "^[a-z]+$"}
              min: {type: integer, default: 1}
              max: {type: integer, default: 10}
  - name: v0
    served: false
    storage: false
    schema:
      openAPIV3Schema: {type: object}
`

func widget(t *testing.T, spec string) Object {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: " + spec))
	if err != nil {
		t.Fatal(err)
	}
	return Object{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", JSON: js}
}

func widgetCRDs(t *testing.T) *CRDs {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	crds := NewCRDs()
	if err := crds.Add(js, "widget.yaml"); err != nil {
		t.Fatal(err)
	}
	return crds
}

// blocked is the server's error when schema errors keep the CEL rules from running.
const blocked = "api/invalid: <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

func TestCheckCustom(t *testing.T) {
	crds := widgetCRDs(t)
	tests := []struct {
		name, spec string
		want       []string // rule: message, in order
	}{
		{name: "valid, defaults satisfy the rule", spec: "{size: small, color: red}"},
		{name: "required", spec: "{color: red}", want: []string{"api/required: spec.size: Required value", blocked}},
		{name: "enum", spec: "{size: huge}", want: []string{`api/not-supported: spec.size: Unsupported value: "huge": supported values: "small", "large"`, blocked}},
		{name: "pattern", spec: "{size: small, color: Red}",
			want: []string{`api/invalid: spec.color: Invalid value: "Red": spec.color in body should match '^[a-z]+$'`}},
		{name: "CEL rule after defaulting", spec: "{size: small, min: 20}",
			want: []string{"api/invalid: spec: Invalid value: min must not exceed max"}},
		{name: "unknown field", spec: "{size: small, colour: red}",
			want: []string{`api/unknown-field: Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.colour"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := crds.CheckCustom(context.Background(), widget(t, tt.spec), Options{})
			if !res.Checked {
				t.Fatalf("CheckCustom(%s).Checked = false, want true", tt.spec)
			}
			var got []string
			for _, is := range res.Issues {
				got = append(got, is.Rule+": "+is.Message)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("CheckCustom(%s) = %q, want %q", tt.spec, got, tt.want)
			}
		})
	}
}

func TestCheckCustomUpdateRunsTransitionRules(t *testing.T) {
	crds := widgetCRDs(t)
	old := widget(t, "{size: small}")
	res := crds.CheckCustomUpdate(context.Background(), old, widget(t, "{size: large}"), Options{})
	if len(res.Issues) != 1 || !strings.Contains(res.Issues[0].Message, "size is immutable") {
		t.Errorf("CheckCustomUpdate(small to large) = %+v, want the transition rule's message", res.Issues)
	}
	if res := crds.CheckCustom(context.Background(), widget(t, "{size: large}"), Options{}); len(res.Issues) != 0 {
		t.Errorf("CheckCustom(large) = %+v, want no issue: a transition rule does not run on create", res.Issues)
	}
}

func TestCheckCustomUnservedVersion(t *testing.T) {
	o := widget(t, "{size: small}")
	o.APIVersion = "example.com/v0"
	res := widgetCRDs(t).CheckCustom(context.Background(), o, Options{})
	if len(res.Issues) != 1 || res.Issues[0].Rule != RuleUnknownVersion {
		t.Errorf("CheckCustom(v0) = %+v, want one %s", res.Issues, RuleUnknownVersion)
	}
}

// TestRealCRDsLoad: every CRD under testdata/crds (Gateway API, cert-manager) builds.
func TestRealCRDsLoad(t *testing.T) {
	files, _ := filepath.Glob("testdata/crds/*.yaml")
	if len(files) < 4 {
		t.Fatalf("found %d CRDs under testdata/crds, want at least 4", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := NewCRDs().Add(js, f); err != nil {
			t.Errorf("Add(%s) = %v", f, err)
		}
	}
}

func TestCustomResource(t *testing.T) {
	tests := []struct {
		apiVersion, kind string
		want             bool
	}{
		{"apps/v1", "Deployment", false},
		{"v1", "ConfigMap", false},
		{"rbac.authorization.k8s.io/v1", "Role", false},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", false},
		{"cert-manager.io/v1", "Certificate", true},
		{"gateway.networking.k8s.io/v1", "HTTPRoute", true},
	}
	for _, tt := range tests {
		if got := CustomResource(tt.apiVersion, tt.kind); got != tt.want {
			t.Errorf("CustomResource(%q, %q) = %v, want %v", tt.apiVersion, tt.kind, got, tt.want)
		}
	}
}
