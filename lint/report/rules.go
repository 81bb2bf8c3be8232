package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/kubectl-workload/kubectl-workload/internal/nearest"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// builtinTiers are the rules a tier of lint raises (rules.Tiers): the
// input checks, the ignore annotations, Pod Security, the API tier and
// the rest, outside the Go checks (rules.Builtin).
func builtinTiers() []rules.Rule {
	tiers := rules.Tiers()
	out := make([]rules.Rule, len(tiers))
	for i, t := range tiers {
		out[i] = t.Meta
	}
	return out
}

// RuleList writes every rule: id, severity, its profile (default, or all
// for the opt-in rules, which need --profile all or rules.enable) and
// title, sorted by id; format "json"
// writes them as a JSON array.
func RuleList(w io.Writer, catalogue []rules.Rule, format string) error {
	all := sortRules(append(builtinTiers(), catalogue...))
	if format == "json" {
		type entry struct {
			ID       string `json:"id"`
			Severity string `json:"severity"`
			Default  string `json:"default"`
			Profile  string `json:"profile"`
			Measured string `json:"measured,omitempty"`
			Title    string `json:"title"`
		}
		out := make([]entry, 0, len(all))
		for _, r := range all {
			out = append(out, entry{ID: r.ID, Severity: r.Severity, Default: defaultState(r), Profile: profileOf(r), Measured: r.Measured, Title: r.Title})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tPROFILE\tTITLE")
	for _, r := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, profileOf(r), r.Title)
	}
	return tw.Flush()
}

// profileOf is the smallest profile that runs the rule: "all" for an
// opt-in rule (--profile all, or rules.enable), else "default".
func profileOf(r rules.Rule) string {
	if r.OptIn {
		return "all"
	}
	return "default"
}

// defaultState is "off" for opt-in rules, else "on".
func defaultState(r rules.Rule) string {
	if r.OptIn {
		return "off"
	}
	return "on"
}

func sortRules(rs []rules.Rule) []rules.Rule {
	out := append([]rules.Rule(nil), rs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// CheckRulesOutput checks the output format of --list-rules (text or json,
// as RuleList writes) and --explain (text only, as Explain writes): a format
// that does not apply is an error, not text printed silently.
func CheckRulesOutput(listRules bool, explain, format string) error {
	switch {
	case listRules && explain != "":
		return fmt.Errorf("--list-rules and --explain contradict each other: give one")
	case listRules && format != "text" && format != "json":
		return fmt.Errorf("-o %s does not apply to --list-rules: want text or json", format)
	case explain != "" && format != "text":
		return fmt.Errorf("-o %s does not apply to --explain, which prints text", format)
	}
	return nil
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
		if r.ID != id {
			continue
		}
		if !strings.HasPrefix(id, "api/") {
			_, err := fmt.Fprintf(w, "%s (%s)\n\n%s\n\n%s\n\nRemediation: %s\n", r.ID, r.Severity, r.Title, r.Description, r.Remediation)
			return err
		}
		_, err := fmt.Fprintf(w, "%s (%s)\n\n%s. Findings carry the API server's own message; see the rule table of docs/lint.md.\n", r.ID, r.Severity, r.Title)
		return err
	}
	ids := make([]string, 0, len(catalogue))
	for _, r := range append(builtinTiers(), catalogue...) {
		ids = append(ids, r.ID)
	}
	if near := nearest.Nearest(id, ids); near != "" {
		return fmt.Errorf("unknown rule %q (did you mean %s?): kubectl workload lint --list-rules lists them", id, near)
	}
	return fmt.Errorf("unknown rule %q: kubectl workload lint --list-rules lists them", id)
}
