package rules

import (
	"bytes"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestValueFromJSON checks that the direct reader gives the values
// ast.ValueFromReader gives, and that cutting the pod specs out of the bytes
// gives the value without them.
func TestValueFromJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		// trimmed is the value with the pod specs removed; "" when the
		// same as in.
		trimmed string
	}{
		{name: "scalars", in: `{"a": 1, "b": -2.50, "c": 1e3, "d": 1E-2, "e": true, "f": false, "g": null, "h": "x"}`},
		{name: "empty containers", in: `{"a": {}, "b": [], "c": [[]], "d": [{}]}`},
		{name: "escapes", in: `{"a\"b": "c\\d\/e\u00e9\ud83d\ude00\n\t", "k": "\u0000"}`},
		{name: "unicode", in: `{"名前": "値", "emoji": "😀"}`},
		{name: "invalid utf-8", in: "{\"a\": \"\xff\xfe\"}"},
		{name: "duplicate key keeps the last", in: `{"a": 1, "a": 2}`},
		{name: "whitespace", in: " \n{ \"a\" :\t[ 1 , 2 ] ,\r\n \"b\" : { } } \n"},
		{name: "not an object", in: `[1, "a", {"spec": {"template": {"spec": 1}}}]`},
		{name: "deployment", in: `{"kind": "Deployment", "spec": {"replicas": 3, "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "a"}]}}, "selector": {}}}`,
			trimmed: `{"kind": "Deployment", "spec": {"replicas": 3, "template": {"metadata": {"labels": {"app": "a"}}}, "selector": {}}}`},
		{name: "pod spec first", in: `{"spec": {"template": {"spec": {"x": 1}, "metadata": {}}}}`,
			trimmed: `{"spec": {"template": {"metadata": {}}}}`},
		{name: "pod spec alone", in: `{"spec": {"template": {"spec": {"x": 1}}}}`,
			trimmed: `{"spec": {"template": {}}}`},
		{name: "cronjob", in: `{"spec": {"schedule": "@hourly", "jobTemplate": {"spec": {"template": {"metadata": {"labels": {"a": "b"}}, "spec": {"restartPolicy": "Never"}}, "backoffLimit": 2}}}}`,
			trimmed: `{"spec": {"schedule": "@hourly", "jobTemplate": {"spec": {"template": {"metadata": {"labels": {"a": "b"}}}, "backoffLimit": 2}}}}`},
		{name: "spec elsewhere is kept", in: `{"metadata": {"spec": {"template": {"spec": 1}}}, "spec": {"other": {"template": {"spec": 2}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := ast.ValueFromReader(bytes.NewReader([]byte(tt.in)))
			if err != nil {
				t.Fatal(err)
			}
			got, cuts, err := valueFromJSON([]byte(tt.in))
			if err != nil {
				t.Fatalf("valueFromJSON(%s): %v", tt.in, err)
			}
			if got.Compare(want) != 0 {
				t.Errorf("valueFromJSON(%s) = %v, want %v", tt.in, got, want)
			}
			trimmed := tt.trimmed
			if trimmed == "" {
				trimmed = tt.in
			}
			wantTrimmed, err := ast.ValueFromReader(bytes.NewReader([]byte(trimmed)))
			if err != nil {
				t.Fatal(err)
			}
			cut := cutRanges([]byte(tt.in), cuts)
			gotTrimmed, _, err := valueFromJSON(cut)
			if err != nil {
				t.Fatalf("cut %q does not read: %v", cut, err)
			}
			if gotTrimmed.Compare(wantTrimmed) != 0 {
				t.Errorf("cut of %s = %s, want %v", tt.in, cut, wantTrimmed)
			}
		})
	}
}

// TestValueFromJSONFallsBack checks that input the reader does not expect
// is left to ast.ValueFromReader, errors included.
func TestValueFromJSONFallsBack(t *testing.T) {
	for _, in := range []string{`{"a": tru}`, `{"a": 1,}`, `{"a" 1}`, `{"a": 01x}`, ``, `{"a": 1} {"b": 2}`} {
		_, wantErr := ast.ValueFromReader(bytes.NewReader([]byte(in)))
		got, _, err := valueFromJSON([]byte(in))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("valueFromJSON(%q) = %v, %v; ValueFromReader's error is %v", in, got, err, wantErr)
		}
	}
}
