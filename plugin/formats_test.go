package plugin

import (
	"encoding/json"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"
)

// driverVersion matches the SARIF driver's version, which depends on how the
// test binary was built; golden files hold VERSION instead.
var driverVersion = regexp.MustCompile(`("name": "kubectl-workload",\s*"version": )"[^"]*"`)

func TestLintFormatsGolden(t *testing.T) {
	suppressed := []string{"--config", "testdata/suppressed-config.yaml", "testdata/suppressed.yaml"}
	tests := []struct {
		name     string
		args     []string
		wantExit int
	}{
		{name: "examples.sarif", args: []string{"lint", "-o", "sarif", "../examples"}, wantExit: 1},
		{name: "examples.junit.xml", args: []string{"lint", "-o", "junit", "../examples"}, wantExit: 1},
		{name: "examples.github.txt", args: []string{"lint", "-o", "github", "../examples"}, wantExit: 1},
		{name: "suppressed.sarif", args: append([]string{"lint", "-o", "sarif"}, suppressed...), wantExit: 0},
		{name: "suppressed.junit.xml", args: append([]string{"lint", "-o", "junit"}, suppressed...), wantExit: 0},
		{name: "suppressed.github.txt", args: append([]string{"lint", "-o", "github"}, suppressed...), wantExit: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", tt.args...)
			if code != tt.wantExit {
				t.Errorf("exit code = %d, want %d (stderr: %s)", code, tt.wantExit, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr = %q, want nothing", errOut)
			}
			golden(t, tt.name, driverVersion.ReplaceAllString(out, `$1"VERSION"`))
		})
	}
}

// TestLintSARIFSuppressions checks, end to end, that an ignore annotation and
// a configuration exemption reach SARIF as suppressions of the right kind.
func TestLintSARIFSuppressions(t *testing.T) {
	out, _, code := run(t, "", "lint", "-o", "sarif", "--config", "testdata/suppressed-config.yaml", "testdata/suppressed.yaml")
	if code != ExitClean {
		t.Errorf("exit code = %d, want 0: every finding is suppressed", code)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID       string `json:"ruleId"`
				Suppressions []struct {
					Kind          string `json:"kind"`
					Justification string `json:"justification"`
				} `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("-o sarif = %v, %d runs; want one run of JSON\n%s", err, len(log.Runs), out)
	}
	kinds := map[string]string{}
	for _, r := range log.Runs[0].Results {
		if len(r.Suppressions) != 1 {
			t.Errorf("%s has %d suppressions, want 1", r.RuleID, len(r.Suppressions))
			continue
		}
		kinds[r.Suppressions[0].Kind] = r.Suppressions[0].Justification
	}
	if !strings.Contains(kinds["inSource"], "Blue/green switch") || !strings.Contains(kinds["external"], "TICKET-42") {
		t.Errorf("suppressions = %v, want inSource from the annotation and external from the configuration", kinds)
	}
}

// TestLintJUnitFailsOnlyUnsuppressed checks the JUnit counts against the
// text output of the same run: one testcase per finding, failed for the
// unsuppressed ones at or above --fail-on (the exit code's), passed below it.
func TestLintJUnitFailsOnlyUnsuppressed(t *testing.T) {
	for _, args := range [][]string{
		{"../examples"},
		{"--fail-on", "warning", "../examples"},
		{"--config", "testdata/suppressed-config.yaml", "testdata/suppressed.yaml"},
	} {
		out, _, code := run(t, "", append([]string{"lint", "-o", "junit"}, args...)...)
		var suites struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Cases []struct {
					Failures []struct{} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(out), &suites); err != nil {
			t.Fatalf("lint -o junit %v is not XML: %v\n%s", args, err, out)
		}
		text, _, _ := run(t, "", append([]string{"lint"}, args...)...)
		failOn := "error"
		if args[0] == "--fail-on" {
			failOn = args[1]
		}
		failing := 0
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, ": error ") || (failOn == "warning" && strings.Contains(line, ": warning ")) {
				failing++
			}
		}
		failures := 0
		for _, s := range suites.Suites {
			for _, c := range s.Cases {
				failures += len(c.Failures)
			}
		}
		if failures != failing || suites.Failures != failing {
			t.Errorf("lint -o junit %v: %d failure elements, failures=%d; want one per unsuppressed finding at or above %s (%d)", args, failures, suites.Failures, failOn, failing)
		}
		if (failing > 0) != (code == ExitFindings) {
			t.Errorf("lint -o junit %v: exit %d with %d failures: the report and the exit code disagree", args, code, failing)
		}
		if suites.Tests < failures {
			t.Errorf("lint -o junit %v: tests=%d failures=%d, want failing testcases counted among the tests", args, suites.Tests, suites.Failures)
		}
	}
}
