package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// TestAppendFindingIsTheEncoders: appendFinding writes what json.Encoder
// with SetIndent("    ", "  ") writes for a finding, for every optional
// field set or not, and for strings with every kind of escape: quotes,
// backslashes, HTML characters, control characters, U+2028 and U+2029,
// invalid UTF-8, and multi-byte text.
func TestAppendFindingIsTheEncoders(t *testing.T) {
	strs := []string{"", "plain", `a "quoted" \ path`, "<script>&amp;</script>", "tab\there\nnew\rline\b\f\x00\x01\x1f\x7f",
		"line\u2028sep\u2029para", "bad \xff\xfe utf-8 \xc3", "é ü 日本 🙂", "trailing \\", "\x1b[31mred"}
	rnd := rand.New(rand.NewPCG(28, 1))
	pick := func() string { return strs[rnd.IntN(len(strs))] }
	var findings []lint.Finding
	for i := range 400 {
		f := lint.Finding{Rule: pick(), Severity: lint.Severity(i % 4), Message: pick() + pick(), File: pick(),
			Document: rnd.IntN(5), Line: rnd.IntN(1000) - 1, Column: rnd.IntN(80), Field: pick()}
		if i%2 == 0 {
			f.Object = &lint.ObjectRef{APIVersion: pick(), Kind: pick(), Namespace: pick(), Name: pick()}
		}
		if i%3 == 0 {
			f.Related = rnd.IntN(4) - 1
		}
		if i%5 == 0 {
			f.Rendered = &lint.Rendered{File: pick(), Document: rnd.IntN(3), Line: rnd.IntN(50), Column: rnd.IntN(9)}
		}
		if i%7 == 0 {
			f.Suppressed = &lint.Suppression{Kind: pick(), Reason: pick()}
		}
		findings = append(findings, f)
	}
	findings = append(findings, constructed().Findings...)
	for i := range findings {
		f := &findings[i]
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("    ", "  ")
		if err := enc.Encode(f); err != nil {
			t.Fatal(err)
		}
		want.Truncate(want.Len() - 1)
		if got := appendFinding(nil, f); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("appendFinding(%+v) =\n%s\nwant\n%s", *f, got, want.Bytes())
		}
	}
}

// BenchmarkJSONReport times the JSON report of 10,000 findings, about
// what the 10,000-object repo corpus gives.
func BenchmarkJSONReport(b *testing.B) {
	res := constructed()
	base := res.Findings
	for len(res.Findings) < 10000 {
		f := base[len(res.Findings)%len(base)]
		f.Line = len(res.Findings)
		res.Findings = append(res.Findings, f)
	}
	var out bytes.Buffer
	for b.Loop() {
		out.Reset()
		if err := JSON(&out, res, "v1.37.1"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAppendFindingKnowsEveryField fails when a field is added to a finding
// or to the types it holds without appendFinding being taught to write it:
// the seeded comparison with the encoder only covers the fields it fills.
func TestAppendFindingKnowsEveryField(t *testing.T) {
	written := map[reflect.Type][]string{
		reflect.TypeFor[lint.Finding]():     {"rule", "severity", "message", "file", "document", "line", "column", "field,omitempty", "object,omitempty", "related,omitempty", "rendered,omitempty", "suppressed,omitempty"},
		reflect.TypeFor[lint.ObjectRef]():   {"apiVersion", "kind", "namespace,omitempty", "name"},
		reflect.TypeFor[lint.Rendered]():    {"file", "document", "line", "column"},
		reflect.TypeFor[lint.Suppression](): {"kind", "reason"},
	}
	for typ, want := range written {
		var got []string
		for i := range typ.NumField() {
			if f := typ.Field(i); f.IsExported() {
				got = append(got, f.Tag.Get("json"))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s's JSON fields are %q; appendFinding writes %q: teach it the change", typ, got, want)
		}
	}
}
