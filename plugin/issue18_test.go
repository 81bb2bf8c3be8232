package plugin

import (
	"strings"
	"testing"
)

// TestLintConfigRuleIDsAreChecked: an id or glob in .kubectl-workload.yaml
// that matches no rule is an error at its line (a CI gate meant to block
// :latest must not pass because rules.severity misspells the rule), and an
// exemption's unknown kind a warning at its line.
func TestLintConfigRuleIDsAreChecked(t *testing.T) {
	out, errOut, code := run(t, "", "lint", "--config", "testdata/i18/misspelled-ids.yaml", "../examples/good")
	if code != ExitError {
		t.Errorf("exit code = %d, want %d", code, ExitError)
	}
	if out != "" {
		t.Errorf("stdout = %q, want nothing: the configuration is wrong", out)
	}
	for _, want := range []string{
		`testdata/i18/misspelled-ids.yaml:2: rules.disable: rule id "rollout/mutable-image-tags" matches no rule (did you mean rollout/mutable-image-tag?)`,
		`testdata/i18/misspelled-ids.yaml:2: rules.disable: glob "rollot/*" matches no rule`,
		`testdata/i18/misspelled-ids.yaml:5: rules.severity: rule id "rollout/mutable-imag-tag" matches no rule`,
		`testdata/i18/misspelled-ids.yaml:7: exemptions[0].rules: rule id "rollout/no-readines-probe" matches no rule (did you mean rollout/no-readiness-probe?)`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr = %q, want it to contain %q", errOut, want)
		}
	}
	for _, ok := range []string{"kind/*", `"rollout/mutable-image-tag"`} {
		if strings.Contains(errOut, ok+" matches no rule") {
			t.Errorf("stderr = %q: %s names rules, and must not be reported", errOut, ok)
		}
	}

	_, errOut, code = run(t, "", "lint", "--config", "testdata/i18/unknown-kind.yaml", "../examples/good")
	if code != ExitClean {
		t.Errorf("unknown kind: exit code = %d, want 0 (a warning)", code)
	}
	if want := "warning: testdata/i18/unknown-kind.yaml:3: exemption kind \"Deploymnet\" is not a kind lint reports on (did you mean Deployment?)"; !strings.Contains(errOut, want) {
		t.Errorf("unknown kind: stderr = %q, want %q", errOut, want)
	}
}
