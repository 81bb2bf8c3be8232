package rules

import (
	"bytes"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestValueFromJSON checks that the direct reader gives the values
// ast.ValueFromReader gives.
func TestValueFromJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{name: "scalars", in: `{"a": 1, "b": -2.50, "c": 1e3, "d": 1E-2, "e": true, "f": false, "g": null, "h": "x"}`},
		{name: "empty containers", in: `{"a": {}, "b": [], "c": [[]], "d": [{}]}`},
		{name: "escapes", in: `{"a\"b": "c\\d\/e\u00e9\ud83d\ude00\n\t", "k": "\u0000"}`},
		{name: "unicode", in: `{"名前": "値", "emoji": "😀"}`},
		{name: "invalid utf-8", in: "{\"a\": \"\xff\xfe\"}"},
		{name: "duplicate key keeps the last", in: `{"a": 1, "a": 2}`},
		{name: "whitespace", in: " \n{ \"a\" :\t[ 1 , 2 ] ,\r\n \"b\" : { } } \n"},
		{name: "not an object", in: `[1, "a", {"spec": {"template": {"spec": 1}}}]`},
		{name: "deployment", in: `{"kind": "Deployment", "spec": {"replicas": 3, "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "a"}]}}, "selector": {}}}`},
		{name: "pod spec first", in: `{"spec": {"template": {"spec": {"x": 1}, "metadata": {}}}}`},
		{name: "pod spec alone", in: `{"spec": {"template": {"spec": {"x": 1}}}}`},
		{name: "cronjob", in: `{"spec": {"schedule": "@hourly", "jobTemplate": {"spec": {"template": {"metadata": {"labels": {"a": "b"}}, "spec": {"restartPolicy": "Never"}}, "backoffLimit": 2}}}}`},
		{name: "spec elsewhere is kept", in: `{"metadata": {"spec": {"template": {"spec": 1}}}, "spec": {"other": {"template": {"spec": 2}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := ast.ValueFromReader(bytes.NewReader([]byte(tt.in)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := valueFromJSON([]byte(tt.in))
			if err != nil {
				t.Fatalf("valueFromJSON(%s): %v", tt.in, err)
			}
			if got.Compare(want) != 0 {
				t.Errorf("valueFromJSON(%s) = %v, want %v", tt.in, got, want)
			}
		})
	}
}

// TestValueFromJSONFallsBack checks that input the reader does not expect
// is left to ast.ValueFromReader, errors included.
func TestValueFromJSONFallsBack(t *testing.T) {
	for _, in := range []string{`{"a": tru}`, `{"a": 1,}`, `{"a" 1}`, `{"a": 01x}`, ``, `{"a": 1} {"b": 2}`} {
		_, wantErr := ast.ValueFromReader(bytes.NewReader([]byte(in)))
		got, err := valueFromJSON([]byte(in))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("valueFromJSON(%q) = %v, %v; ValueFromReader's error is %v", in, got, err, wantErr)
		}
	}
}
