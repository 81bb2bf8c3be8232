package daemon

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	apps "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// roundUpText resolves v against desired rounding up, as daemonutil.UnavailableCount and
// SurgeCount do (both round percentages up, unlike a Deployment's maxUnavailable), and explains
// it.
//
// Example: "25%" of 5 nodes is 1.25 → 2 (rounded up).
func roundUpText(v *intstr.IntOrString, desired int) string {
	if v == nil {
		return "unset = 0"
	}
	_, text, err := kernel.Scaled(v, desired, true)
	if err != nil {
		return v.String() + " is not a number or a percentage"
	}
	return text
}

// header describes the DaemonSet, its nodes and its strategy resolved to numbers.
func (w *world) header(elig []Eligibility) kernel.Header {
	ds := w.ds
	h := kernel.Header{
		Namespace:   ds.Namespace,
		Name:        ds.Name,
		Strategy:    string(ds.Spec.UpdateStrategy.Type),
		Replicas:    int32(w.desired),
		NewRevision: w.revisionName(w.hash),
		NameNote:    "revision hashes depend on the pod template as this version encodes it",
	}
	pods := 0
	for _, n := range w.nodes {
		pods += len(n.pods)
	}
	switch {
	case len(w.oldHashes) > 0:
		h.OldRevision = w.revisionName(w.oldHashes[0])
	case pods > 0:
		h.OldRevision = h.NewRevision
	}
	// Otherwise the DaemonSet is created: there is no revision before this one.
	excluded := []string{}
	for _, e := range elig {
		if !e.ShouldRun {
			excluded = append(excluded, e.Node+" "+e.Reason)
		}
	}
	nodesText := fmt.Sprintf("%d of %d nodes run the DaemonSet", w.desired, len(elig))
	if len(excluded) > 0 {
		nodesText += "; excluded: " + strings.Join(excluded, "; ")
	}
	h.Settings = append(h.Settings, kernel.Setting{Name: "nodes", Value: strconv.Itoa(w.desired), Arithmetic: nodesText})
	if ds.Spec.UpdateStrategy.Type == apps.RollingUpdateDaemonSetStrategyType && ds.Spec.UpdateStrategy.RollingUpdate != nil {
		ru := ds.Spec.UpdateStrategy.RollingUpdate
		unavailableText := roundUpText(ru.MaxUnavailable, w.desired)
		switch {
		case w.surge > 0:
			unavailableText += "; ignored because maxSurge > 0"
		case w.desired > 0 && mustScale(ru.MaxUnavailable, w.desired) == 0:
			unavailableText += "; maxSurge is also 0, so the controller uses 1"
		}
		h.Settings = append(h.Settings,
			kernel.Setting{Name: "maxUnavailable", Value: valueString(ru.MaxUnavailable), Arithmetic: unavailableText},
			kernel.Setting{Name: "maxSurge", Value: valueString(ru.MaxSurge), Arithmetic: roundUpText(ru.MaxSurge, w.desired)})
	}
	h.Settings = append(h.Settings, kernel.Setting{Name: "minReadySeconds", Value: strconv.Itoa(int(ds.Spec.MinReadySeconds)),
		Arithmetic: (time.Duration(ds.Spec.MinReadySeconds) * time.Second).String() + " Ready before a pod counts as available"})
	h.MaxPods = int32(w.desired + w.surge)
	h.MinAvailable = int32(w.desired)
	if w.surge == 0 && ds.Spec.UpdateStrategy.Type == apps.RollingUpdateDaemonSetStrategyType {
		h.MinAvailable = int32(max(w.desired-w.unavailable, 0))
	}
	return h
}

func mustScale(v *intstr.IntOrString, desired int) int {
	n, err := intstr.GetScaledValueFromIntOrPercent(v, desired, true)
	if err != nil {
		return -1
	}
	return n
}

func valueString(v *intstr.IntOrString) string {
	if v == nil {
		return ""
	}
	return v.String()
}
