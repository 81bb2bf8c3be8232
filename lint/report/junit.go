package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// The JUnit XML elements this printer writes, in the shape CI systems
// (Jenkins, GitLab, Azure Pipelines, GitHub test reporters) render:
// testsuites > testsuite (one per file) > testcase (one per object) > failure
// (one per unsuppressed finding).
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Classname string          `xml:"classname,attr"`
		Name      string          `xml:"name,attr"`
		Failures  []junitProblem  `xml:"failure"`
		Errors    []junitProblem  `xml:"error"`
		SystemOut *junitSystemOut `xml:"system-out"`
	}
	junitProblem struct {
		Type    string `xml:"type,attr,omitempty"`
		Message string `xml:"message,attr"`
		Body    string `xml:",chardata"`
	}
	junitSystemOut struct {
		Text string `xml:",chardata"`
	}
)

// junitRunSuite names the suite that carries tool errors (a path that does
// not exist), which belong to no file.
const junitRunSuite = "kubectl-workload"

// caseKey identifies a testcase: an object in a document, or a document
// without an object (one that does not parse), which has no ref.
type caseKey struct {
	file     string
	document int
	ref      string
	line     int // object-less documents only: several may share an index
}

// findingLine renders a finding as the text format does, without the object
// (the testcase names it).
func findingLine(f lint.Finding) string {
	return fmt.Sprintf("%s:%d:%d: %s %s: %s", f.File, f.Line, f.Column, f.Severity, f.Rule, f.Message)
}

// JUnit writes the result as JUnit XML: a testsuite per file, a testcase per
// object (classname the file, name "Kind namespace/name"), and a failure per
// unsuppressed finding, whatever its severity, with the rule id as its type.
// A document that does not parse is a testcase of its own. Suppressed
// findings are listed in the testcase's system-out and do not fail it. The
// failures attributes count failing testcases, as JUnit consumers expect, so
// they never exceed tests; errors count tool errors.
func JUnit(w io.Writer, res *lint.Result) error {
	type entry struct {
		key  caseKey
		seq  int
		tc   junitCase
		fail bool
	}
	entries := map[caseKey]*entry{}
	add := func(k caseKey, name string) *entry {
		e, ok := entries[k]
		if !ok {
			e = &entry{key: k, seq: len(entries), tc: junitCase{Classname: k.file, Name: name}}
			entries[k] = e
		}
		return e
	}
	for _, o := range res.Linted {
		add(caseKey{file: o.File, document: o.Document, ref: o.Object.String()}, o.Object.String())
	}
	for _, f := range res.Findings {
		var e *entry
		if f.Object != nil {
			e = add(caseKey{file: f.File, document: f.Document, ref: f.Object.String()}, f.Object.String())
		} else {
			name := fmt.Sprintf("document at line %d", f.Line)
			if f.Rule == lint.RuleUnparsable {
				name = "unparsable " + name
			}
			e = add(caseKey{file: f.File, document: f.Document, line: f.Line}, name)
		}
		if s := f.Suppressed; s != nil {
			line := fmt.Sprintf("%s (suppressed by %s: %s)", findingLine(f), s.Kind, s.Reason)
			if e.tc.SystemOut == nil {
				e.tc.SystemOut = &junitSystemOut{Text: line}
			} else {
				e.tc.SystemOut.Text += "\n" + line
			}
			continue
		}
		e.tc.Failures = append(e.tc.Failures, junitProblem{Type: f.Rule, Message: f.Message, Body: findingLine(f)})
		e.fail = true
	}

	sorted := make([]*entry, 0, len(entries))
	for _, e := range entries {
		sorted = append(sorted, e)
	}
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		switch {
		case a.key.file != b.key.file:
			return a.key.file < b.key.file
		case a.key.document != b.key.document:
			return a.key.document < b.key.document
		default:
			return a.seq < b.seq
		}
	})

	out := junitSuites{Name: "kubectl-workload lint"}
	for _, e := range sorted {
		if n := len(out.Suites); n == 0 || out.Suites[n-1].Name != e.key.file {
			out.Suites = append(out.Suites, junitSuite{Name: e.key.file})
		}
		s := &out.Suites[len(out.Suites)-1]
		s.Cases = append(s.Cases, e.tc)
		s.Tests++
		if e.fail {
			s.Failures++
		}
	}
	if len(res.Errors) > 0 {
		tc := junitCase{Classname: junitRunSuite, Name: "read inputs"}
		for _, err := range res.Errors {
			tc.Errors = append(tc.Errors, junitProblem{Message: err.Error(), Body: err.Error()})
		}
		out.Suites = append(out.Suites, junitSuite{Name: junitRunSuite, Tests: 1, Errors: 1, Cases: []junitCase{tc}})
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
	}

	b, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	if _, err := io.WriteString(w, xml.Header+string(b)+"\n"); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	return nil
}
