package rules

import (
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
)

// networkpolicySelectsNothingRule is networkpolicy/selects-nothing.
var networkpolicySelectsNothingRule = BuiltinRule{
	Meta: Rule{
		ID:       "networkpolicy/selects-nothing",
		Title:    "NetworkPolicy that selects no pod",
		Severity: SeverityWarning,
		Kinds:    []string{"NetworkPolicy"},
		File:     "cross_networkpolicy_selects_nothing.go",
		Description: `A NetworkPolicy applies to the pods of its own namespace that its
spec.podSelector selects (an empty podSelector selects every pod of the
namespace). A selector that matches none of them isolates nothing: the
pods it was written for stay open to all traffic, and nothing says so.
Reported, like service/no-matching-workload, only when the input shows
what the policy was meant for: a workload of the policy's namespace named
like it, or one whose pod template carries every label of the selector's
matchLabels but one; or, for a selector of matchLabels only, a workload
whose pod labels differ from it in one value a few edits away (app=frontnd
next to app=frontend, even when that is the selector's only label), which
the message names.`,
		Remediation: "Fix spec.podSelector so that it matches the pod template labels of the workload it protects, in the workload's namespace.",
	},
	Cross: networkpolicySelectsNothing,
}

// networkpolicySelectsNothing reports a NetworkPolicy whose podSelector
// selects no workload's pods, when the input shows what it was meant for.
func networkpolicySelectsNothing(c *CrossContext) []Finding {
	np, ok := c.Self.Written.(*networkingv1.NetworkPolicy)
	if !ok {
		return nil
	}
	sel := &np.Spec.PodSelector
	if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 || c.NS.Workloads() == 0 || c.NS.SelectsWorkload(sel) {
		return nil
	}
	shown, count := c.NS.Intended(sel.MatchLabels, c.Self.Name)
	hint := c.NS.typoHint(sel)
	matchesNothing := fmt.Sprintf("NetworkPolicy %s selects %s, which matches no pod template or Pod of the %s in namespace %s, so it isolates nothing",
		c.Self.Name, FormatLabels(sel.MatchLabels), Quantity(int64(c.NS.Workloads()), "workload"), c.NS.Name)
	if count == 0 {
		if hint == "" {
			return nil
		}
		return []Finding{{Message: matchesNothing + hint, Path: "spec.podSelector"}}
	}
	// The workload it was meant for is named with its labels: a hint
	// would repeat them.
	return []Finding{{
		Message: fmt.Sprintf("%s; it was probably meant for %s", matchesNothing, c.NS.DescribeIntended(shown, count)),
		Path:    "spec.podSelector",
	}}
}
