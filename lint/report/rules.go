package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/kubectl-workload/kubectl-workload/internal/admissionpolicy"
	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/nearest"
	"github.com/kubectl-workload/kubectl-workload/internal/podsecurity"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// builtinTiers are the rules outside the catalogue (rules.Builtin): the
// input checks and the API tier.
func builtinTiers() []rules.Rule {
	out := []rules.Rule{
		{ID: lint.RuleUnparsable, Severity: rules.SeverityError, Title: "Document is not valid YAML or JSON"},
		{ID: lint.RuleDuplicateKey, Severity: rules.SeverityError, Title: "Key given twice; kubectl keeps only the last value"},
		{ID: lint.RuleLimitExceeded, Severity: rules.SeverityError, Title: "File or document over an input limit; not linted"},
		{ID: lint.RuleRemote, Severity: rules.SeverityError, Title: "Kustomization names a URL or git repository; nothing is fetched, it is not built"},
		{ID: lint.RuleGenerateName, Severity: rules.SeverityInfo, Title: "Object named by generateName only; kubectl apply refuses it, kubectl create accepts it"},
		{ID: lint.RuleNamespaceMismatch, Severity: rules.SeverityError, Title: "metadata.namespace differs from -n; kubectl refuses the object"},
		{ID: lint.RuleIgnoreMisplaced, Severity: rules.SeverityWarning, Title: "Ignore annotation in the pod template, where it silences nothing"},
		{ID: lint.RuleIgnoreUnknownRule, Severity: rules.SeverityWarning, Title: "Ignore annotation names a rule that does not exist"},
		{ID: lint.RuleIgnoreNoReason, Severity: rules.SeverityWarning, Title: "Ignore annotation without a reason; nothing is ignored"},
		{ID: lint.RuleIgnoreEnforced, Severity: rules.SeverityError, Title: "Ignore annotation or exemption tries to silence an enforced rule"},
		{ID: lint.RuleCronJobNeverFires, Severity: rules.SeverityWarning, Title: "CronJob schedule that matches no date"},
		{ID: lint.RuleReferenceMissing, Severity: rules.SeverityWarning, Title: "Pod spec needs a ConfigMap, Secret, ServiceAccount or claim the input lacks"},
		{ID: podsecurity.RuleBaseline, Severity: rules.SeverityWarning, Title: "Pod fails a baseline Pod Security Standard check", OptIn: true},
		{ID: podsecurity.RuleRestricted, Severity: rules.SeverityWarning, Title: "Pod fails a restricted Pod Security Standard check", OptIn: true},
		{ID: podsecurity.RuleEnforce, Severity: rules.SeverityError, Title: "The namespace's Pod Security enforce label refuses the pods"},
		{ID: podsecurity.RuleWarn, Severity: rules.SeverityWarning, Title: "The namespace's Pod Security warn label makes the server warn"},
		{ID: podsecurity.RuleAudit, Severity: rules.SeverityWarning, Title: "The namespace's Pod Security audit label records a violation"},
	}
	out = append(out,
		rules.Rule{ID: admissionpolicy.RuleDeny, Severity: rules.SeverityError, Title: "A ValidatingAdmissionPolicy with a Deny binding refuses the object"},
		rules.Rule{ID: admissionpolicy.RuleWarn, Severity: rules.SeverityWarning, Title: "A ValidatingAdmissionPolicy with a Warn binding makes the server warn"},
		rules.Rule{ID: admissionpolicy.RuleAudit, Severity: rules.SeverityInfo, Title: "A ValidatingAdmissionPolicy with an Audit binding records a failure"})
	for _, id := range apicheck.Rules() {
		sev, title := rules.SeverityError, "The API server's own validation (v1.37)"
		switch id {
		case apicheck.RuleWarning:
			sev = rules.SeverityWarning
		case apicheck.RuleCRDMissing:
			sev, title = rules.SeverityInfo, "Custom resource whose CustomResourceDefinition is nowhere in sight: not checked"
		}
		if title == "The API server's own validation (v1.37)" {
			title = apiTitle(id)
		}
		out = append(out, rules.Rule{ID: id, Severity: sev, Title: title})
	}
	return out
}

// apiTitle is an api/* rule's own title (the SARIF rule's), so that the
// rule list tells them apart.
func apiTitle(id string) string {
	if t := tierHelps[id].title; t != "" {
		return t
	}
	if t := fieldErrorTitles[id]; t != "" {
		return t
	}
	return "The API server's own validation (v1.37)"
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
		if h, ok := tierHelps[id]; ok && !strings.HasPrefix(id, "api/") {
			_, err := fmt.Fprintf(w, "%s (%s)\n\n%s\n\n%s\n\nRemediation: %s\n", r.ID, r.Severity, r.Title, h.description, h.remediation)
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
