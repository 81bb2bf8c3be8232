package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// realWorldCorpus holds about 300 published manifests.
const realWorldCorpus = "/work/shared/corpus/real-world"

// trickyDocs are documents written to trip a YAML-to-JSON converter. fast
// says whether treeJSON must convert the document itself (true) or leave it
// to sigs.k8s.io/yaml (false); either way the JSON must be the same.
var trickyDocs = []struct {
	name string
	fast bool
	doc  string
}{
	{"bools", true, "a: [y, Y, yes, Yes, YES, n, N, no, No, NO, true, True, TRUE, false, False, FALSE, on, On, ON, off, Off, OFF]\n" +
		"b: [yES, tRUE, oN, nO, yeah, 'yes', \"on\", Y es, True1]\n"},
	{"bool values in block", true, "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\n"},
	{"nulls", true, "a: [~, null, Null, NULL, nULL, 'null', \"~\", '']\nb:\nc: ~\nd: null\n"},
	{"empty values", true, "a:\nb: {}\nc: []\nd: {e: {}, f: [], g: [[], {}, [{}]]}\ne: ''\nf: \"\"\n"},
	{"empty sequence entries", true, "a:\n-\n- \n- ~\n-  # comment\n"},
	{"ints", true, "a: [0, -0, +0, 1, -1, +1, 007, 08, 09, 0o17, 0O17, 0x1F, 0X1F, 0x1f, -0x1F, +0x1F, 0b101, 0B101, -0b101, +0b101, 0b2, 0xG, 0o8]\n"},
	{"underscores", true, "a: [1_000, 1__0, _1, 1_, 0x_1F, 0b_1, 1_0.5, 1_0e1_0, -1_000, 0_7, +_1]\n"},
	{"int limits", true, "a: [9223372036854775807, 9223372036854775808, -9223372036854775808, -9223372036854775809, " +
		"18446744073709551615, 18446744073709551616, 0xFFFFFFFFFFFFFFFF, 0x10000000000000000, " +
		"0b1111111111111111111111111111111111111111111111111111111111111111, -0b1000000000000000000000000000000000000000000000000000000000000000, " +
		"-0b10000000000000000000000000000000000000000000000000000000000000001, 99999999999999999999999]\n"},
	{"floats", true, "a: [1.0, 1., .5, -.5, +.5, 0.1, 3.14159, 1e3, 1E3, 1e+3, 1e-3, 1.5e-7, 1e-6, 1e-7, 1e20, 1e21, 1e22, 6.02e23, " +
		"123456789012345678901, 1.7976931348623157e308, 5e-324, 2.5e-324, -0.0, 0.0, 00.5, 1.e5, .5e5, 1e5.5, 100.0, 12.50]\n"},
	{"float edges", true, "a: [1e400, -1e400, .1e400, 1e, 1e+, e1, .e1, ., .., ._1, ._, .5_5, 0x1p-2, 0x1.8p1, 1.2.3, 1,2, Infinity, inf, NaN, nan, +Inf, .inF]\n"},
	{"quantities", true, "cpu: 100m\nmemory: 128Mi\nstorage: 10Gi\nratio: 0.5\nversion: 1.20\nport: 8080\nsexagesimal: 1:30\nh: 0:0:1\n"},
	{"timestamps", true, "a: [2001-12-14, 2001-12-14t21:59:43.10-05:00, 2001-12-14 21:59:43.10, 2001-12-14T21:59:43Z, 2001-13-45, 2001-1-2, 20011-12-14, 200-12-14, 2001-]\n"},
	{"signs and dots", true, "a: [+, -, ., +., -., +-1, --1, ++1]\nb:\n- -\n- - 1\n"},
	{"quoted numbers", true, "a: ['1', \"1\", '0x1F', \"1e3\", '.inf', \".nan\", 'true', \"yes\", '~', \"null\", '']\n"},
	{"multi-line strings", true, "a: this is\n  a plain\n\n  multi-line string\nb: 'single\n  quoted\n\n  lines'\nc: \"double\\\n  escaped \\\n  newline\"\n"},
	{"block scalars", true, "a: |\n  keep\n   indented\n\nb: |-\n  strip\n\n\nc: |+\n  keep\n\n\nd: >\n  folded\n  text\n\n  para\n   more\ne: >-\n  folded strip\n\nf: >+\n  folded keep\n\n\ng: |2\n    two\n   one\nh: |\nz: end\n"},
	{"block scalar at end", true, "a: |+\n  trailing\n\n"},
	{"escapes", true, "a: \"\\t\\n\\r\\b\\f\\x01\\x7f\\x80\\xff\\u2028\\u2029\\U0001F600\\\\\\\"\\0\\a\\e\\v\\N\\_\\L\\P\\ \"\n"},
	{"html and unicode", true, "a: <script>alert('x') && 1 > 0</script>\nb: héllo wörld 日本語 😀\nc: \"\u2028 \u2029 \u0085\"\nd: tab\there\ne: \"\\x1b[0m\"\nf: ~tilde\n"},
	{"unicode keys order", true, "é: 1\nz: 2\nZ: 3\n_a: 4\n\"\": 5\n' a': 6\nA: 7\n日本: 8\n\"a\\tb\": 9\n\"<\": 10\n"},
	{"quoted keys", true, "'yes': 1\n\"on\": 2\n'1': 3\n\"null\": 4\n'~': 5\n\"1.5\": 6\n'a<<': 7\n"},
	{"block scalar key", true, "? |\n  literal key\n: v\n? >-\n  folded\n: w\n"},
	{"flow", true, "{a: [1, {b: c}], d: {e: [f, g]}, 'h': \"i\", j: [k, {l: [m]}]}\n"},
	{"flow pair in sequence", true, "a: [b: c, d: e]\n"},
	{"comments", true, "# head\na: 1 # line\n# between\nb: c#not a comment\nc: '#quoted'\n"},
	{"top-level scalar", true, "hello\n"},
	{"top-level sequence", true, "- 1\n- a\n- {b: c}\n"},
	{"top-level quoted", true, "\"quoted\"\n"},
	{"crlf", true, "a: 1\r\nb: |\r\n  line\r\n  two\r\nc: yes\r\n"},
	{"timestamp key", true, "2001-12-14: a\n1:30: b\n10Gi: c\n"},
	{"merge value", true, "a: <<\nb: [<<]\n"},
	{"bang in strings", true, "a: \"!important\"\nb: hello!\nc: |\n  #!/bin/sh\n  [ ! -f x ] && exit 1\nd: 1\ne: true\nf: 'a!b'\n"},
	{"bang before numbers", true, "a: x!\nb: 1\n# ! comment\nc: [1, 2.5, null, yes]\nd: !\n  - 1\n"},
	{"deployment", true, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n  labels: {app: web}\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        ports:\n        - containerPort: 80\n        resources: {limits: {cpu: 500m, memory: 128Mi}, requests: {cpu: 0.25}}\n"},
	{"list", true, "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: b, namespace: c, generateName: d-}\n- 5\n- {kind: Pod}\n- [1]\n"},
	{"list items null", true, "apiVersion: v1\nkind: List\nitems:\n"},
	{"list items mapping", true, "apiVersion: v1\nkind: PodList\nitems: {a: b}\n"},
	{"list items empty", true, "apiVersion: v1\nkind: List\nitems: []\n"},
	{"nested items", true, "apiVersion: v1\nkind: List\nspec:\n  items: [1, 2]\nitems:\n- apiVersion: v1\n  kind: List\n  items: [{apiVersion: v1, kind: Pod}]\n"},
	{"header types", true, "apiVersion: 1\nkind: true\nmetadata:\n  name: 5\n  namespace: ~\n  generateName: [a]\n"},
	{"metadata not a mapping", true, "apiVersion: v1\nkind: Pod\nmetadata: [a, b]\n"},
	{"metadata null", true, "apiVersion: v1\nkind: Pod\nmetadata:\n"},
	{"metadata string", true, "apiVersion: v1\nkind: Pod\nmetadata: name\n"},
	{"header quoted", true, "'apiVersion': \"v1\"\n\"kind\": 'Pod'\nmetadata:\n  \"name\": |-\n    block\n"},
	{"header case variants", true, "apiVersion: v1\nKind: Pod\nkind: Service\nmetadata: {Name: a, name: b, NAMESPACE: c}\n"},
	{"header case variants only", true, "APIVERSION: v1\nKIND: Pod\nMetadata: {NAME: x}\n"},
	{"kelvin", true, "apiVersion: v1\n\u212aind: Pod\n"},
	{"kelvin only", true, "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n\u212aIND: Pod\n"},
	{"items case variant", true, "apiVersion: v1\nkind: List\nItems: [{apiVersion: v1, kind: Pod}]\n"},
	{"bool keys", false, "on: push\n"},
	{"yes key", false, "yes: 1\n"},
	{"int key", false, "1: a\n"},
	{"float key", false, "1.5: a\n"},
	{"null key", false, "null: a\n"},
	{"tilde key", false, "~: a\n"},
	{"empty key", false, "? \n: a\n"},
	{"colliding keys", false, "1: a\n'2': b\n"},
	{"anchor", false, "a: &x 1\nb: *x\n"},
	{"anchor unused", false, "a: &x {b: 1}\n"},
	{"alias map", false, "a: &x {b: [1, 2]}\nc: *x\nd: [*x, *x]\n"},
	{"merge", false, "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n"},
	{"merge list", false, "a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: [*a, *b]\n  z: 3\n"},
	{"merge inline", false, "c:\n  <<: {x: 1}\n  x: 2\n"},
	{"tag str", false, "a: !!str 1\n"},
	{"tag int", false, "a: !!int \"1\"\n"},
	{"tag float", false, "a: !!float 1\n"},
	{"tag null", false, "a: !!null ''\n"},
	{"tag bool", false, "a: !!bool yes\n"},
	{"tag binary", false, "a: !!binary aGVsbG8=\n"},
	{"tag custom", false, "a: !custom x\n"},
	{"tag custom map", false, "a: !custom {b: 1}\n"},
	{"tag map", false, "a: !!map {b: 1}\n"},
	{"tag seq", false, "a: !!seq [1]\n"},
	{"tag timestamp", false, "a: !!timestamp 2001-12-14\n"},
	{"non-specific tag", false, "a: ! 1\n"},
	{"non-specific tag bool", false, "a: ! true\n"},
	{"non-specific tag empty", false, "a: !\nb: 1\n"},
	{"non-specific tag in flow", false, "a: [x, ! 12, y]\n"},
	{"non-specific tag float", false, "a:\n  - ! 1.5\n"},
	{"verbatim tag", false, "a: !<tag:yaml.org,2002:str> 1\n"},
	{"tag directive", false, "%TAG !e! tag:example.com,2000:\n---\na: !e!foo 1\n"},
	{"nan", false, "a: .nan\n"},
	{"inf", false, "a: [.inf, -.Inf, +.INF]\n"},
	{"duplicate keys", false, "a: 1\nb: 2\na: 3\n"},
	{"duplicate quoted keys", false, "a: 1\n'a': 2\n"},
	{"complex key", false, "? [a, b]\n: c\n"},
	{"mapping key", false, "? {a: 1}\n: c\n"},
	{"merge key quoted", false, "'<<': {a: 1}\n"},
}

// convertOne converts one document as loadYAMLDocument does, and compares
// the result with sigs.k8s.io/yaml.YAMLToJSON. It reports whether the
// document reached conversion and whether treeJSON converted it.
func convertOne(t *testing.T, name string, text []byte) (converted, fast bool) {
	t.Helper()
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(&root); err != nil {
		return false, false
	}
	if msg, _ := checkShape(&root, &aliasBudget{}); msg != "" {
		return false, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return false, false
	}
	d, err := documentJSON(&root, text, true)
	if !d.fromTree {
		// sigs.k8s.io/yaml itself: nothing to compare, and its output is
		// not even deterministic for colliding keys (1 and "1").
		return true, false
	}
	want, wantErr := sigsyaml.YAMLToJSON(text)
	switch {
	case err != nil:
		t.Errorf("%s: treeJSON failed: %v\n%q", name, err, text)
	case wantErr != nil:
		t.Errorf("%s: treeJSON wrote %s, but sigs.k8s.io/yaml fails: %v\n%q", name, d.js, wantErr, text)
	case !bytes.Equal(d.js, want):
		t.Errorf("%s: treeJSON wrote\n%s\nsigs.k8s.io/yaml wrote\n%s\nfor %q", name, d.js, want, text)
	default:
		checkTreeHeaders(t, name, &root, d)
	}
	return true, true
}

// checkTreeHeaders checks that treeHeader, and the items treeJSON recorded,
// give what json.Unmarshal gives from the JSON, for the document and for
// every item of its top-level "items" sequence.
func checkTreeHeaders(t *testing.T, name string, root *yaml.Node, d docJSON) {
	t.Helper()
	node := root.Content[0]
	if node.Kind != yaml.MappingNode {
		return
	}
	var want header
	_ = json.Unmarshal(d.js, &want)
	var got header
	if treeHeader(node, &got) {
		got.Items = d.items
		if headerString(got) != headerString(want) {
			t.Errorf("%s: treeHeader = %s, json.Unmarshal gives %s", name, headerString(got), headerString(want))
		}
	}
	items := mappingValue(node, "items")
	if items == nil || items.Kind != yaml.SequenceNode || len(want.Items) != len(items.Content) {
		return
	}
	for i, item := range items.Content {
		if item.Kind != yaml.MappingNode {
			continue
		}
		var want, got header
		_ = json.Unmarshal(d.items[i], &want)
		want.Items = nil // the items of an item are not read
		if treeHeader(item, &got) && headerString(got) != headerString(want) {
			t.Errorf("%s: item %d: treeHeader = %s, json.Unmarshal gives %s", name, i, headerString(got), headerString(want))
		}
	}
}

// headerString shows what loading reads of a header.
func headerString(h header) string {
	items := make([]string, len(h.Items))
	for i, it := range h.Items {
		items[i] = string(it)
	}
	return fmt.Sprintf("apiVersion=%q kind=%q name=%q namespace=%q generateName=%q items=%q",
		str(h.APIVersion), str(h.Kind), str(h.Metadata.Name), str(h.Metadata.Namespace), str(h.Metadata.GenerateName), items)
}

// documentsOf splits a file's bytes into documents as parse does.
func documentsOf(data []byte) [][]byte {
	var docs [][]byte
	for _, c := range splitYAML(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) {
		if !isBlank(c.text) {
			docs = append(docs, c.text)
		}
	}
	return docs
}

func TestTreeJSONTricky(t *testing.T) {
	for _, tt := range trickyDocs {
		t.Run(tt.name, func(t *testing.T) {
			converted, fast := convertOne(t, tt.name, []byte(tt.doc))
			if !converted {
				t.Fatalf("yaml.v3 does not parse %q", tt.doc)
			}
			if fast != tt.fast {
				t.Errorf("treeJSON took %q: %v, want %v", tt.doc, fast, tt.fast)
			}
		})
	}
}

// TestTreeJSONRealWorld converts every document of every published manifest
// in the real-world corpus both ways, and requires treeJSON to convert
// nearly all of them itself.
func TestTreeJSONRealWorld(t *testing.T) {
	if _, err := os.Stat(realWorldCorpus); err != nil {
		t.Skipf("no real-world corpus: %v", err)
	}
	var docs, converted, fast int
	var slow []string
	err := filepath.WalkDir(realWorldCorpus, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !extensions[strings.ToLower(filepath.Ext(path))] {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// A JSON file is loaded as JSON, not YAML; its values are converted
		// here all the same, as YAML, for the comparison, but not counted.
		isJSON := looksLikeJSON(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		for i, doc := range documentsOf(data) {
			name := fmt.Sprintf("%s#%d", path, i)
			c, f := convertOne(t, name, doc)
			if isJSON {
				continue
			}
			docs++
			if c {
				converted++
			}
			if f {
				fast++
			} else if c {
				slow = append(slow, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d YAML documents, %d converted, %d (%.1f%%) by treeJSON; the rest: %v",
		docs, converted, fast, 100*float64(fast)/float64(converted), slow)
	if converted < 200 {
		t.Fatalf("only %d documents converted: is the corpus there?", converted)
	}
	if fast < converted*95/100 {
		t.Errorf("treeJSON converted %d of %d documents, want at least 95%%", fast, converted)
	}
}

// TestParseTreeJSONMatchesSigsYAML loads every real-world, test and tricky
// file with and without treeJSON: the sets must be the same, objects, JSON,
// headers, List items, skips and problems alike.
func TestParseTreeJSONMatchesSigsYAML(t *testing.T) {
	files := map[string][]byte{}
	for _, dir := range []string{realWorldCorpus, "testdata", "../../examples", "../../testdata"} {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !extensions[strings.ToLower(filepath.Ext(path))] {
				return nil
			}
			if data, err := os.ReadFile(path); err == nil {
				files[path] = data
			}
			return nil
		})
	}
	var all strings.Builder
	for _, tt := range trickyDocs {
		if tt.name == "colliding keys" {
			continue // sigs.k8s.io/yaml's output varies from run to run
		}
		files["tricky/"+tt.name] = []byte(tt.doc)
		all.WriteString(tt.doc)
		all.WriteString("\n---\n")
	}
	files["tricky/all"] = []byte(all.String())
	for name, data := range files {
		fast, slow := &Set{Files: 1}, &Set{Files: 1}
		parseDocuments(fast, name, data, true)
		parseDocuments(slow, name, data, false)
		fast.sort()
		slow.sort()
		withoutComments(fast)
		withoutComments(slow)
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: loaded with treeJSON:\n%s\nwith sigs.k8s.io/yaml:\n%s", name, setString(fast), setString(slow))
		}
	}
}

// withoutComments clears the comments of the node trees of s's objects:
// fastYAML does not record them (nothing reads them), yaml.v3 does.
func withoutComments(s *Set) {
	var clear func(n *yaml.Node)
	clear = func(n *yaml.Node) {
		if n == nil {
			return
		}
		n.HeadComment, n.LineComment, n.FootComment = "", "", ""
		for _, c := range n.Content {
			clear(c)
		}
	}
	for i := range s.Objects {
		clear(s.Objects[i].node)
	}
}

// setString shows a Set for a failure message.
func setString(s *Set) string {
	var b strings.Builder
	for _, o := range s.Objects {
		fmt.Fprintf(&b, "object %s item %d %s/%s %s/%s %q at %s: %s\n", o.Source.File, o.Item, o.APIVersion, o.Kind, o.Namespace, o.Name, o.GenerateName, o.Start, o.JSON)
	}
	for _, sk := range s.Skipped {
		fmt.Fprintf(&b, "skipped %+v\n", sk)
	}
	for _, p := range s.Problems {
		fmt.Fprintf(&b, "problem %+v\n", p)
	}
	return b.String()
}

// TestYAMLFloatShape checks yamlFloatShape against the regular expression
// yaml.v2 uses.
func TestYAMLFloatShape(t *testing.T) {
	re := regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	parts := []string{"", "+", "-", "1", "12", ".", "e", "E", "x", "_", "0"}
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		if got, want := yamlFloatShape(prefix), re.MatchString(prefix); got != want {
			t.Errorf("yamlFloatShape(%q) = %v, want %v", prefix, got, want)
		}
		if n == 0 {
			return
		}
		for _, p := range parts {
			gen(prefix+p, n-1)
		}
	}
	gen("", 5)
}

// TestAppendJSON checks AppendJSONString and appendJSONFloat against
// json.Marshal.
func TestAppendJSON(t *testing.T) {
	strs := []string{"", "plain", "<>&", "\"\\", "\b\f\n\r\t\x00\x01\x1f\x7f", "\u2028\u2029\u0085", "\xff", "a\xc3", "\xed\xa0\x80",
		"日本語😀", "\ufffd", "mixed <a href=\"x\">\u2028\xfe</a>"}
	for c := range 256 {
		strs = append(strs, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	for _, s := range strs {
		want, _ := json.Marshal(s)
		if got := AppendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99999e-7, 1e-7, 1.5e-7, 1e20, 1e21, 9.99e20, 1e22, 123456789,
		math.MaxFloat64, math.SmallestNonzeroFloat64, -1e-300, 1e100, 1.0000000000000002, 100, 1e-10, 1.23e-100}
	for _, f := range floats {
		want, _ := json.Marshal(f)
		if got := appendJSONFloat(nil, f); !bytes.Equal(got, want) {
			t.Errorf("appendJSONFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

// TestResolvePlainAgreesWithYAMLv2 checks resolvePlain on scalars one at a
// time against what sigs.k8s.io/yaml makes of "v: <scalar>".
func TestResolvePlainAgreesWithYAMLv2(t *testing.T) {
	scalars := []string{"0", "-0", "1_000", "0x1F", "0o17", "017", "08", "0b11", "-0b11", "+0b11", "1e3", "1.", ".5", "+.5", "1e400",
		"9223372036854775808", "18446744073709551616", "2001-12-14", "1:30", "y", "Y", "n", "NO", "oN", "~", "null", "NULL", "nULL", "<<",
		"0x", "0b", "+", ".", "1_", "_1", "1__2", "0_x1", "-0x1", "+0o7", "0.", "-.0", "1e+3", "1E-3", "1e3.5"}
	for i := range 40 {
		scalars = append(scalars, strconv.Itoa(i*i*i-500), strconv.FormatFloat(float64(i)/7, 'g', -1, 64))
	}
	for _, s := range scalars {
		doc := "v: " + s + "\n"
		var want map[string]any
		js, err := sigsyaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Errorf("sigs.k8s.io/yaml fails on %q: %v", doc, err)
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		p := resolvePlain(s)
		var got any
		switch p.kind {
		case plainString:
			got = s
		case plainNull:
			got = nil
		case plainBool:
			got = p.b
		case plainInt:
			got = json.Number(strconv.FormatInt(p.i, 10))
		case plainUint:
			got = json.Number(strconv.FormatUint(p.u, 10))
		case plainFloat:
			got = json.Number(appendJSONFloat(nil, p.f))
		default:
			t.Errorf("resolvePlain(%q) = %+v, but sigs.k8s.io/yaml converts it", s, p)
			continue
		}
		if !reflect.DeepEqual(got, want["v"]) {
			t.Errorf("resolvePlain(%q) gives %#v, sigs.k8s.io/yaml %#v", s, got, want["v"])
		}
	}
}

// BenchmarkDocumentJSON converts every YAML document of the real-world
// corpus, parsed once beforehand, with treeJSON (fast) and with
// sigs.k8s.io/yaml (slow).
func BenchmarkDocumentJSON(b *testing.B) {
	type parsed struct {
		root yaml.Node
		text []byte
	}
	var docs []*parsed
	_ = filepath.WalkDir(realWorldCorpus, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !extensions[strings.ToLower(filepath.Ext(path))] {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || looksLikeJSON(data) {
			return nil
		}
		for _, doc := range documentsOf(data) {
			p := &parsed{text: doc}
			if yaml.Unmarshal(doc, &p.root) == nil && p.root.Kind == yaml.DocumentNode {
				docs = append(docs, p)
			}
		}
		return nil
	})
	if len(docs) == 0 {
		b.Skip("no real-world corpus")
	}
	for _, fast := range []bool{true, false} {
		b.Run(fmt.Sprintf("fast=%v", fast), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range docs {
					_, _ = documentJSON(&p.root, p.text, fast)
				}
			}
		})
	}
}
