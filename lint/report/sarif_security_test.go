package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/version"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// sarifConsumerView is what GitHub code scanning reads beyond the schema.
type sarifConsumerView struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Version string `json:"version"`
				Rules   []struct {
					ID         string `json:"id"`
					Properties struct {
						Tags             []string `json:"tags"`
						SecuritySeverity string   `json:"security-severity"`
					} `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID              string            `json:"ruleId"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

func sarifView(t *testing.T, res *lint.Result) sarifConsumerView {
	t.Helper()
	var b strings.Builder
	if err := SARIF(&b, res, []rules.Rule{{ID: "kind/bare-pod", Severity: rules.SeverityWarning, Title: "Bare pod"}}, "v1.37.1"); err != nil {
		t.Fatal(err)
	}
	var v sarifConsumerView
	if err := json.Unmarshal([]byte(b.String()), &v); err != nil {
		t.Fatalf("SARIF is not JSON: %v", err)
	}
	return v
}

// TestSARIFFingerprintsSurviveMovedLines: partialFingerprints stay the same
// when the finding moves down the file, differ between findings, and are
// there on every result.
func TestSARIFFingerprintsSurviveMovedLines(t *testing.T) {
	res := constructed()
	before := sarifView(t, res).Runs[0].Results
	for i := range res.Findings {
		if res.Findings[i].Object != nil {
			res.Findings[i].Line += 10
		}
	}
	after := sarifView(t, res).Runs[0].Results
	seen := map[string]string{}
	for i := range before {
		fp := before[i].PartialFingerprints[fingerprintKey]
		if fp == "" {
			t.Fatalf("result %d (%s) has no %s fingerprint", i, before[i].RuleID, fingerprintKey)
		}
		if other, ok := seen[fp]; ok {
			t.Errorf("results %s and %s share the fingerprint %s", other, before[i].RuleID, fp)
		}
		seen[fp] = before[i].RuleID
		if got := after[i].PartialFingerprints[fingerprintKey]; got != fp {
			t.Errorf("%s: fingerprint %s became %s when its lines moved down", before[i].RuleID, fp, got)
		}
	}
	// Two findings alike but for their line get distinct fingerprints.
	web := lint.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"}
	twin := []lint.Finding{{Rule: "x/y", File: "a.yaml", Line: 3, Object: &web}, {Rule: "x/y", File: "a.yaml", Line: 9, Object: &web}}
	if fp := fingerprints(twin); fp[0] == fp[1] {
		t.Errorf("fingerprints(two alike findings) = %v, want them distinct", fp)
	}
}

// TestSARIFSecuritySeverity: pss/* rules carry the security tag and a
// security-severity, GitHub's ranking; other rules do not.
func TestSARIFSecuritySeverity(t *testing.T) {
	run := sarifView(t, constructed()).Runs[0]
	want := map[string]string{"pss/baseline": "7.5", "pss/enforce": "7.5", "pss/restricted": "5.0", "pss/warn": "5.0", "pss/audit": "5.0", "kind/bare-pod": "", "api/invalid": ""}
	got := map[string]string{}
	for _, r := range run.Tool.Driver.Rules {
		got[r.ID] = r.Properties.SecuritySeverity
		if (r.Properties.SecuritySeverity != "") != (len(r.Properties.Tags) == 1 && r.Properties.Tags[0] == "security") {
			t.Errorf("rule %s: security-severity %q with tags %v, want both or neither", r.ID, r.Properties.SecuritySeverity, r.Properties.Tags)
		}
	}
	for id, sev := range want {
		if g, ok := got[id]; !ok || g != sev {
			t.Errorf("rule %s: security-severity %q (listed %v), want %q", id, g, ok, sev)
		}
	}
	if id := "pss/baseline/host-namespaces"; securityProps(id) == nil || securityProps("pssx/baseline") != nil {
		t.Errorf("securityProps: want pss/baseline's sub-rules scored, and no other prefix")
	}
	if v := run.Tool.Driver.Version; v != version.Get().Plugin {
		t.Errorf("driver.version = %q, want the build's version %q", v, version.Get().Plugin)
	}
}
