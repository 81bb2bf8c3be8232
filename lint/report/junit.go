package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// The JUnit XML elements this printer writes, in the shape Jenkins (junit
// plugin), GitLab (artifacts:reports:junit) and GitHub test reporters read:
// testsuites > testsuite (one per file) > testcase (one per finding, and one
// per object without any) > failure, skipped or system-out. Those tools
// count a testcase as failed when it holds a failure element, as skipped
// when it holds a skipped element, and as passed otherwise; they key a
// testcase by classname and name, so every name is unique within a file.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Classname string          `xml:"classname,attr"`
		Name      string          `xml:"name,attr"`
		File      string          `xml:"file,attr,omitempty"`
		Line      int             `xml:"line,attr,omitempty"`
		Failure   *junitProblem   `xml:"failure"`
		Errors    []junitProblem  `xml:"error"`
		Skipped   *junitSkipped   `xml:"skipped"`
		SystemOut *junitSystemOut `xml:"system-out"`
	}
	junitProblem struct {
		Type    string `xml:"type,attr,omitempty"`
		Message string `xml:"message,attr"`
		Body    string `xml:",chardata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
	junitSystemOut struct {
		Text string `xml:",chardata"`
	}
)

// junitRunSuite names the suite that carries tool errors (a path that does
// not exist), which belong to no file.
const junitRunSuite = "kubectl-workload"

// findingLine renders a finding as the text format does, without the object
// (the testcase names it).
func findingLine(f lint.Finding) string {
	return fmt.Sprintf("%s:%d:%d: %s %s: %s", f.File, f.Line, f.Column, f.Severity, f.Rule, f.Message)
}

// JUnit writes the result as JUnit XML, a testsuite per file (in the
// result's order, which is sorted), with a testcase per finding, named
// "rule: Kind namespace/name at line:col" (or "... document at line N" for
// a document without an object), classname and file the file:
//
//   - a finding at or above failOn (--fail-on) is a failed testcase, whose
//     failure has the rule id as its type;
//   - a finding below it passes, with the finding in its system-out: the
//     run exits 0 for it, and the report agrees (a run with only infos has
//     no failure);
//   - a suppressed finding is a skipped testcase that says what silenced it.
//
// An object without findings is a passing testcase named "Kind
// namespace/name", so that tests counts every object linted. Tool errors
// are error testcases of a suite of their own.
func JUnit(w io.Writer, res *lint.Result, failOn lint.Severity) error {
	out := junitSuites{Name: "kubectl-workload lint"}
	suite := func(file string) *junitSuite {
		if n := len(out.Suites); n > 0 && out.Suites[n-1].Name == file {
			return &out.Suites[n-1]
		}
		for i := range out.Suites {
			if out.Suites[i].Name == file {
				return &out.Suites[i]
			}
		}
		out.Suites = append(out.Suites, junitSuite{Name: file})
		return &out.Suites[len(out.Suites)-1]
	}
	withFindings := map[string]bool{}
	for _, f := range res.Findings {
		if f.Object != nil {
			withFindings[fmt.Sprintf("%s\x00%d\x00%s", f.File, f.Document, f.Object)] = true
		}
	}
	// The objects and the findings, in file order: the result lists objects
	// by file and document, and findings sorted by file, document, line.
	type item struct {
		file     string
		document int
		line     int
		tc       junitCase
	}
	var items []item
	for _, o := range res.Linted {
		if withFindings[fmt.Sprintf("%s\x00%d\x00%s", o.File, o.Document, o.Object)] {
			continue
		}
		items = append(items, item{file: o.File, document: o.Document, tc: junitCase{Classname: o.File, Name: o.Object.String(), File: o.File}})
	}
	for _, f := range res.Findings {
		where := fmt.Sprintf("document at line %d", f.Line)
		if f.Object != nil {
			where = fmt.Sprintf("%s at %d:%d", f.Object, f.Line, f.Column)
		}
		tc := junitCase{Classname: f.File, Name: f.Rule + ": " + where, File: f.File, Line: f.Line}
		switch {
		case f.Suppressed != nil:
			tc.Skipped = &junitSkipped{Message: fmt.Sprintf("suppressed by %s: %s", f.Suppressed.Kind, f.Suppressed.Reason)}
			tc.SystemOut = &junitSystemOut{Text: findingLine(f)}
		case f.Severity >= failOn:
			tc.Failure = &junitProblem{Type: f.Rule, Message: f.Message, Body: findingLine(f)}
		default:
			tc.SystemOut = &junitSystemOut{Text: findingLine(f)}
		}
		items = append(items, item{file: f.File, document: f.Document, line: f.Line, tc: tc})
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.file != b.file {
			return a.file < b.file
		}
		return a.document < b.document
	})
	for _, it := range items {
		s := suite(it.file)
		s.Cases = append(s.Cases, it.tc)
		s.Tests++
		switch {
		case it.tc.Failure != nil:
			s.Failures++
		case it.tc.Skipped != nil:
			s.Skipped++
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
		out.Skipped += s.Skipped
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
