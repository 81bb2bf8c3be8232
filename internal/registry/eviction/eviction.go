// Package eviction mirrors the API server's eviction subresource
// (pkg/registry/core/pod/storage/eviction.go, EvictionREST.Create and checkAndDecrement): the
// verdict on one eviction request against the PodDisruptionBudgets that select the pod, as the
// disruption controller (internal/controller/disruption) last wrote their status.
package eviction

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	pdbhelper "k8s.io/component-helpers/apps/poddisruptionbudget"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/disruption"
)

// The messages of the Eviction API (pkg/registry/core/pod/storage/eviction.go).
const (
	// MsgTooManyRequests is the 429's message, which kubectl drain prints.
	MsgTooManyRequests = "Cannot evict pod as it would violate the pod's disruption budget."
	// MsgSeveralBudgets is the 500's message for a pod that two or more budgets select.
	MsgSeveralBudgets = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
	// MaxDisruptedPodSize is upstream's bound on status.disruptedPods.
	MaxDisruptedPodSize = 2000
)

// The API server's retry of an eviction whose budget update conflicts with another's
// (EvictionsRetry, around checkAndDecrement).
const (
	// ConflictRetry is EvictionsRetry.Duration: an eviction whose budget update conflicts with
	// another eviction's is retried by the API server after 500ms (plus up to 10% jitter:
	// 500-550ms), re-reading the budget.
	ConflictRetry = 500 * time.Millisecond
	// ConflictAttempts is EvictionsRetry.Steps: after this many conflicting tries the API
	// server gives up and returns the last conflict (409) to the client.
	ConflictAttempts = 20
)

// Verdict is the Eviction API's answer to one eviction.
type Verdict struct {
	// Code is the HTTP status: 201 (the pod is deleted), 429 (retry), 403 or 500 (kubectl
	// drain gives up on the pod).
	Code int
	// Message is the error's message, Cause the DisruptionBudget cause when there is one.
	Message, Cause string
	// Budget is the budget that decided, "" when none did.
	Budget string
	// Budgets are the budgets that select the pod, sorted (two or more: Code 500).
	Budgets []string
	// Decremented is true when the eviction took one of the budget's disruptions; false
	// for a pod the budget did not guard (unready, pending, finished).
	Decremented bool
}

// Approved reports whether the pod was deleted.
func (v Verdict) Approved() bool { return v.Code == 201 }

// Evict mirrors EvictionREST.Create for pod against the budgets of its namespace (whose
// statuses Sync wrote), at now. An approval decrements the deciding budget's
// disruptionsAllowed and records the pod in its disruptedPods, as checkAndDecrement does;
// the caller then marks the pod deleted.
//
// Example: a budget at disruptionsAllowed 1 approves the first of two Ready pods (allowed
// becomes 0) and answers the second 429 "The disruption budget web needs 2 healthy pods and
// has 2 currently".
func Evict(pod *v1.Pod, budgets []*policy.PodDisruptionBudget, now time.Time) Verdict {
	// canIgnorePDB: a finished, pending or deleting pod is deleted whatever the budgets.
	if pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed ||
		pod.Status.Phase == v1.PodPending || pod.DeletionTimestamp != nil {
		return Verdict{Code: 201}
	}
	var pdbs []*policy.PodDisruptionBudget
	var names []string
	for _, b := range budgets {
		if len(disruption.PodsForBudget(b, []*v1.Pod{pod})) == 1 {
			pdbs = append(pdbs, b)
			names = append(names, b.Name)
		}
	}
	switch len(pdbs) {
	case 0:
		return Verdict{Code: 201}
	case 1:
	default:
		return Verdict{Code: 500, Message: MsgSeveralBudgets, Budgets: names}
	}
	pdb := pdbs[0]
	v := Verdict{Budget: pdb.Name, Budgets: names}
	if !podutil.IsPodReady(pod) {
		if pdb.Spec.UnhealthyPodEvictionPolicy != nil && *pdb.Spec.UnhealthyPodEvictionPolicy == policy.AlwaysAllow {
			v.Code = 201
			return v
		}
		if pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0 {
			v.Code = 201
			return v
		}
	}
	return checkAndDecrement(pod.Name, pdb, v, now)
}

// checkAndDecrement mirrors EvictionREST.checkAndDecrement.
func checkAndDecrement(podName string, pdb *policy.PodDisruptionBudget, v Verdict, now time.Time) Verdict {
	st := &pdb.Status
	if st.ObservedGeneration < pdb.Generation {
		v.Code, v.Message, v.Cause = 429, MsgTooManyRequests, fmt.Sprintf("The disruption budget %s is still being processed by the server.", pdb.Name)
		return v
	}
	if st.DisruptionsAllowed < 0 {
		v.Code, v.Message = 403, fmt.Sprintf("poddisruptionbudget.policy %q is forbidden: pdb disruptions allowed is negative", pdb.Name)
		v.Cause = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: pdb disruptions allowed is negative", pdb.Name)
		return v
	}
	if len(st.DisruptedPods) > MaxDisruptedPodSize {
		v.Code, v.Message = 403, fmt.Sprintf("poddisruptionbudget.policy %q is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller", pdb.Name)
		v.Cause = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: too many pending evictions not confirmed by PDB controller", pdb.Name)
		return v
	}
	if st.DisruptionsAllowed == 0 {
		v.Code, v.Message = 429, MsgTooManyRequests
		cond := apimeta.FindStatusCondition(st.Conditions, policy.DisruptionAllowedCondition)
		switch {
		case cond != nil && cond.Status == metav1.ConditionFalse && cond.Message != "" && cond.Reason == policy.SyncFailedReason:
			v.Cause = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", pdb.Name, cond.Message)
		case st.CurrentHealthy <= st.DesiredHealthy:
			v.Cause = fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, st.DesiredHealthy, st.CurrentHealthy)
		case cond != nil && cond.Status == metav1.ConditionFalse && cond.Message != "":
			v.Cause = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", pdb.Name, cond.Reason, cond.Message)
		default:
			v.Cause = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", pdb.Name)
		}
		return v
	}
	st.DisruptionsAllowed--
	if st.DisruptionsAllowed == 0 {
		pdbhelper.UpdateDisruptionAllowedCondition(pdb)
	}
	if st.DisruptedPods == nil {
		st.DisruptedPods = map[string]metav1.Time{}
	}
	st.DisruptedPods[podName] = metav1.NewTime(now)
	v.Code, v.Decremented = 201, true
	return v
}
