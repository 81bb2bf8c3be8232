package apicheck

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// interpretEqual fails t unless headerMetaFactory gives for data what
// json.SimpleMetaFactory gives: the same kind, or the same error.
func interpretEqual(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := json.SimpleMetaFactory{}.Interpret(data)
	got, gotErr := headerMetaFactory{}.Interpret(data)
	if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
		t.Fatalf("Interpret(%q) error = %v, want %v", data, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Interpret(%q) = %v, want %v", data, got, want)
	}
}

func TestHeaderMetaFactory(t *testing.T) {
	tests := []struct {
		name string
		data string
		// fast is whether scanHeader answers itself, without falling back.
		fast bool
	}{
		{name: "plain", data: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}}`, fast: true},
		{name: "kind first, spaced", data: " {\n \"kind\" : \"Pod\" ,\t\"apiVersion\":\"v1\" }\r\n", fast: true},
		{name: "nested kinds are not the object's", data: `{"spec":{"kind":"X","apiVersion":"x/v9","a":[1,-2.5e+3,true,false,null,{}]},"kind":"Job","apiVersion":"batch/v1"}`, fast: true},
		{name: "last of duplicate keys wins", data: `{"kind":"A","apiVersion":"v1","kind":"B"}`, fast: true},
		{name: "null leaves the field", data: `{"kind":"A","kind":null,"apiVersion":null}`, fast: true},
		{name: "empty object", data: `{}`, fast: true},
		{name: "no version", data: `{"kind":"Pod"}`, fast: true},
		{name: "bad group version", data: `{"apiVersion":"a/b/c","kind":"Pod"}`, fast: true},
		{name: "invalid UTF-8 in a value", data: "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"x\":\"\xff\xfe\"}", fast: true},
		{name: "unicode elsewhere", data: `{"apiVersion":"v1","kind":"Pod","x":"h\u00e9llo ✓"}`, fast: true},
		{name: "case-folded key", data: `{"apiVersion":"v1","kind":"Pod","KIND":"Job"}`},
		{name: "kelvin sign folds to k", data: `{"apiVersion":"v1","kind":"Pod","` + "\u212a" + `ind":"Job"}`},
		{name: "escaped key", data: `{"apiVersion":"v1","\u006bind":"Job"}`},
		{name: "escaped value", data: `{"apiVersion":"v1","kind":"P\u006fd"}`},
		{name: "number kind", data: `{"apiVersion":"v1","kind":5}`},
		{name: "object kind", data: `{"apiVersion":"v1","kind":{}}`},
		{name: "top-level array", data: `[{"kind":"Pod"}]`},
		{name: "top-level null", data: `null`},
		{name: "truncated", data: `{"apiVersion":"v1","kind":"Pod"`},
		{name: "trailing garbage", data: `{"apiVersion":"v1","kind":"Pod"} x`},
		{name: "trailing comma", data: `{"apiVersion":"v1","kind":"Pod",}`},
		{name: "leading zero", data: `{"apiVersion":"v1","kind":"Pod","n":01}`},
		{name: "bare minus", data: `{"apiVersion":"v1","kind":"Pod","n":-}`},
		{name: "control character in a string", data: "{\"apiVersion\":\"v1\",\"kind\":\"Po\td\"}"},
		{name: "bad escape elsewhere", data: `{"apiVersion":"v1","kind":"Pod","x":"\q"}`},
		{name: "short unicode escape", data: `{"apiVersion":"v1","kind":"Pod","x":"\u12"}`},
		{name: "byte-order mark", data: "\xef\xbb\xbf{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}"},
		{name: "empty", data: ``},
		{name: "deep", data: `{"apiVersion":"v1","kind":"Pod","x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`},
		{name: "too deep for encoding/json", data: `{"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`},
		{name: "true literal misspelt", data: `{"apiVersion":"v1","kind":"Pod","b":tru}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			interpretEqual(t, []byte(tt.data))
			if _, _, ok := scanHeader([]byte(tt.data)); ok != tt.fast {
				t.Errorf("scanHeader(%q) answered = %v, want %v", tt.data, ok, tt.fast)
			}
		})
	}
}

// TestHeaderMetaFactoryOnFixtures compares both factories on the JSON of
// every YAML and JSON document under the repository's test data and examples.
func TestHeaderMetaFactoryOnFixtures(t *testing.T) {
	n := 0
	for _, root := range []string{"testdata", "../../examples", "../../testdata", "../../lint/testdata", "../../rules/testdata", "../../test/realworld"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" && ext != ".json" {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, doc := range strings.Split(string(data), "\n---") {
				js, err := sigsyaml.YAMLToJSON([]byte(doc))
				if err != nil {
					continue
				}
				interpretEqual(t, js)
				n++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 100 {
		t.Fatalf("compared %d documents, want at least 100", n)
	}
}

// TestHeaderMetaFactoryMutations compares both factories on many small
// mutations of real objects' JSON (a byte replaced by one JSON gives meaning
// to, inserted or deleted), from a fixed seed: near-valid JSON is where a
// hand-written scanner and encoding/json would part.
func TestHeaderMetaFactoryMutations(t *testing.T) {
	seeds := []string{
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"replicas":3,"paused":false,"x":null,"f":-1.5e-3,"s":"a\"b\u00e9"}}`,
		`{"kind":"Service","apiVersion":"v1","spec":{"ports":[{"port":80},{"port":443}]}}`,
	}
	alphabet := []byte(`{}[]:,"\ -+.0123456789eEtrufalsn` + "\t\n\x00\x7f\xc3\xa9\xe2\x84\xaaK")
	rng := rand.New(rand.NewPCG(1, 28))
	fast := 0
	const n = 50000
	for i := 0; i < n; i++ {
		doc := []byte(seeds[i%len(seeds)])
		for range 1 + rng.IntN(3) {
			at := rng.IntN(len(doc))
			c := alphabet[rng.IntN(len(alphabet))]
			switch rng.IntN(3) {
			case 0:
				doc[at] = c
			case 1:
				doc = slices.Insert(doc, at, c)
			default:
				doc = slices.Delete(doc, at, at+1)
			}
		}
		interpretEqual(t, doc)
		if _, _, ok := scanHeader(doc); ok {
			fast++
		}
	}
	// Both paths must be exercised: the fast one on mutations that stay
	// valid JSON, the fallback on the rest.
	if fast < n/20 || fast > n*19/20 {
		t.Errorf("scanHeader answered %d of %d mutations itself, want between 5%% and 95%%", fast, n)
	}
}

func FuzzHeaderMetaFactory(f *testing.F) {
	for _, s := range []string{`{"apiVersion":"apps/v1","kind":"Deployment"}`, `{"kind":null,"a":[1,{"b":"c"}]}`,
		`{"KIND":"x","apiversion":"v1"}`, `[]`, `{"a":-0.5e-7}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		interpretEqual(t, data)
	})
}
