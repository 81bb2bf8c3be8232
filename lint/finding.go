package lint

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Severity orders findings: info < warning < error.
type Severity int

// The severities.
const (
	SeverityInfo Severity = iota
	SeverityWarning
	SeverityError
)

var severityNames = [...]string{SeverityInfo: "info", SeverityWarning: "warning", SeverityError: "error"}

// String returns error, warning or info.
func (s Severity) String() string {
	if s < SeverityInfo || s > SeverityError {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity reads error, warning or info.
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(s, n) {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q: want error, warning or info", s)
}

// MarshalJSON writes the severity's name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a severity's name.
func (s *Severity) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return fmt.Errorf("severity: %w", err)
	}
	v, err := ParseSeverity(name)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ObjectRef names the object a finding is about.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Namespace is the namespace the object would be created in: its own,
	// else the one lint was given (-n), else "default".
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String renders the reference as "Kind namespace/name".
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// Finding is one thing lint reports. Every finding has a position.
type Finding struct {
	// Rule is the rule id, such as api/invalid or input/unparsable.
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Message is the finding's text; for api/* rules, the API server's own.
	Message string `json:"message"`
	// File is the file as named on the command line or found under a named
	// directory; "<stdin>" for standard input.
	File string `json:"file"`
	// Document is the 0-based index of the document in the file.
	Document int `json:"document"`
	// Line and Column are 1-based.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Field is the field path in the API server's notation; empty when the
	// finding is about the whole object or document.
	Field string `json:"field,omitempty"`
	// Object is the object the finding is about; nil for a document that
	// did not parse.
	Object *ObjectRef `json:"object,omitempty"`
	// Related is, for a cross-resource finding whose message names only the
	// first few of the objects it relates to ("and N more"), how many there
	// are in all; omitted otherwise.
	Related int `json:"related,omitempty"`
	// Rendered is where the finding stands in the rendered output of a
	// Helm chart or kustomization, when File is the template, resource or
	// patch it was rendered from.
	Rendered *Rendered `json:"rendered,omitempty"`
	// Suppressed is set when an ignore annotation or a configuration
	// exemption silences the finding. Suppressed findings stay in the
	// report (JSON, SARIF) but never count toward --fail-on.
	Suppressed *Suppression `json:"suppressed,omitempty"`
	// container is the name of the container the finding is about, when it
	// is about one: exemptions can name containers.
	container string
}

// Rendered is a place in a chart's or kustomization's rendered output
// (manifest.RenderedName names it: chart@helm-template,
// overlay@kustomize-build).
type Rendered struct {
	File     string `json:"file"`
	Document int    `json:"document"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

// Suppression says what silenced a finding, and why.
type Suppression struct {
	// Kind is "annotation" (the object's own ignore annotation) or "config"
	// (an exemption in the configuration file).
	Kind string `json:"kind"`
	// Reason is the justification the annotation or exemption gives.
	Reason string `json:"reason"`
}

// SortFindings orders findings by file, document, line, column, rule and
// message, so output never depends on the order work was done in.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		switch {
		case a.File != b.File:
			return a.File < b.File
		case a.Document != b.Document:
			return a.Document < b.Document
		case a.Line != b.Line:
			return a.Line < b.Line
		case a.Column != b.Column:
			return a.Column < b.Column
		case a.Rule != b.Rule:
			return a.Rule < b.Rule
		default:
			return a.Message < b.Message
		}
	})
}
