package statefulset

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	apps "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// Notes the plan can carry. They name the behaviour, the version and what to do.
const (
	// NoteGateVersions explains which versions honour maxUnavailable.
	NoteGateVersions = "maxUnavailable is honoured because MaxUnavailableStatefulSet is on by default in v1.37; " +
		"1.35.4 and 1.36 turn the gate off by default and ignore maxUnavailable, replacing one pod at a time."
	// NoteGateOff explains a simulation with the gate off.
	NoteGateOff = "MaxUnavailableStatefulSet is off: maxUnavailable is ignored and pods are replaced one at a time, " +
		"as 1.35.4 and 1.36 do by default."
	// NoteParallelTwoPhase explains the v1.37 Parallel rule.
	NoteParallelTwoPhase = "With Parallel pod management, v1.37 deletes old pods that are already unavailable first, " +
		"then available old pods up to the remaining maxUnavailable budget (two-phase deletion)."
	// NoteScalingFirst explains precedence when replicas and template change together.
	NoteScalingFirst = "Scaling takes precedence over updates: the controller creates or deletes pods to reach " +
		"spec.replicas before it replaces any pod for the new revision."
	// NoteStuckIntervention is the documented manual fix for a broken OrderedReady rollout.
	NoteStuckIntervention = "The rollout is stuck: under OrderedReady the controller waits forever for a pod that " +
		"never becomes Running and Ready, even after the template is fixed. Revert (or fix) the template, then " +
		"delete the stuck pod; the controller recreates it from the reverted template."
)

// scaleMaxUnavailable resolves a StatefulSet maxUnavailable as getStatefulSetMaxUnavailable
// does, and explains it.
//
// Example: "25%" of 5 is 1.25 → 1 (rounded down); unset is 1; "10%" of 5 is 0.5 → 0, raised
// to 1.
func scaleMaxUnavailable(v *intstr.IntOrString, replicas int) (int, string, error) {
	if v == nil {
		return 1, "unset = 1", nil
	}
	n, text, err := kernel.Scaled(v, replicas, false)
	if err != nil {
		return 1, "", err
	}
	if n < 1 {
		n = 1
		text += ", raised to the minimum 1"
	}
	return n, text, nil
}

// header describes the StatefulSet and its strategy resolved to numbers.
func (w *world) header() kernel.Header {
	set := w.set
	replicas := *set.Spec.Replicas
	h := kernel.Header{
		Namespace:   set.Namespace,
		Name:        set.Name,
		Strategy:    string(set.Spec.UpdateStrategy.Type),
		Replicas:    replicas,
		OldRevision: w.currentRev,
		NewRevision: w.updateRev,
		NameNote:    "revision names hash the pod template as this version encodes it; a server of another version may name them differently",
		MaxPods:     max(replicas, w.startReplicas),
	}
	if w.startReplicas == 0 {
		// Created: there is no revision before this one.
		h.OldRevision = ""
	}
	h.Settings = append(h.Settings, kernel.Setting{Name: "podManagementPolicy", Value: string(set.Spec.PodManagementPolicy),
		Arithmetic: policyText(set.Spec.PodManagementPolicy)})
	unavailable := 1
	if set.Spec.UpdateStrategy.Type == apps.RollingUpdateStatefulSetStrategyType {
		p := w.partition()
		h.Settings = append(h.Settings, kernel.Setting{Name: "partition", Value: strconv.Itoa(p), Arithmetic: w.partitionText(p)})
		var field *intstr.IntOrString
		if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
			field = ru.MaxUnavailable
		}
		n, text, err := scaleMaxUnavailable(field, int(replicas))
		if err != nil {
			text = fmt.Sprintf("%s is not a number or a percentage; the controller fails to sync", field.String())
		}
		if w.gate {
			unavailable = n
		} else {
			text += "; ignored with MaxUnavailableStatefulSet off, so 1"
		}
		value := ""
		if field != nil {
			value = field.String()
		}
		h.Settings = append(h.Settings, kernel.Setting{Name: "maxUnavailable", Value: value, Arithmetic: text})
	}
	h.Settings = append(h.Settings, kernel.Setting{Name: "minReadySeconds", Value: strconv.Itoa(int(set.Spec.MinReadySeconds)),
		Arithmetic: (time.Duration(set.Spec.MinReadySeconds) * time.Second).String() + " Ready before a pod counts as available"})
	h.MinAvailable = max(replicas-int32(unavailable), 0)
	if set.Spec.UpdateStrategy.Type == apps.OnDeleteStatefulSetStrategyType {
		h.MinAvailable = replicas
	}
	return h
}

