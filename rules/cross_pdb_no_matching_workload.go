package rules

import (
	"fmt"

	policyv1 "k8s.io/api/policy/v1"
)

// pdbNoMatchingWorkloadRule is pdb/no-matching-workload.
var pdbNoMatchingWorkloadRule = BuiltinRule{
	Meta: Rule{
		ID:       "pdb/no-matching-workload",
		Title:    "PodDisruptionBudget selects no workload",
		Severity: SeverityWarning,
		Kinds:    []string{"PodDisruptionBudget"},
		File:     "cross_pdb_no_matching_workload.go",
		Description: `A PodDisruptionBudget protects the pods its spec.selector selects in its
namespace; the disruption controller and the eviction API find them by that
selector. In policy/v1 an empty selector ({}) selects every pod of the
namespace, and a PodDisruptionBudget without a selector selects none. When
the selector matches the pod template (or, for a Pod, the labels) of no
workload of the input in that namespace, the budget protects nothing and
evictions of the pods it was meant for are not limited: usually a typo or
a label changed on one side only. A budget without a selector is always
reported. Otherwise the rule reports only when the input shows which
workload the budget was meant for: one named like it, or one whose pod
template carries every matchLabels pair of the selector but one, or, for
a selector of matchLabels only, one whose pod labels differ from it in one
value a few edits away (app=frontnd next to app=frontend, even when that is
the selector's only label), which the message names; when it holds none in
the namespace, the budget's pods are defined elsewhere and it stays silent.
A workload that another budget of the input already selects is never
named as the one it was meant for.`,
		Remediation: "Make spec.selector match the pod template labels of the workload the budget is for.",
	},
	Cross: pdbNoMatchingWorkload,
}

// pdbNoMatchingWorkload reports a budget without a selector, and one whose
// selector selects no workload's pods when the input shows what it was
// meant for.
func pdbNoMatchingWorkload(c *CrossContext) []Finding {
	pdb, ok := c.Self.Written.(*policyv1.PodDisruptionBudget)
	if !ok {
		return nil
	}
	sel := pdb.Spec.Selector
	if sel == nil {
		return []Finding{{
			Message: fmt.Sprintf("PodDisruptionBudget %s has no selector: in policy/v1 a budget without a selector selects no pods, so it protects nothing in namespace %s (an empty selector, {}, would select every pod there)",
				displayName(c.Self), c.NS.Name),
			Path: "spec",
		}}
	}
	if c.NS.Workloads() == 0 || len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 || c.NS.SelectsWorkload(sel) {
		return nil
	}
	// A workload that another budget already protects is not the one this
	// budget was meant for: the hint never names it.
	budgeted := func(e *Entry) bool {
		return len(c.NS.SelectorsMatching(e.PodLabels(), "PodDisruptionBudget")) > 0
	}
	shown, count := c.NS.IntendedExcept(sel.MatchLabels, c.Self.Name, budgeted)
	hint := c.NS.typoHintExcept(sel, budgeted)
	matchesNothing := fmt.Sprintf("PodDisruptionBudget %s selects %s, which matches no pod template or Pod of the %s in namespace %s, so it protects nothing",
		displayName(c.Self), FormatSelector(sel), Quantity(int64(c.NS.Workloads()), "workload"), c.NS.Name)
	if count == 0 {
		if hint == "" {
			return nil
		}
		return []Finding{{Message: matchesNothing + hint, Path: "spec.selector"}}
	}
	// The workload it was meant for is named with its labels: a hint
	// would repeat them.
	return []Finding{{
		Message: fmt.Sprintf("%s; it was probably meant for %s", matchesNothing, c.NS.DescribeIntended(shown, count)),
		Path:    "spec.selector",
	}}
}
