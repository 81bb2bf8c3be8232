package report

import (
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/lint"
)

// forged is what hostile input puts in names, files and messages: a line
// of its own that a GitHub Actions runner would execute, and terminal
// control.
const forged = "\n::error file=x::forged\r\x1b[31m\u2028"

// forgedResult holds forged in every value that comes from the input.
func forgedResult() *lint.Result {
	obj := lint.ObjectRef{APIVersion: "v1", Kind: "Pod" + forged, Namespace: "ns" + forged, Name: "name" + forged}
	return &lint.Result{
		Files: 1, Documents: 1, Objects: 1,
		Linted: []lint.LintedObject{{File: "f" + forged + ".yaml", Object: obj}},
		Findings: []lint.Finding{
			{Rule: "policy/x" + forged, Severity: lint.SeverityError, Message: "msg" + forged,
				File: "f" + forged + ".yaml", Line: 1, Column: 1, Object: &obj},
			{Rule: "input/unparsable", Severity: lint.SeverityWarning, Message: forged,
				File: "::error file=y::at the start of a line.yaml", Line: 1, Column: 1},
		},
		Skipped:       []manifest.Skipped{{Source: manifest.Source{File: ":" + forged}, Reason: "r" + forged}},
		Excluded:      1,
		ExcludedNamed: []lint.Exclusion{{File: "e" + forged, Pattern: "p" + forged, Config: "c" + forged}},
	}
}

// TestNoForgedLines: in every format printed to a terminal or a CI log, no
// line starts with "::" unless it is the github format's own annotation,
// and no raw control character (ESC, CR, a line separator) is printed
// (JUnit is XML, escaped by its encoder).
func TestNoForgedLines(t *testing.T) {
	for _, format := range []string{"text", "github", "junit", "skipped"} {
		t.Run(format, func(t *testing.T) {
			var b strings.Builder
			var err error
			if format == "skipped" {
				err = Skipped(&b, forgedResult())
			} else {
				err = WriteOptions(&b, format, forgedResult(), nil, "v1.37.1", Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			out := b.String()
			raw := "\r\x1b\u2028"
			if format == "junit" {
				raw = "\x1b" // XML escapes the rest (&#xD;); ESC, not allowed in XML, becomes U+FFFD
			}
			if strings.ContainsAny(out, raw) {
				t.Errorf("-o %s output holds a raw control character:\n%q", format, out)
			}
			annotations := 0
			for _, l := range strings.Split(out, "\n") {
				if !strings.HasPrefix(l, "::") {
					continue
				}
				if format == "github" && (strings.HasPrefix(l, "::error file=f") || strings.HasPrefix(l, "::warning file=%3A%3Aerror")) {
					annotations++
					continue
				}
				t.Errorf("-o %s output has a forged line %q", format, l)
			}
			if format == "github" && annotations != 2 {
				t.Errorf("-o github: %d annotations, want 2:\n%s", annotations, out)
			}
			if strings.Contains(out, "forged") && !strings.Contains(out, `\n::error file=x::forged`) && format != "junit" {
				t.Errorf("-o %s output does not show the newline as an escape:\n%s", format, out)
			}
		})
	}
}
