package plugin

import (
	"encoding/json"
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

// TestLintEmptyStdinIsAnError: `helm template … | kubectl workload lint -`
// when helm failed and printed nothing must not pass. Files with no objects
// still do.
func TestLintEmptyStdinIsAnError(t *testing.T) {
	for _, stdin := range []string{"", "\n  \n"} {
		_, errOut, code := run(t, stdin, "lint", "-")
		if code != ExitError || !strings.Contains(errOut, "standard input is empty") {
			t.Errorf("lint - with stdin %q = exit %d, stderr %q; want exit 2 and \"standard input is empty\"", stdin, code, errOut)
		}
	}
	if _, errOut, code := run(t, "", "lint", "testdata/not-kubernetes.yaml"); code != ExitClean {
		t.Errorf("lint of a file with no objects = exit %d (stderr %q), want 0", code, errOut)
	}
}

// TestLintListRulesJSON: --list-rules honours -o json.
func TestLintListRulesJSON(t *testing.T) {
	out, errOut, code := run(t, "", "lint", "--list-rules", "-o", "json")
	if code != ExitClean {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var list []struct{ ID, Severity, Title string }
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("lint --list-rules -o json is not JSON: %v\n%s", err, out)
	}
	found := false
	for _, r := range list {
		if r.ID == "rollout/downtime" && r.Severity == "warning" && r.Title != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("lint --list-rules -o json lacks rollout/downtime (warning): %s", out)
	}
}

// TestLintVerboseSummaryDoesNotPointAtVerbose: with --verbose the skipped documents
// are named, so the summary must not say "--verbose names them".
func TestLintVerboseSummaryDoesNotPointAtVerbose(t *testing.T) {
	out, _, _ := run(t, "", "lint", "--verbose", "testdata/not-kubernetes.yaml", "../examples/good/web.yaml")
	if strings.Contains(out, "--verbose names them") {
		t.Errorf("lint --verbose summary = %q: --verbose was given", out)
	}
	out, _, _ = run(t, "", "lint", "testdata/not-kubernetes.yaml", "../examples/good/web.yaml")
	if !strings.Contains(out, "--verbose names them") {
		t.Errorf("lint summary = %q, want the hint at --verbose", out)
	}
}

// TestPredictSkippedObjectsOneLine: the objects of a Helm chart that predict
// does not model are summed up in one line, not one per object that repeats
// the list of kinds.
func TestPredictSkippedObjectsOneLine(t *testing.T) {
	out, _, _ := run(t, "", "predict", "-f", "testdata/i18/chart.yaml")
	if n := strings.Count(out, "predict models"); n != 1 {
		t.Errorf("predict printed the list of modelled kinds %d times, want once:\n%s", n, out)
	}
	if want := "testdata/i18/chart.yaml:1:1: 2 objects skipped (1 ConfigMap, 1 ServiceAccount; -o json lists them): predict models"; !strings.Contains(out, want) {
		t.Errorf("predict output lacks %q:\n%s", want, out)
	}
}

// TestLintNamedFileExcluded: a file named on the command line that the
// configuration excludes is said to be excluded, with the pattern, not "no
// .yaml files found".
func TestLintNamedFileExcluded(t *testing.T) {
	out, _, code := run(t, "", "lint", "--config", "testdata/i18/exclude.yaml", "testdata/i18/charts/web.yaml")
	if code != ExitClean {
		t.Errorf("exit %d, want 0", code)
	}
	if want := `no files read: testdata/i18/charts/web.yaml is excluded by "charts/**" in testdata/i18/exclude.yaml` + "\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
}

// TestLintPoliciesThatWouldDoNothing: a policy package that does not run
// (no --policy-namespace) is named on stderr with the flag that runs it, and
// a result that is neither a string nor an object with msg is an error that
// names the file and row (exit 2), not dropped.
func TestLintPoliciesThatWouldDoNothing(t *testing.T) {
	_, errOut, code := run(t, "", "lint", "--policy", "testdata/i18/policies-ns", "../examples/good/web.yaml")
	if code != ExitClean {
		t.Errorf("package not run: exit %d, want 0", code)
	}
	if want := "warning: package k8s.security (testdata/i18/policies-ns/security.rego) has deny, violation or warn rules, but only package main runs: add --policy-namespace k8s.security to run it\n"; errOut != want {
		t.Errorf("package not run: stderr = %q, want %q", errOut, want)
	}
	_, errOut, code = run(t, "", "lint", "--policy", "testdata/i18/policies-ns", "--policy-namespace", "k8s.security", "../examples/good/web.yaml")
	if code != ExitFindings || errOut != "" {
		t.Errorf("--policy-namespace k8s.security: exit %d, stderr %q; want 1 (its deny) and nothing on stderr", code, errOut)
	}

	_, errOut, code = run(t, "", "lint", "--policy", "testdata/i18/policies-bad", "../examples/good/web.yaml")
	if code != ExitError {
		t.Errorf("malformed results: exit %d, want 2", code)
	}
	for _, want := range []string{
		"policy policy/main/warn (testdata/i18/policies-bad/number.rego:5) returned 42, which is neither a string nor an object with a string msg",
		`policy policy/main/deny (testdata/i18/policies-bad/number.rego:9) returned {"message":"no msg key"}`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("malformed results: stderr = %q, want %q", errOut, want)
		}
	}
}
