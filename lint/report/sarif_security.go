package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// securitySeverities are the security-severity scores GitHub code scanning
// ranks the Pod Security Standards rules by (it reads 9.0 and above as
// critical, 7.0 high, 4.0 medium, above 0 low), by rule id prefix:
//
//   - pss/baseline: the pod holds what the baseline profile forbids, the
//     known privilege escalations (privileged, host namespaces, hostPath):
//     high.
//   - pss/enforce: the namespace's enforce label refuses the pods for such
//     a violation: high, and the pods do not start.
//   - pss/restricted, pss/warn, pss/audit: hardening the restricted
//     profile asks for, or what the namespace only warns or audits about:
//     medium.
var securitySeverities = []struct{ prefix, score string }{
	{"pss/baseline", "7.5"},
	{"pss/enforce", "7.5"},
	{"pss/restricted", "5.0"},
	{"pss/warn", "5.0"},
	{"pss/audit", "5.0"},
}

// securityProps returns the SARIF rule properties that make a rule's
// results security alerts (securitySeverities), or nil.
func securityProps(id string) *sarifRuleProps {
	for _, s := range securitySeverities {
		if id == s.prefix || strings.HasPrefix(id, s.prefix+"/") {
			return &sarifRuleProps{Tags: []string{"security"}, SecuritySeverity: s.score}
		}
	}
	return nil
}

// fingerprintKey names this tool's partial fingerprint, versioned as SARIF
// asks, so that a change to what it hashes starts a new series.
const fingerprintKey = "kubectlWorkloadFinding/v1"

// fingerprints returns, for each finding, a fingerprint that stays the same
// while the finding does: the rule, the file, the object (Kind
// namespace/name) and the field path, hashed, without the line, which moves
// when lines are added above, and without the message, which may quote
// values. Findings that share all four are told apart by their order in the
// file (":2", ":3"...). A finding without an object (a document that does
// not parse) keeps its line, the only thing that places it.
func fingerprints(findings []lint.Finding) []string {
	out := make([]string, len(findings))
	seen := map[string]int{}
	for i, f := range findings {
		object := fmt.Sprintf("document at line %d", f.Line)
		if f.Object != nil {
			object = f.Object.String()
		}
		sum := sha256.Sum256([]byte(strings.Join([]string{f.Rule, f.File, object, f.Field}, "\x00")))
		h := hex.EncodeToString(sum[:16])
		seen[h]++
		if n := seen[h]; n > 1 {
			h = fmt.Sprintf("%s:%d", h, n)
		}
		out[i] = h
	}
	return out
}
