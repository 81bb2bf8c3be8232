package plugin

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/lint/report"
)

// complete runs cobra's __complete command, as the shell scripts (and
// kubectl_complete-workload) do, and returns the offered values and the
// directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	out, _, code := run(t, "", append([]string{"__complete"}, args...)...)
	if code != ExitClean {
		t.Fatalf("__complete %v: exit %d", args, code)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var values []string
	for _, l := range lines[:len(lines)-1] {
		value, _, _ := strings.Cut(l, "\t")
		values = append(values, value)
	}
	return values, lines[len(lines)-1]
}

func TestCompletion(t *testing.T) {
	const noFiles = ":4" // cobra.ShellCompDirectiveNoFileComp
	tests := []struct {
		name string
		args []string
		// want must all be offered; none must not be.
		want, none    []string
		wantDirective string
	}{
		{name: "subcommands", args: []string{""}, want: []string{"lint", "version", "completion"}},
		{name: "lint -o", args: []string{"lint", "-o", ""}, want: report.Formats, wantDirective: noFiles},
		{name: "lint --output=s", args: []string{"lint", "--output", "s"}, want: []string{"sarif"}, none: []string{"text", "json"}, wantDirective: noFiles},
		{name: "lint --fail-on", args: []string{"lint", "--fail-on", ""}, want: []string{"error", "warning", "info"}, wantDirective: noFiles},
		{name: "lint --explain", args: []string{"lint", "--explain", ""},
			want:          []string{"rollout/downtime", "api/invalid", "api/unknown-field", "api/warning", "input/unparsable", "input/duplicate-key"},
			wantDirective: noFiles},
		{name: "lint --explain api/", args: []string{"lint", "--explain", "api/"}, want: []string{"api/invalid", "api/removed-version"},
			none: []string{"rollout/downtime", "input/unparsable"}, wantDirective: noFiles},
		{name: "version -o", args: []string{"version", "-o", ""}, want: []string{"json"}, wantDirective: noFiles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			values, directive := complete(t, tt.args...)
			for _, w := range tt.want {
				if !slices.Contains(values, w) {
					t.Errorf("__complete %q = %v, want %s offered", tt.args, values, w)
				}
			}
			for _, n := range tt.none {
				if slices.Contains(values, n) {
					t.Errorf("__complete %q = %v, want %s not offered", tt.args, values, n)
				}
			}
			if tt.wantDirective != "" && directive != tt.wantDirective {
				t.Errorf("__complete %q directive = %s, want %s (no file names)", tt.args, directive, tt.wantDirective)
			}
		})
	}
}

// TestCompletionExplainOffersEveryExplainableRule ties --explain's
// completions to what --explain accepts.
func TestCompletionExplainOffersEveryExplainableRule(t *testing.T) {
	values, _ := complete(t, "lint", "--explain", "")
	if len(values) < 10 {
		t.Fatalf("__complete lint --explain '' = %v, want the whole rule list", values)
	}
	for _, id := range values {
		out, errOut, code := run(t, "", "lint", "--explain", id)
		if code != ExitClean || !strings.Contains(out, id) {
			t.Errorf("lint --explain %s (offered by completion) = exit %d, %q %q", id, code, out, errOut)
		}
	}
}
