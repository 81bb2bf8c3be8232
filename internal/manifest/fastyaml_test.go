package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// v3Tree parses text as loadYAMLDocument's slow path does: one document,
// and nothing after it.
func v3Tree(text []byte) (*yaml.Node, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("a second document, or %v", err)
	}
	return &root, nil
}

// treeDiff describes the first difference between two node trees in what
// the loader reads (every field but the comments), or "".
func treeDiff(got, want *yaml.Node, path string) string {
	if got.Kind != want.Kind || got.Style != want.Style || got.Tag != want.Tag || got.Value != want.Value ||
		got.Anchor != want.Anchor || (got.Alias == nil) != (want.Alias == nil) || got.Line != want.Line ||
		got.Column != want.Column || len(got.Content) != len(want.Content) {
		return fmt.Sprintf("%s: got kind %d style %d tag %q value %q at %d:%d with %d children, want kind %d style %d tag %q value %q at %d:%d with %d children",
			path, got.Kind, got.Style, got.Tag, got.Value, got.Line, got.Column, len(got.Content),
			want.Kind, want.Style, want.Tag, want.Value, want.Line, want.Column, len(want.Content))
	}
	for i := range got.Content {
		if d := treeDiff(got.Content[i], want.Content[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// fastAgrees fails t if fastYAML answers for text and yaml.v3 gives another
// tree or refuses it; it reports whether fastYAML answered.
func fastAgrees(t *testing.T, name string, text []byte) bool {
	t.Helper()
	got, ok := fastYAML(text)
	if !ok {
		return false
	}
	want, err := v3Tree(text)
	if err != nil {
		t.Errorf("%s: fastYAML parsed what yaml.v3 refuses (%v):\n%s", name, err, text)
		return true
	}
	if d := treeDiff(got, want, ""); d != "" {
		t.Errorf("%s: fastYAML and yaml.v3 differ: %s\n%s", name, d, text)
	}
	return true
}

// fastYAMLFiles are the documents of every YAML file of the test data,
// examples/, the rendered real-world corpus and the shared real-world corpus.
func fastYAMLFiles(t *testing.T) map[string][]byte {
	docs := map[string][]byte{}
	for _, dir := range []string{realWorldCorpus, "testdata", "../../examples", "../../testdata", "../../test/realworld/rendered", "../../lint/testdata"} {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !extensions[strings.ToLower(filepath.Ext(path))] {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			for i, c := range splitYAML(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) {
				if !isBlank(c.text) {
					docs[fmt.Sprintf("%s#%d", path, i)] = c.text
				}
			}
			return nil
		})
	}
	for _, tt := range trickyDocs {
		docs["tricky/"+tt.name] = []byte(tt.doc)
	}
	return docs
}

// TestFastYAMLMatchesYAMLv3 parses every document of the test data and
// corpora with fastYAML and with yaml.v3: where fastYAML answers, the trees
// must be the same, and it must answer for most of them.
func TestFastYAMLMatchesYAMLv3(t *testing.T) {
	docs := fastYAMLFiles(t)
	answered := 0
	for name, text := range docs {
		if fastAgrees(t, name, text) {
			answered++
		}
	}
	t.Logf("fastYAML answered %d of %d documents", answered, len(docs))
	if len(docs) < 500 || answered < len(docs)/2 {
		t.Errorf("fastYAML answered %d of %d documents, want at least half of at least 500", answered, len(docs))
	}
}

// TestFastYAMLMutations mutates documents that fastYAML answers for, a few
// bytes at a time from a fixed seed (indentation, indicators, quotes,
// comments, line breaks), and checks fastYAML against yaml.v3 on each:
// near-valid YAML is where the two would part.
func TestFastYAMLMutations(t *testing.T) {
	docs := fastYAMLFiles(t)
	var names []string
	for name, text := range docs {
		if _, ok := fastYAML(text); ok && len(text) < 4000 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		t.Fatal("no document to mutate")
	}
	alphabet := []byte(" \n:-#'\"[]{}|>&*!?%@,.0aZ~\\")
	rng := rand.New(rand.NewPCG(28, 1))
	const n = 30000
	answered := 0
	for i := 0; i < n; i++ {
		text := slices.Clone(docs[names[rng.IntN(len(names))]])
		for range 1 + rng.IntN(3) {
			at := rng.IntN(len(text))
			c := alphabet[rng.IntN(len(alphabet))]
			switch rng.IntN(3) {
			case 0:
				text[at] = c
			case 1:
				text = slices.Insert(text, at, c)
			default:
				text = slices.Delete(text, at, at+1)
			}
		}
		if fastAgrees(t, fmt.Sprintf("mutation %d", i), text) {
			answered++
		}
		if t.Failed() {
			return
		}
	}
	if answered < n/10 {
		t.Errorf("fastYAML answered %d of %d mutations, want at least a tenth", answered, n)
	}
}

// TestFastYAMLCases checks fastYAML against yaml.v3 on documents written
// to trip it, and that it answers for the shapes it is meant to read.
func TestFastYAMLCases(t *testing.T) {
	tests := []struct {
		name, doc string
		fast      bool
	}{
		{name: "mapping", doc: "a: 1\nb: x y\nc: 'it''s'\nd: \"q\"\n", fast: true},
		{name: "nested and sequences", doc: "a:\n  b:\n  - x\n  - y: 1\n    z: [1, 'two', \"3\"]\n  c: {k: v, l: 'w'}\n", fast: true},
		{name: "sequence at the key's indentation", doc: "a:\n- 1\n- 2\nb: 3\n", fast: true},
		{name: "comments and blank lines", doc: "# head\na: 1 # c\n\n  # indented comment\nb:   2\n", fast: true},
		{name: "duplicate keys", doc: "a: 1\na: 2\n", fast: true},
		{name: "empty flow", doc: "a: []\nb: {}\nc: [ ]\n", fast: true},
		{name: "merge value", doc: "a: <<\n", fast: true},
		{name: "literal", doc: "a: |\n  x\n   y\n\n  z\n\n\nb: 1\n", fast: true},
		{name: "literal strip", doc: "a: |-\n  x\n  y\nb: 1\n", fast: true},
		{name: "literal in a sequence", doc: "- |\n  x\n- y\n", fast: true},
		{name: "literal with a comment line", doc: "a: | # c\n    x\n    # not a comment\n  # a comment\nb: 1\n", fast: true},
		{name: "literal at the end", doc: "a: |\n  x\n", fast: true},
		{name: "literal at the end without a break", doc: "a: |\n  x"},
		{name: "literal keep", doc: "a: |+\n  x\n\nb: 1\n"},
		{name: "literal explicit indentation", doc: "a: |2\n   x\n"},
		{name: "literal leading blank", doc: "a: |\n\n  x\n"},
		{name: "literal empty", doc: "a: |\nb: 1\n"},
		{name: "folded", doc: "a: >\n  x\n  y\n"},
		{name: "null value", doc: "a:\nb: 1\n"},
		{name: "multi-line plain", doc: "a: x\n  y\n"},
		{name: "multi-line quoted", doc: "a: \"x\n  y\"\n"},
		{name: "escape", doc: "a: \"x\\ty\"\n"},
		{name: "anchor and alias", doc: "a: &x 1\nb: *x\n"},
		{name: "tag", doc: "a: !!str 1\n"},
		{name: "tab", doc: "a:\t1\n"},
		{name: "carriage return", doc: "a: 1\r\n"},
		{name: "non-ASCII", doc: "a: é\n"},
		{name: "nested flow", doc: "a: [[1]]\n"},
		{name: "flow trailing comma", doc: "a: [1, 2,]\n"},
		{name: "flow question mark", doc: "a: [x?y]\n"},
		{name: "flow colon", doc: "a: [x:y]\n"},
		{name: "flow over two lines", doc: "a: [1,\n  2]\n"},
		{name: "quoted key", doc: "\"a\": 1\n"},
		{name: "complex key", doc: "? a\n: 1\n"},
		{name: "colon in a value", doc: "a: b: c\n"},
		{name: "indented document", doc: "  a: 1\n"},
		{name: "scalar document", doc: "a\n"},
		{name: "document end", doc: "a: 1\n...\n"},
		{name: "key over 1000 characters", doc: strings.Repeat("k", 1100) + ": 1\n"},
		{name: "stray indentation", doc: "a: 1\n b: 2\n"},
		{name: "compact nested sequence", doc: "- - 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fastAgrees(t, tt.name, []byte(tt.doc)); got != tt.fast {
				t.Errorf("fastYAML(%q) answered = %v, want %v", tt.doc, got, tt.fast)
			}
		})
	}
}
