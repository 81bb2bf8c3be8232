package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/kubectl-workload/kubectl-workload/apicheck"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// builtinTiers are the rules that are Go, not Rego: the input checks and the
// API tier.
func builtinTiers() []rules.Rule {
	out := []rules.Rule{
		{ID: lint.RuleUnparsable, Severity: rules.SeverityError, Title: "Document is not valid YAML or JSON"},
		{ID: lint.RuleDuplicateKey, Severity: rules.SeverityError, Title: "Key given twice; kubectl keeps only the last value"},
		{ID: lint.RuleLimitExceeded, Severity: rules.SeverityError, Title: "File or document over an input limit; not linted"},
		{ID: lint.RuleGenerateName, Severity: rules.SeverityInfo, Title: "Object named by generateName only; kubectl apply refuses it, kubectl create accepts it"},
		{ID: lint.RuleIgnoreMisplaced, Severity: rules.SeverityWarning, Title: "Ignore annotation in the pod template, where it silences nothing"},
		{ID: lint.RuleIgnoreUnknownRule, Severity: rules.SeverityWarning, Title: "Ignore annotation names a rule that does not exist"},
		{ID: lint.RuleIgnoreNoReason, Severity: rules.SeverityWarning, Title: "Ignore annotation without a reason; nothing is ignored"},
	}
	for _, id := range apicheck.Rules() {
		sev := rules.SeverityError
		if id == apicheck.RuleWarning {
			sev = rules.SeverityWarning
		}
		out = append(out, rules.Rule{ID: id, Severity: sev, Title: "The API server's own validation (v1.37)"})
	}
	return out
}

// RuleList writes every rule: id, severity and title, sorted by id, as a
// table, or with format "json" as a JSON array of {id, severity, title}
// (every -o format but json prints the table).
func RuleList(w io.Writer, format string, catalogue []rules.Rule) error {
	if format == "json" {
		type entry struct {
			ID       string `json:"id"`
			Severity string `json:"severity"`
			Title    string `json:"title"`
		}
		out := []entry{}
		for _, r := range sortRules(append(builtinTiers(), catalogue...)) {
			out = append(out, entry{ID: r.ID, Severity: string(r.Severity), Title: r.Title})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return fmt.Errorf("write rule list: %w", err)
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tTITLE")
	all := append(builtinTiers(), catalogue...)
	for _, r := range sortRules(all) {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Title)
	}
	return tw.Flush()
}

func sortRules(rs []rules.Rule) []rules.Rule {
	out := append([]rules.Rule(nil), rs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Explain writes one rule's documentation.
func Explain(w io.Writer, catalogue []rules.Rule, id string) error {
	for _, r := range catalogue {
		if r.ID == id {
			_, err := io.WriteString(w, rules.Doc(r))
			return err
		}
	}
	for _, r := range builtinTiers() {
		if r.ID == id {
			_, err := fmt.Fprintf(w, "%s (%s)\n\n%s. Findings carry the API server's own message; see the README's rule table.\n", r.ID, r.Severity, r.Title)
			return err
		}
	}
	return fmt.Errorf("unknown rule %q: kubectl workload lint --list-rules lists them", id)
}
