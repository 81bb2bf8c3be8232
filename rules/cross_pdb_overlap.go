package rules

import (
	"fmt"
	"sort"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pdbOverlapRule is pdb/overlap.
var pdbOverlapRule = BuiltinRule{
	Meta: Rule{
		ID:       "pdb/overlap",
		Title:    "Pods covered by two PodDisruptionBudgets",
		Severity: SeverityError,
		Kinds:    []string{"PodDisruptionBudget"},
		File:     "cross_pdb_overlap.go",
		Description: `The eviction API refuses to evict a pod that more than one
PodDisruptionBudget selects ("This pod has more than one
PodDisruptionBudget, which the eviction subresource does not support.",
k8s.io/kubernetes pkg/registry/core/pod/storage/eviction.go), so kubectl
drain and the cluster autoscaler can never move those pods, and node
drains hang. Reported on each budget whose selector selects the pod
template (or a Pod) of a workload that another budget of the namespace
selects too. A budget that shares more than 5 workloads with other
budgets gets one finding that counts them and names the first 5 (the
count is the finding's related count in JSON and SARIF), and a message
names at most 5 other budgets, so n alike budgets give n findings, not
n².`,
		Remediation: "Make the budgets' selectors disjoint, so that each pod has at most one PodDisruptionBudget.",
	},
	Cross: pdbOverlap,
}

// pdbOverlap reports the workloads a budget shares with other budgets: one
// finding per workload, naming up to five others, or, beyond five
// workloads, one finding that counts them.
func pdbOverlap(c *CrossContext) []Finding {
	pdb, ok := c.Self.Written.(*policyv1.PodDisruptionBudget)
	if !ok || pdb.Spec.Selector == nil {
		return nil
	}
	type shared struct {
		key string
		// others are the other budgets' names, sorted, as many as a
		// message names; total counts them all.
		others []string
		total  int
	}
	// The workloads another budget selects too: sharedCount counts them
	// from the selector's shared answer, and ws holds the first of them,
	// enough to name, with the other budgets' names; the candidates are
	// walked only as far as those, so that n alike budgets over n
	// workloads do not cost n².
	var ws []shared
	cands := pdbOverlapCandidates(c.NS, pdb.Spec.Selector)
	sharedCount := cands.sharedWith(c.Self.Key)
	for _, wb := range cands.workloads {
		if len(ws) == min(sharedCount, maxRelatedNamed) {
			break
		}
		w, budgets := wb.workload, wb.budgets
		if len(budgets) == 0 || (len(budgets) == 1 && budgets[0].Key == c.Self.Key) {
			continue
		}
		s := shared{key: w.Key}
		// budgets are sorted by key (SelectorsMatching): this budget's
		// entries are the range [lo, hi), counted without walking the
		// others, which in a namespace of n alike budgets are n.
		lo := sort.Search(len(budgets), func(i int) bool { return budgets[i].Key >= c.Self.Key })
		hi := sort.Search(len(budgets), func(i int) bool { return budgets[i].Key > c.Self.Key })
		s.total = len(budgets) - (hi - lo)
		for i, o := range budgets {
			if len(s.others) == maxRelatedNamed {
				break
			}
			if i < lo || i >= hi {
				s.others = append(s.others, o.Name)
			}
		}
		ws = append(ws, s)
	}
	othersText := func(s shared) string {
		if s.total <= maxRelatedNamed {
			return strings.Join(s.others, ", ")
		}
		return fmt.Sprintf("%s and %d more", strings.Join(s.others, ", "), s.total-maxRelatedNamed)
	}
	if sharedCount > maxRelatedNamed {
		parts := make([]string, maxRelatedNamed)
		for i, s := range ws[:maxRelatedNamed] {
			parts[i] = fmt.Sprintf("%s (also %s)", Describe(s.key), othersText(s))
		}
		return []Finding{{
			Message: fmt.Sprintf("PodDisruptionBudget %s selects the pods of %d workloads that other budgets select too: %s and %d more. The eviction API refuses to evict a pod with more than one budget, so node drains never move them",
				c.Self.Name, sharedCount, strings.Join(parts, "; "), sharedCount-maxRelatedNamed),
			Path:    "spec.selector",
			Related: sharedCount,
		}}
	}
	var out []Finding
	for _, s := range ws {
		f := Finding{
			Message: fmt.Sprintf("PodDisruptionBudget %s and %s both select the pods of %s: the eviction API refuses to evict a pod with more than one budget, so node drains never move them",
				c.Self.Name, othersText(s), Describe(s.key)),
			Path: "spec.selector",
		}
		if s.total > maxRelatedNamed {
			f.Related = s.total
		}
		out = append(out, f)
	}
	return out
}

// workloadBudgets is a workload a budget's selector selects, with the
// budgets of its namespace that select its pods.
type workloadBudgets struct {
	workload *Entry
	budgets  []*Entry
}

// overlapCandidates are the workloads a selector selects, with their
// budgets, and the counts that tell, for any budget with that selector,
// how many of them another budget selects too (sharedWith).
type overlapCandidates struct {
	workloads []workloadBudgets
	// multi counts the workloads two or more budgets select; single, by
	// budget key, the workloads that budget alone selects, and singles
	// their sum.
	multi, singles int
	single         map[string]int
}

// sharedWith is how many of the workloads another budget than self selects
// too: those with two budgets or more, and those one other budget selects.
func (oc *overlapCandidates) sharedWith(self string) int {
	return oc.multi + oc.singles - oc.single[self]
}

// pdbOverlapCandidates answers, once per distinct selector of a namespace,
// which workloads sel selects and which budgets select each: every budget
// with that selector reads the same answer (n alike budgets over n alike
// workloads would otherwise ask n² questions).
func pdbOverlapCandidates(ns *Namespace, sel *metav1.LabelSelector) *overlapCandidates {
	return ns.Shared("pdb/overlap\x00"+SelectorKey(sel), func() any {
		out := &overlapCandidates{single: map[string]int{}}
		for _, w := range ns.AllWorkloadsSelectedBy(sel) {
			budgets := ns.SelectorsMatching(w.PodLabels(), "PodDisruptionBudget")
			out.workloads = append(out.workloads, workloadBudgets{w, budgets})
			switch len(budgets) {
			case 0:
			case 1:
				out.single[budgets[0].Key]++
				out.singles++
			default:
				out.multi++
			}
		}
		return out
	}).(*overlapCandidates)
}
