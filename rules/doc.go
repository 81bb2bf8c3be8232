package rules

import (
	"fmt"
	"strings"
)

// DocFile is the name of a rule's page under docs/rules/.
func DocFile(id string) string { return strings.ReplaceAll(id, "/", "-") + ".md" }

// Doc renders a built-in rule's documentation as Markdown. `lint --explain`
// prints it, and docs/rules/ is generated from it.
func Doc(r Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.ID)
	fmt.Fprintf(&b, "**%s**\n\nSeverity: %s\n\n", r.Title, r.Severity)
	if r.OptIn {
		fmt.Fprintf(&b, "Off by default (profile all): enable it with `--profile all`, `profile: all` or `rules.enable: [%s]` in the configuration.\n\n", r.ID)
	}
	if r.Measured != "" {
		fmt.Fprintf(&b, "Measured on real inputs: %s.\n\n", r.Measured)
	}
	fmt.Fprintf(&b, "%s\n\n", r.Description)
	fmt.Fprintf(&b, "## Remediation\n\n%s\n\n", r.Remediation)
	fmt.Fprintf(&b, "Source: [`rules/%s`](../../rules/%s).\n", r.File, r.File)
	return b.String()
}

// DocIndex renders docs/rules/README.md: every rule, by id.
func DocIndex(rs []Rule) string {
	var b strings.Builder
	b.WriteString("# Built-in rules\n\nGenerated from the rules' metadata (rules/catalogue_*.go) by `go test ./rules -update-docs`; do not edit.\n\n")
	b.WriteString("Two profiles: `default` runs the rules on by default, which report what breaks (the server\n" +
		"rejects it, a rollout or a drain blocks, a selector matches nothing) and what was measured true\n" +
		"on real inputs; `all` (`--profile all`, or `profile: all` in `.kubectl-workload.yaml`) adds the\n" +
		"opt-in rules, best practices that a chart often leaves out on purpose. `rules.enable` turns on\n" +
		"single opt-in rules. Precision is measured on `test/realworld` (docs/realworld-findings.md).\n\n")
	b.WriteString("| rule | severity | profile | measured | title |\n| --- | --- | --- | --- | --- |\n")
	for _, r := range rs {
		def := "default"
		if r.OptIn {
			def = "all"
		}
		fmt.Fprintf(&b, "| [%s](%s) | %s | %s | %s | %s |\n", r.ID, DocFile(r.ID), r.Severity, def, r.Measured, r.Title)
	}
	return b.String()
}

// FixtureDir is the directory under rules/testdata/ that holds a rule's
// pass-*.yaml and fail-*.yaml fixtures.
func FixtureDir(id string) string { return strings.ReplaceAll(id, "/", "-") }
