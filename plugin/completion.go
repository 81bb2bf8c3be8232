package plugin

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/lint/report"
)

// severityHelp describes each --fail-on value in completion menus.
var severityHelp = []string{
	"error\texit 1 on errors only",
	"warning\texit 1 on warnings and errors",
	"info\texit 1 on any finding",
}

// addCompletions registers shell completion for the flag values of the
// command tree under root: lint's -o, --fail-on and --explain (rule ids from
// the linter's catalogue and the built-in tiers), predict's -o, and version's -o. Cobra
// serves them through its hidden __complete command, which kubectl (1.26 and
// later) calls through the kubectl_complete-workload script.
//
// It panics when a flag it completes does not exist: that is a programming
// error, which the completion tests catch, not a runtime condition.
func addCompletions(root *cobra.Command) {
	for _, cmd := range root.Commands() {
		switch cmd.Name() {
		case "lint":
			mustComplete(cmd, "output", completeFormats)
			mustComplete(cmd, "fail-on", fixedCompletions(severityHelp...))
			mustComplete(cmd, "explain", completeRuleIDs)
		case "predict":
			mustComplete(cmd, "output", fixedCompletions(
				"text\theader, steps and summary", "json\tthe plan (docs/predict-output.md)", "yaml\tthe plan as YAML",
				"svg\tthe timeline as a picture", "html\tthe timeline and the text report"))
		case "version":
			mustComplete(cmd, "output", fixedCompletions("json\tmachine-readable versions"))
		}
	}
}

func mustComplete(cmd *cobra.Command, flag string, fn cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(flag, fn); err != nil {
		panic(fmt.Sprintf("completion for %s --%s: %v", cmd.CommandPath(), flag, err))
	}
}

// fixedCompletions completes from a fixed list of "value\tdescription".
func fixedCompletions(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFormats completes -o from report.Formats, so a new format is
// offered as soon as it is registered.
func completeFormats(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []string
	for _, f := range report.Formats {
		out = append(out, cobra.CompletionWithDesc(f, report.FormatHelp[f]))
	}
	return withPrefix(out, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeRuleIDs completes --explain with every rule id --explain accepts,
// described by its title.
func completeRuleIDs(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	builtins, err := lint.BuiltinRules()
	if err != nil {
		cobra.CompErrorln("load the rule catalogue: " + err.Error())
		return nil, cobra.ShellCompDirectiveError
	}
	var out []string
	for _, r := range report.AllRules(builtins) {
		out = append(out, cobra.CompletionWithDesc(r.ID, r.Title))
	}
	return withPrefix(out, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// withPrefix keeps the completions whose value starts with prefix: not every
// shell filters what it is given.
func withPrefix(completions []string, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, c := range completions {
		value, _, _ := strings.Cut(c, "\t")
		if strings.HasPrefix(value, prefix) {
			out = append(out, c)
		}
	}
	return out
}