func policyText(p apps.PodManagementPolicyType) string {
	if p == apps.ParallelPodManagement {
		return "pods are created and deleted without waiting for one another"
	}
	return "one pod at a time, in ordinal order, each Running and Ready before the next; deletions in reverse order"
}

func (w *world) partitionText(p int) string {
	switch p {
	case 0:
		return "every pod is updated"
	case 1:
		return w.belowPartition(p) + " is never updated"
	}
	return w.belowPartition(p) + " are never updated"
}

// belowPartition names the pods below partition p: "pod web-0" or "pods web-0 … web-1".
func (w *world) belowPartition(p int) string {
	first := getStartOrdinal(w.set)
	if p == 1 {
		return "pod " + getPodName(w.set, first)
	}
	return fmt.Sprintf("pods %s … %s", getPodName(w.set, first), getPodName(w.set, first+p-1))
}

// Finish writes the summary and notes.
func (w *world) Finish() {
	s := &w.plan.Summary
	set := w.set
	s.End(w.done, w.completedAt, w.clock.Elapsed(), w.blocked)
	notes := []string{}
	onDelete := set.Spec.UpdateStrategy.Type == apps.OnDeleteStatefulSetStrategyType
	if *set.Spec.Replicas != w.startReplicas && w.startReplicas > 0 && w.changesTemplate() && !onDelete {
		notes = append(notes, NoteScalingFirst)
	}
	if set.Spec.UpdateStrategy.Type == apps.RollingUpdateStatefulSetStrategyType {
		ru := set.Spec.UpdateStrategy.RollingUpdate
		if ru != nil && ru.MaxUnavailable != nil {
			if w.gate {
				notes = append(notes, NoteGateVersions)
			} else {
				notes = append(notes, NoteGateOff)
			}
		}
		if w.gate && set.Spec.PodManagementPolicy == apps.ParallelPodManagement && w.changesTemplate() {
			notes = append(notes, NoteParallelTwoPhase)
		}
		if p := w.partition(); p > 0 && w.changesTemplate() {
			notes = append(notes, fmt.Sprintf("partition %d: %s keep revision %s (and are recreated at it if deleted); "+
				"status.currentRevision stays %s until the partition is lowered to 0.",
				p, w.belowPartition(p), w.plan.Header.OldRevision, w.plan.Header.OldRevision))
		}
	}
	if onDelete {
		if stale := w.stalePods(); len(stale) > 0 {
			notes = append(notes, fmt.Sprintf("OnDelete: nothing changes until pods are deleted. Deleting %s recreates each at revision %s.",
				strings.Join(stale, ", "), w.updateRev))
			if !w.done && s.StallReason == "" {
				s.StallReason = "OnDelete: pods keep their revision until they are deleted"
				s.WaitsForDeletion = true
			}
		}
	}
	if !w.done && s.StallReason == "" {
		s.StallReason = "no further progress possible"
	}
	if w.stuckPod != "" && !w.done {
		s.StallReason = fmt.Sprintf("pod %s of revision %s never becomes Running and Ready; %s", w.stuckPod, w.updateRev, w.blocked)
		if set.Spec.PodManagementPolicy == apps.OrderedReadyPodManagement {
			notes = append(notes, NoteStuckIntervention+fmt.Sprintf(" Here: kubectl delete pod %s.", w.stuckPod))
		} else {
			notes = append(notes, fmt.Sprintf("The rollout is stuck on pod %s, which never becomes Ready; fix the template and the controller replaces it.", w.stuckPod))
		}
	}
	w.plan.Notes = notes
	w.batching.Note(w.plan, w.timing.Spread)
	kernel.SortSteps(w.plan.Steps)
}

// changesTemplate reports whether the rollout moves pods to a new revision; a created
// StatefulSet (no old revision) has none to move from.
func (w *world) changesTemplate() bool {
	return w.plan.Header.OldRevision != "" && w.plan.Header.OldRevision != w.updateRev
}

// stalePods lists the pods, by ordinal, not at the update revision.
func (w *world) stalePods() []string {
	var names []string
	for _, ord := range w.ordinals() {
		if p := w.pods[ord]; p.revision != w.updateRev && !p.deleted {
			names = append(names, p.name)
		}
	}
	return names
}
