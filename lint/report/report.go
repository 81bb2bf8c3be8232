// Package report renders a lint.Result: as text for people and as JSON for
// programs. Every printer writes to the writer it is given.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/each"
	"github.com/kubectl-workload/kubectl-workload/internal/safetext"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// Formats are the names accepted by -o.
var Formats = []string{"text", "json", "sarif", "junit", "github"}

// FormatHelp describes each format, for completion menus.
var FormatHelp = map[string]string{
	"text":   "one line per finding, file:line:col",
	"json":   "stable, versioned JSON (docs/output.md)",
	"sarif":  "SARIF 2.1.0, for GitHub code scanning",
	"junit":  "JUnit XML, a testcase per object",
	"github": "GitHub Actions annotations",
}

// Options change how a result is rendered.
type Options struct {
	// Verbose is --verbose: the skipped documents are named on standard error, so
	// the summary does not point at --verbose.
	Verbose bool
	// FailOn is --fail-on: JUnit fails the testcases of findings at or
	// above it, as the exit code does. The zero value is info: every
	// finding fails.
	FailOn lint.Severity
}

// Write renders res in the named format. catalogue is the built-in rules'
// metadata (linter.Rules()), which SARIF describes.
func Write(w io.Writer, format string, res *lint.Result, catalogue []rules.Rule, kubernetesVersion string) error {
	return WriteOptions(w, format, res, catalogue, kubernetesVersion, Options{})
}

