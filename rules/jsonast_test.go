package rules

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
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

// TestValueFromJSONKept checks the reader that keeps some fields, and its
// JSON-to-JSON twin keptJSON, against the whole reader followed by the trim
// the cross-resource input uses (appendKept), on hand-written documents and
// on random ones.
func TestValueFromJSONKept(t *testing.T) {
	fields := map[string]any{
		"kind": nil,
		"spec": map[string]any{
			"replicas": nil,
			"template": map[string]any{"metadata": map[string]any{"labels": nil}},
			"odd":      map[string]any{"x": nil},
		},
	}
	docs := []string{
		`{}`,
		`{"kind":"Deployment","apiVersion":"apps/v1","spec":{"replicas":3,"paused":true}}`,
		`{"spec":{"template":{"metadata":{"labels":{"a":"b","c\"d":"e\\f"},"name":"x"},"spec":{"containers":[{"name":"a","args":["}","]","\"{"]}]}}}}`,
		`{"skipped":{"deep":[1,[2,[3,{"k":"v"}]],{"x":null}]},"kind":"K"}`,
		`{"spec":{"odd":[1,2,3],"replicas":null},"kind":"\u00e9\n"}`,
		`{"spec":"not an object","kind":1.5e3}`,
		` { "kind" : "K" , "spec" : { "replicas" : -1 , "t" : false } , "n" : true } `,
		`{"kind":"a","kind":"b"}`,
		`[{"kind":"x"}]`,
		`"just a string"`,
		`{"spec":{"replicas":2},"last":12}`,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		js, err := json.Marshal(randomDoc(rng, 0))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(js))
	}
	for _, doc := range docs {
		whole, err := valueFromJSON([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		want, err := ast.ValueFromReader(bytes.NewReader(appendKept(nil, whole, fields)))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		got, err := valueFromJSONKept([]byte(doc), fields)
		if err != nil {
			t.Errorf("valueFromJSONKept(%s): %v", doc, err)
			continue
		}
		if got.Compare(want) != 0 {
			t.Errorf("valueFromJSONKept(%s) = %v, want %v", doc, got, want)
		}
		kept, err := keptJSON([]byte("prefix"), []byte(doc), fields)
		if err != nil || !bytes.HasPrefix(kept, []byte("prefix")) {
			t.Errorf("keptJSON(%s) = %s, %v", doc, kept, err)
			continue
		}
		if got, err := ast.ValueFromReader(bytes.NewReader(kept[len("prefix"):])); err != nil || got.Compare(want) != 0 {
			t.Errorf("keptJSON(%s) = %s (%v), want %v", doc, kept, err, want)
		}
	}
	for _, bad := range []string{`{"kind":`, `{"kind" "x"}`, `{"a":[1,2}`, `{"a":"x}`, `{"kind":"x"} trailing`} {
		if _, err := valueFromJSONKept([]byte(bad), fields); err == nil {
			t.Errorf("valueFromJSONKept(%s) read it", bad)
		}
		if _, err := keptJSON(nil, []byte(bad), fields); err == nil {
			t.Errorf("keptJSON(%s) read it", bad)
		}
	}
}

// randomDoc is a random JSON-able value, objects often using the keys the
// test's fields name.
func randomDoc(rng *rand.Rand, depth int) any {
	keys := []string{"kind", "spec", "replicas", "template", "metadata", "labels", "odd", "x", "other", "q\"uote"}
	switch n := rng.IntN(10); {
	case depth > 4 || n < 3:
		switch rng.IntN(5) {
		case 0:
			return rng.IntN(1000) - 500
		case 1:
			return "s}]\"\\" + keys[rng.IntN(len(keys))]
		case 2:
			return rng.IntN(2) == 0
		case 3:
			return nil
		default:
			return rng.Float64()
		}
	case n < 5:
		a := make([]any, rng.IntN(4))
		for i := range a {
			a[i] = randomDoc(rng, depth+1)
		}
		return a
	default:
		m := map[string]any{}
		for range rng.IntN(5) {
			m[keys[rng.IntN(len(keys))]] = randomDoc(rng, depth+1)
		}
		return m
	}
}
