package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// constructed is a small result with what the printers must handle: two
// files, an object with two findings, a clean object, a suppressed finding,
// a document that does not parse, and special characters.
func constructed() *lint.Result {
	web := lint.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"}
	svc := lint.ObjectRef{APIVersion: "v1", Kind: "Service", Namespace: "shop", Name: "web"}
	job := lint.ObjectRef{APIVersion: "batch/v1", Kind: "Job", Namespace: "ops", Name: "migrate"}
	res := &lint.Result{
		Files: 2, Documents: 4, Objects: 3,
		Linted: []lint.LintedObject{
			{File: "k8s/web.yaml", Document: 0, Object: web},
			{File: "k8s/web.yaml", Document: 1, Object: svc},
			{File: "k8s/a,b:c.yaml", Document: 1, Object: job},
		},
		Findings: []lint.Finding{
			{Rule: "input/unparsable", Severity: lint.SeverityError, Message: "cannot parse YAML: 100% broken\nline two",
				File: "k8s/a,b:c.yaml", Document: 0, Line: 2, Column: 1},
			{Rule: "job/no-ttl", Severity: lint.SeverityInfo, Message: "finished Job is never cleaned up",
				File: "k8s/a,b:c.yaml", Document: 1, Line: 5, Column: 3, Object: &job},
			{Rule: "api/invalid", Severity: lint.SeverityError, Message: `spec.replicas: Invalid value: -1: must be "<&>" 0`,
				File: "k8s/web.yaml", Document: 0, Line: 7, Column: 13, Object: &web},
			{Rule: "rollout/no-readiness-probe", Severity: lint.SeverityWarning, Message: "no readinessProbe",
				File: "k8s/web.yaml", Document: 0, Line: 20, Column: 9, Object: &web},
			{Rule: "rollout/downtime", Severity: lint.SeverityWarning, Message: "every pod down",
				File: "k8s/web.yaml", Document: 0, Line: 11, Column: 7, Object: &web,
				Suppressed: &lint.Suppression{Kind: "annotation", Reason: "single replica by design"}},
		},
	}
	lint.SortFindings(res.Findings)
	return res
}

func TestGitHub(t *testing.T) {
	var b strings.Builder
	if err := GitHub(&b, constructed()); err != nil {
		t.Fatal(err)
	}
	want := `::error file=k8s/a%2Cb%3Ac.yaml,line=2,col=1,title=input/unparsable::cannot parse YAML: 100%25 broken%0Aline two
::notice file=k8s/a%2Cb%3Ac.yaml,line=5,col=3,title=job/no-ttl::finished Job is never cleaned up (Job ops/migrate)
::error file=k8s/web.yaml,line=7,col=13,title=api/invalid::spec.replicas: Invalid value: -1: must be "<&>" 0 (Deployment shop/web)
::warning file=k8s/web.yaml,line=20,col=9,title=rollout/no-readiness-probe::no readinessProbe (Deployment shop/web)
3 objects in 2 files: 2 errors, 1 warning, 1 info, 1 suppressed
`
	if got := b.String(); got != want {
		t.Errorf("GitHub() =\n%s\nwant\n%s", got, want)
	}
}

