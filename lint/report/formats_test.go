package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
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
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Cases    []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Failures  []struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Errors    []struct{} `xml:"error"`
			SystemOut string     `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnit(t *testing.T) {
	res := constructed()
	res.Errors = []error{errors.New("missing.yaml: no such file or directory")}
	var b strings.Builder
	if err := JUnit(&b, res); err != nil {
		t.Fatal(err)
	}
	var got junitOut
	if err := xml.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatalf("JUnit output is not XML: %v\n%s", err, b.String())
	}
	type tc struct{ suite, class, name, failures, out string }
	var cases []tc
	tests, failures, errs := 0, 0, 0
	for _, s := range got.Suites {
		st, sf, se := 0, 0, 0
		for _, c := range s.Cases {
			var fs []string
			for _, f := range c.Failures {
				fs = append(fs, f.Type+"|"+f.Message+"|"+f.Body)
			}
			cases = append(cases, tc{suite: s.Name, class: c.Classname, name: c.Name, failures: strings.Join(fs, "\n"), out: c.SystemOut})
			st++
			if len(c.Failures) > 0 {
				sf++
			}
			if len(c.Errors) > 0 {
				se++
			}
		}
		if s.Tests != st || s.Failures != sf || s.Errors != se {
			t.Errorf("suite %s: tests=%d failures=%d errors=%d, want %d %d %d", s.Name, s.Tests, s.Failures, s.Errors, st, sf, se)
		}
		tests, failures, errs = tests+st, failures+sf, errs+se
	}
	if got.Tests != tests || got.Failures != failures || got.Errors != errs {
		t.Errorf("testsuites: tests=%d failures=%d errors=%d, want %d %d %d", got.Tests, got.Failures, got.Errors, tests, failures, errs)
	}
	want := []tc{
		{suite: "k8s/a,b:c.yaml", class: "k8s/a,b:c.yaml", name: "unparsable document at line 2",
			failures: "input/unparsable|cannot parse YAML: 100% broken\nline two|k8s/a,b:c.yaml:2:1: error input/unparsable: cannot parse YAML: 100% broken\nline two"},
		{suite: "k8s/a,b:c.yaml", class: "k8s/a,b:c.yaml", name: "Job ops/migrate",
			failures: "job/no-ttl|finished Job is never cleaned up|k8s/a,b:c.yaml:5:3: info job/no-ttl: finished Job is never cleaned up"},
		{suite: "k8s/web.yaml", class: "k8s/web.yaml", name: "Deployment shop/web",
			failures: `api/invalid|spec.replicas: Invalid value: -1: must be "<&>" 0|k8s/web.yaml:7:13: error api/invalid: spec.replicas: Invalid value: -1: must be "<&>" 0` + "\n" +
				"rollout/no-readiness-probe|no readinessProbe|k8s/web.yaml:20:9: warning rollout/no-readiness-probe: no readinessProbe",
			out: "k8s/web.yaml:11:7: warning rollout/downtime: every pod down (suppressed by annotation: single replica by design)"},
		{suite: "k8s/web.yaml", class: "k8s/web.yaml", name: "Service shop/web"},
		{suite: "kubectl-workload", class: "kubectl-workload", name: "read inputs"},
	}
	if len(cases) != len(want) {
		t.Fatalf("JUnit testcases = %+v\nwant %+v", cases, want)
	}
	for i := range want {
		if cases[i] != want[i] {
			t.Errorf("testcase %d = %+v\nwant %+v", i, cases[i], want[i])
		}
	}
	if got.Tests != 5 || got.Failures != 3 || got.Errors != 1 {
		t.Errorf("testsuites tests=%d failures=%d errors=%d, want 5, 3 and 1", got.Tests, got.Failures, got.Errors)
	}
}

// TestIndentedJSONIsTheEncoders: the JSON report, whose findings are encoded
// side by side, is byte for byte what a json.Encoder with two-space indent
// writes: with no finding, with special characters, and with enough
// findings to fill several chunks and a partial last one.
func TestIndentedJSONIsTheEncoders(t *testing.T) {
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