// WriteOptions is Write with options.
func WriteOptions(w io.Writer, format string, res *lint.Result, catalogue []rules.Rule, kubernetesVersion string, opts Options) error {
	switch format {
	case "text", "":
		return text(w, res, opts)
	case "json":
		return JSON(w, res, kubernetesVersion)
	case "sarif":
		return SARIF(w, res, catalogue, kubernetesVersion)
	case "junit":
		return JUnit(w, res, opts.FailOn)
	case "github":
		return gitHub(w, res, opts)
	default:
		return fmt.Errorf("unknown output format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
}

// Text writes one line per finding,
//
//	path:line:col: severity rule: message (Kind namespace/name)
//
// in the result's order, then a one-line summary.
func Text(w io.Writer, res *lint.Result) error { return text(w, res, Options{}) }

func text(w io.Writer, res *lint.Result, opts Options) error {
	var b strings.Builder
	for _, f := range res.Findings {
		if f.Suppressed != nil {
			continue // counted in the summary; -o json and -o sarif list them
		}
		// One line per finding, whatever its values hold (safetext).
		line := fmt.Sprintf("%s:%d:%d: %s %s: %s", f.File, f.Line, f.Column, f.Severity, f.Rule, f.Message)
		if f.Object != nil {
			line += fmt.Sprintf(" (%s)", f.Object)
		}
		b.WriteString(safetext.Line(line))
		b.WriteByte('\n')
	}
	b.WriteString(safetext.Line(summary(res, opts)))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Summary is the closing line of the text format.
func Summary(res *lint.Result) string { return summary(res, Options{}) }

func summary(res *lint.Result, opts Options) string {
	if res.Files == 0 && res.Objects == 0 {
		if len(res.ExcludedNamed) > 0 {
			return "no files read: " + excludedNamed(res.ExcludedNamed)
		}
		if res.Excluded > 0 {
			return fmt.Sprintf("no files read: the configuration's exclude patterns leave out the %s found", plural(res.Excluded, "file", "files"))
		}
		return "no files read: no .yaml, .yml or .json files found"
	}
	counts := fmt.Sprintf("%s, %s, %s", plural(res.Count(lint.SeverityError), "error", "errors"),
		plural(res.Count(lint.SeverityWarning), "warning", "warnings"), plural(res.Count(lint.SeverityInfo), "info", "infos"))
	read := fmt.Sprintf("%s in %s", plural(res.Objects, "object", "objects"), plural(res.Files, "file", "files"))
	if res.Files == 0 {
		read = plural(res.Objects, "object", "objects") // lint --live: objects from the cluster
	}
	if n := len(res.Skipped); n > 0 {
		hint := "; --verbose names them"
		if opts.Verbose {
			hint = ""
		}
		patches, links := false, false
		for _, s := range res.Skipped {
			patches = patches || strings.HasPrefix(s.Reason, "a Kustomize patch")
			links = links || strings.HasPrefix(s.Reason, "a symbolic link")
		}
		what := "not Kubernetes objects"
		switch {
		case patches && links:
			what = "not Kubernetes objects, Kustomize patches, or symbolic links not followed"
		case patches:
			what = "not Kubernetes objects, or Kustomize patches"
		case links:
			what = "not Kubernetes objects, or symbolic links not followed"
		}
		read += fmt.Sprintf(" (%s skipped: %s%s)", plural(n, "document", "documents"), what, hint)
	}
	if n := res.CountSuppressed(); n > 0 {
		counts += fmt.Sprintf(", %d suppressed", n)
	}
	if res.Excluded > 0 {
		named := ""
		if len(res.ExcludedNamed) > 0 {
			named = ": " + excludedNamed(res.ExcludedNamed)
		}
		read += fmt.Sprintf(" (%s excluded by configuration%s)", plural(res.Excluded, "file", "files"), named)
	}
	if res.Objects == 0 && len(res.Findings) == 0 {
		return fmt.Sprintf("%s: no Kubernetes objects found", plural(res.Files, "file", "files"))
	}
	return read + ": " + counts
}

// excludedNamed says which files named on the command line the
// configuration left out, and by which pattern.
func excludedNamed(ex []lint.Exclusion) string {
	parts := make([]string, len(ex))
	for i, e := range ex {
		parts[i] = fmt.Sprintf("%s is excluded by %q in %s", e.File, e.Pattern, e.Config)
	}
	return strings.Join(parts, "; ")
}

// jsonReport is the -o json schema, version 1. Fields are only ever added.
type jsonReport struct {
	// SchemaVersion is 1 for this layout.
	SchemaVersion int `json:"schemaVersion"`
	// KubernetesVersion is the release whose API validation is embedded.
	KubernetesVersion string         `json:"kubernetesVersion"`
	Findings          []lint.Finding `json:"findings"`
	Summary           jsonSummary    `json:"summary"`
}

type jsonSummary struct {
	Files     int `json:"files"`
	Documents int `json:"documents"`
	Objects   int `json:"objects"`
	Skipped   int `json:"skipped"`
	Excluded  int `json:"excluded"`
	Errors    int `json:"errors"`
	Warnings  int `json:"warnings"`
	Infos     int `json:"infos"`
	// Suppressed counts findings silenced by annotations or exemptions; they
	// are listed with a "suppressed" object and excluded from the counts above.
	Suppressed int `json:"suppressed"`
}

// JSON writes the result as one JSON document (schema: docs/output.md).
func JSON(w io.Writer, res *lint.Result, kubernetesVersion string) error {
	findings := res.Findings
	if findings == nil {
		findings = []lint.Finding{}
	}
	out := jsonReport{
		SchemaVersion:     1,
		KubernetesVersion: kubernetesVersion,
		Findings:          findings,
		Summary: jsonSummary{
			Files: res.Files, Documents: res.Documents, Objects: res.Objects, Skipped: len(res.Skipped), Excluded: res.Excluded,
			Errors: res.Count(lint.SeverityError), Warnings: res.Count(lint.SeverityWarning), Infos: res.Count(lint.SeverityInfo),
			Suppressed: res.CountSuppressed(),
		},
	}
	if err := writeIndentedJSON(w, out); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// writeIndentedJSON writes what a json.Encoder with SetIndent("", "  ")
// writes for out, byte for byte, with the findings encoded (appendFinding)
// on every CPU: a run's thousands of findings took one CPU for a tenth of a
// second or more at its end. They are encoded and written a group of chunks at a time, so
// that the report is never held whole in memory: the 10,000-object
// one-namespace corpus's is 14 MB, which a buffer of the whole report held
// once in its chunks and once more, growing, in the buffer.
// TestIndentedJSONIsTheEncoders checks it against the encoder.
func writeIndentedJSON(w io.Writer, out jsonReport) error {
	head, err := json.Marshal(out.KubernetesVersion)
	if err != nil {
		return err
	}
	summary, err := json.MarshalIndent(out.Summary, "  ", "  ")
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "{\n  \"schemaVersion\": %d,\n  \"kubernetesVersion\": %s,\n  \"findings\": [", out.SchemaVersion, head); err != nil {
		return err
	}
	if len(out.Findings) > 0 {
		if _, err := io.WriteString(w, "\n    "); err != nil {
			return err
		}
		// Array elements stand four spaces in, their fields six.
		chunks := (len(out.Findings) + jsonChunk - 1) / jsonChunk
		parts := make([][]byte, min(chunks, jsonGroup)) // each group's chunks, reused by the next
		for first := 0; first < chunks; first += jsonGroup {
			group := parts[:min(jsonGroup, chunks-first)]
			each.Index(len(group), func(k int) {
				i := first + k
				chunk := out.Findings[i*jsonChunk : min((i+1)*jsonChunk, len(out.Findings))]
				b := slices.Grow(group[k][:0], findingsSize(chunk))
				for j := range chunk {
					if i > 0 || j > 0 {
						b = append(b, ",\n    "...)
					}
					b = appendFinding(b, &out.Findings[i*jsonChunk+j])
				}
				group[k] = b
			})
			for _, p := range group {
				if _, err := w.Write(p); err != nil {
					return err
				}
			}
		}
		if _, err := io.WriteString(w, "\n  "); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(w, "],\n  \"summary\": %s\n}\n", summary)
	return err
}

// jsonChunk is the number of findings one goroutine encodes at a time, and
// jsonGroup the number of chunks encoded before they are written. The
// group's buffers, sized once (findingsSize), are reused by the next group,
// so the report holds about 650 KB of encoded findings at a time.
var jsonChunk, jsonGroup = 256, 4

// Skipped writes one line per skipped document, for -v.
func Skipped(w io.Writer, res *lint.Result) error {
	var b strings.Builder
	for _, s := range res.Skipped {
		b.WriteString(safetext.Line(fmt.Sprintf("%s:%d:%d: skipped: %s", s.File, s.Pos.Line, s.Pos.Column, s.Reason)))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