func TestGitHubEscaping(t *testing.T) {
	tests := []struct {
		in, data, property string
	}{
		{in: "plain", data: "plain", property: "plain"},
		{in: "50%", data: "50%25", property: "50%25"},
		{in: "a\r\nb", data: "a%0D%0Ab", property: "a%0D%0Ab"},
		{in: "a:b,c", data: "a:b,c", property: "a%3Ab%2Cc"},
		{in: "%0A", data: "%250A", property: "%250A"},
	}
	for _, tt := range tests {
		if got := githubData.Replace(tt.in); got != tt.data {
			t.Errorf("githubData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := githubProperty.Replace(tt.in); got != tt.property {
			t.Errorf("githubProperty(%q) = %q, want %q", tt.in, got, tt.property)
		}
	}
}

// junitOut is the JUnit XML as a consumer reads it.
type junitOut struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Failures  []struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped []struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			Errors    []struct{} `xml:"error"`
			SystemOut string     `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// junitCases reads a JUnit report as Jenkins and GitLab do: a testcase
// fails when it holds a failure, is skipped when it holds a skipped, and
// passes otherwise; the counts on the suites must agree.
func junitCases(t *testing.T, xmlText string) (junitOut, []string) {
	t.Helper()
	var got junitOut
	if err := xml.Unmarshal([]byte(xmlText), &got); err != nil {
		t.Fatalf("JUnit output is not XML: %v\n%s", err, xmlText)
	}
	var cases []string
	tests, failures, errs, skipped := 0, 0, 0, 0
	names := map[string]bool{}
	for _, s := range got.Suites {
		st, sf, se, ss := 0, 0, 0, 0
		for _, c := range s.Cases {
			key := c.Classname + " | " + c.Name
			if names[key] {
				t.Errorf("two testcases are %q: consumers merge them", key)
			}
			names[key] = true
			state := "passed"
			switch {
			case len(c.Failures) > 0:
				state = "failed " + c.Failures[0].Type + "|" + c.Failures[0].Message + "|" + c.Failures[0].Body
				sf++
			case len(c.Errors) > 0:
				state = "error"
				se++
			case len(c.Skipped) > 0:
				state = "skipped " + c.Skipped[0].Message
				ss++
			}
			if len(c.Failures) > 1 {
				t.Errorf("testcase %q holds %d failures, want one per testcase", key, len(c.Failures))
			}
			if c.SystemOut != "" {
				state += " out " + c.SystemOut
			}
			cases = append(cases, s.Name+" | "+key+" | "+state)
			st++
		}
		if s.Tests != st || s.Failures != sf || s.Errors != se || s.Skipped != ss {
			t.Errorf("suite %s: tests=%d failures=%d errors=%d skipped=%d, want %d %d %d %d", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, st, sf, se, ss)
		}
		tests, failures, errs, skipped = tests+st, failures+sf, errs+se, skipped+ss
	}
	if got.Tests != tests || got.Failures != failures || got.Errors != errs || got.Skipped != skipped {
		t.Errorf("testsuites: tests=%d failures=%d errors=%d skipped=%d, want %d %d %d %d", got.Tests, got.Failures, got.Errors, got.Skipped, tests, failures, errs, skipped)
	}
	return got, cases
}

func TestJUnit(t *testing.T) {
	res := constructed()
	res.Errors = []error{errors.New("missing.yaml: no such file or directory")}
	var b strings.Builder
	if err := JUnit(&b, res, lint.SeverityWarning); err != nil {
		t.Fatal(err)
	}
	got, cases := junitCases(t, b.String())
	want := []string{
		"k8s/a,b:c.yaml | k8s/a,b:c.yaml | input/unparsable: document at line 2 | failed input/unparsable|cannot parse YAML: 100% broken\nline two|k8s/a,b:c.yaml:2:1: error input/unparsable: cannot parse YAML: 100% broken\nline two",
		"k8s/a,b:c.yaml | k8s/a,b:c.yaml | job/no-ttl: Job ops/migrate at 5:3 | passed out k8s/a,b:c.yaml:5:3: info job/no-ttl: finished Job is never cleaned up",
		`k8s/web.yaml | k8s/web.yaml | api/invalid: Deployment shop/web at 7:13 | failed api/invalid|spec.replicas: Invalid value: -1: must be "<&>" 0|k8s/web.yaml:7:13: error api/invalid: spec.replicas: Invalid value: -1: must be "<&>" 0`,
		"k8s/web.yaml | k8s/web.yaml | rollout/downtime: Deployment shop/web at 11:7 | skipped suppressed by annotation: single replica by design out k8s/web.yaml:11:7: warning rollout/downtime: every pod down",
		"k8s/web.yaml | k8s/web.yaml | rollout/no-readiness-probe: Deployment shop/web at 20:9 | failed rollout/no-readiness-probe|no readinessProbe|k8s/web.yaml:20:9: warning rollout/no-readiness-probe: no readinessProbe",
		"k8s/web.yaml | k8s/web.yaml | Service shop/web | passed",
		"kubectl-workload | kubectl-workload | read inputs | error",
	}
	if strings.Join(cases, "\n") != strings.Join(want, "\n") {
		t.Errorf("JUnit testcases =\n%s\nwant\n%s", strings.Join(cases, "\n"), strings.Join(want, "\n"))
	}
	if got.Tests != 7 || got.Failures != 3 || got.Errors != 1 || got.Skipped != 1 {
		t.Errorf("testsuites tests=%d failures=%d errors=%d skipped=%d, want 7, 3, 1 and 1", got.Tests, got.Failures, got.Errors, got.Skipped)
	}
}

// TestJUnitOnlyInfosHasNoFailure: a run whose findings are all below
// --fail-on exits 0, and its JUnit report fails nothing.
func TestJUnitOnlyInfosHasNoFailure(t *testing.T) {
	job := lint.ObjectRef{APIVersion: "batch/v1", Kind: "Job", Namespace: "ops", Name: "migrate"}
	res := &lint.Result{
		Files: 1, Documents: 1, Objects: 1,
		Linted: []lint.LintedObject{{File: "job.yaml", Object: job}},
		Findings: []lint.Finding{
			{Rule: "job/no-ttl", Severity: lint.SeverityInfo, Message: "never cleaned up", File: "job.yaml", Line: 5, Column: 3, Object: &job},
			{Rule: "availability/no-pdb", Severity: lint.SeverityInfo, Message: "no PDB", File: "job.yaml", Line: 1, Column: 1, Object: &job},
		},
	}
	lint.SortFindings(res.Findings)
	for _, failOn := range []lint.Severity{lint.SeverityError, lint.SeverityWarning} {
		var b strings.Builder
		if err := JUnit(&b, res, failOn); err != nil {
			t.Fatal(err)
		}
		got, cases := junitCases(t, b.String())
		if got.Failures != 0 || got.Tests != 2 || res.Fails(failOn) {
			t.Errorf("JUnit(failOn %v) of infos only: tests=%d failures=%d, want 2 and 0:\n%s", failOn, got.Tests, got.Failures, strings.Join(cases, "\n"))
		}
	}
	var b strings.Builder
	if err := JUnit(&b, res, lint.SeverityInfo); err != nil {
		t.Fatal(err)
	}
	if got, _ := junitCases(t, b.String()); got.Failures != 2 {
		t.Errorf("JUnit(failOn info) of two infos: failures=%d, want 2", got.Failures)
	}
}

// TestIndentedJSONIsTheEncoders: the JSON report, whose findings are encoded
// side by side, is byte for byte what a json.Encoder with two-space indent
// writes: with no finding, with special characters, and with enough
// findings to fill several chunks and a partial last one; with the default
// chunks, and with small ones in groups that do not divide them evenly, so
// that several groups are written one after another.
func TestIndentedJSONIsTheEncoders(t *testing.T) {
	for _, size := range []struct{ chunk, group int }{{jsonChunk, jsonGroup}, {7, 3}} {
		t.Run(fmt.Sprintf("chunk=%d,group=%d", size.chunk, size.group), func(t *testing.T) {
			defer func(chunk, group int) { jsonChunk, jsonGroup = chunk, group }(jsonChunk, jsonGroup)
			jsonChunk, jsonGroup = size.chunk, size.group
			testIndentedJSONIsTheEncoders(t)
		})
	}
}

func testIndentedJSONIsTheEncoders(t *testing.T) {
	many := constructed()
	for i := range 1000 {
		f := many.Findings[i%len(many.Findings)]
		f.Message += strings.Repeat("\u2028<é>", i%3)
		f.Line = i
		f.Related = i % 7
		many.Findings = append(many.Findings, f)
	}
	for name, res := range map[string]*lint.Result{"none": {}, "constructed": constructed(), "many": many} {
		var got bytes.Buffer
		if err := JSON(&got, res, "v1.37.1\"<"); err != nil {
			t.Fatal(err)
		}
		findings := res.Findings
		if findings == nil {
			findings = []lint.Finding{}
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(jsonReport{SchemaVersion: 1, KubernetesVersion: "v1.37.1\"<", Findings: findings, Summary: jsonSummary{
			Files: res.Files, Documents: res.Documents, Objects: res.Objects, Skipped: len(res.Skipped), Excluded: res.Excluded,
			Errors: res.Count(lint.SeverityError), Warnings: res.Count(lint.SeverityWarning), Infos: res.Count(lint.SeverityInfo),
			Suppressed: res.CountSuppressed(),
		}}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: the report differs from the encoder's:\n%s\n---\n%s", name, got.Bytes()[:min(400, got.Len())], want.Bytes()[:min(400, want.Len())])
		}
	}
}
