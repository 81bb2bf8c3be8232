package drain

import (
	"fmt"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/registry/eviction"
)

// The simulated API server's side of an eviction request: its conflict retry around the
// Eviction API's verdict, which internal/registry/eviction (eviction.Evict, checkAndDecrement)
// decides.

// serverEvict mirrors the budget part of EvictionREST.Create for one eviction request at
// s.now: its retry.RetryOnConflict(EvictionsRetry, ...) loop around checkAndDecrement, one
// try of it. read are the budgets as every request of this instant read them
// (getPodDisruptionBudgets, before any of them wrote); written are the budgets another
// request of this instant has already updated. A request whose verdict needs a budget update
// (checkAndDecrement's UpdateStatus) on a budget already written conflicts: it gets the
// resourceVersion it read rejected and the API server tries again eviction.ConflictRetry
// later, re-reading the budget; conflict is true and v is the 409 the client gets once
// EvictionsRetry.Steps tries are spent. Otherwise its verdict, taken on what it read,
// stands, and an approval's decrement is written to the live budget.
//
// Example: three Ready pods under minAvailable 2 (disruptionsAllowed 1), evicted at once:
// all three read allowed 1; the first writes allowed 0 and is approved; the other two
// conflict and retry 500ms later, when the replacement of the first is Ready and the
// disruption controller has written allowed 1 again: one is approved, the other conflicts
// again and goes through at 1s, once the second replacement is Ready.
func (s *sim) serverEvict(pod *v1.Pod, read []*policy.PodDisruptionBudget, written map[*policy.PodDisruptionBudget]bool) (v eviction.Verdict, conflict bool) {
	var mine []*policy.PodDisruptionBudget
	for _, b := range read {
		if b.Namespace == pod.Namespace {
			mine = append(mine, b.DeepCopy()) // Evict decrements what it is given
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].Name < mine[j].Name })
	v = eviction.Evict(pod, mine, s.wall(s.now))
	if !v.Decremented {
		return v, false
	}
	live := s.budget(pod.Namespace, v.Budget)
	if written[live] {
		return eviction.Verdict{Code: 409, Budget: v.Budget, Budgets: v.Budgets,
			Message: fmt.Sprintf("Operation cannot be fulfilled on poddisruptionbudgets.policy %q: the object has been modified; please apply your changes to the latest version and try again", v.Budget)}, true
	}
	written[live] = true
	s.dirty[live] = true
	// What the request read is what the budget holds: no other request of this instant
	// wrote it, and the disruption controller reacts after them (drainNode).
	*live = *mine[slices.IndexFunc(mine, func(b *policy.PodDisruptionBudget) bool { return b.Name == v.Budget })]
	return v, false
}

// readBudgets is what an eviction request for p reads now: a copy of each budget that
// selects it (the others do not decide its eviction). A copy already in shared (the budgets
// as the requests of one instant read them together) is reused; nil shares nothing.
func (s *sim) readBudgets(p *simPod, shared map[*policy.PodDisruptionBudget]*policy.PodDisruptionBudget) []*policy.PodDisruptionBudget {
	read := make([]*policy.PodDisruptionBudget, 0, len(p.budgets))
	for _, b := range p.budgets {
		c := shared[b]
		if c == nil {
			c = b.DeepCopy()
			if shared != nil {
				shared[b] = c
			}
		}
		read = append(read, c)
	}
	return read
}
