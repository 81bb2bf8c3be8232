package plugin

import (
	"strings"
	"testing"
)

func TestListRules(t *testing.T) {
	out, errOut, code := run(t, "", "lint", "--list-rules")
	if code != ExitClean || errOut != "" {
		t.Fatalf("lint --list-rules = exit %d, stderr %q", code, errOut)
	}
	golden(t, "list-rules.txt", out)
	for _, id := range []string{"api/invalid", "input/duplicate-key", "rollout/downtime", "ignore/no-reason"} {
		if !strings.Contains(out, id+" ") {
			t.Errorf("--list-rules does not list %s", id)
		}
	}
}

func TestExplain(t *testing.T) {
	out, _, code := run(t, "", "lint", "--explain", "rollout/downtime")
	if code != ExitClean || !strings.HasPrefix(out, "# rollout/downtime\n") || !strings.Contains(out, "## Remediation") {
		t.Errorf("--explain rollout/downtime = exit %d:\n%s", code, out)
	}
	_, errOut, code := run(t, "", "lint", "--explain", "no/such-rule")
	if code != ExitError || !strings.Contains(errOut, `unknown rule "no/such-rule"`) {
		t.Errorf("--explain no/such-rule = exit %d, stderr %q; want exit 2 naming the rule", code, errOut)
	}
}

// TestProfileFlag: --profile all runs the opt-in rules, the default profile
// leaves them out, and an unknown profile is a usage error (exit 2).
func TestProfileFlag(t *testing.T) {
	out, _, _ := run(t, "", "lint", "--no-config", "testdata/warning-only.yaml")
	if strings.Contains(out, "resources/requests-missing") {
		t.Errorf("default profile reports an opt-in rule:\n%s", out)
	}
	out, _, _ = run(t, "", "lint", "--no-config", "--profile", "all", "testdata/warning-only.yaml")
	if !strings.Contains(out, "resources/requests-missing") {
		t.Errorf("--profile all does not report resources/requests-missing:\n%s", out)
	}
	_, errOut, code := run(t, "", "lint", "--no-config", "--profile", "most", "testdata/warning-only.yaml")
	if code != 2 || !strings.Contains(errOut, `--profile "most": want default or all`) {
		t.Errorf("--profile most = exit %d, stderr %q; want 2 naming the profiles", code, errOut)
	}
}
