package statefulset

import (
	"fmt"
	"regexp"

	apps "k8s.io/api/apps/v1"
)

// The StatefulSet controller's helpers (pkg/controller/statefulset/stateful_set_utils.go).

// statefulPodRegex mirrors the controller's: a pod name is the parent's name, a dash, and the
// ordinal.
var statefulPodRegex = regexp.MustCompile("(.*)-([0-9]+)$")

// getStartOrdinal mirrors getStartOrdinal (stateful_set_utils.go): spec.ordinals.start, 0
// without it.
func getStartOrdinal(set *apps.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

// getPodName mirrors getPodName (stateful_set_utils.go): the set's name, a dash, the ordinal.
func getPodName(set *apps.StatefulSet, ordinal int) string {
	return fmt.Sprintf("%s-%d", set.Name, ordinal)
}

// partition is the RollingUpdate partition, 0 without one (stateful_set_control.go reads
// set.Spec.UpdateStrategy.RollingUpdate.Partition).
func (w *world) partition() int {
	if w.set.Spec.UpdateStrategy.Type == apps.RollingUpdateStatefulSetStrategyType && w.set.Spec.UpdateStrategy.RollingUpdate != nil &&
		w.set.Spec.UpdateStrategy.RollingUpdate.Partition != nil {
		return int(*w.set.Spec.UpdateStrategy.RollingUpdate.Partition)
	}
	return 0
}

// versionFor mirrors newVersionedStatefulSetPod (stateful_set_utils.go): under RollingUpdate a
// missing ordinal below start+partition is recreated at the current revision, every other one
// at the update revision (OnDelete included).
func (w *world) versionFor(ordinal int) string {
	ru := w.set.Spec.UpdateStrategy.RollingUpdate
	if w.set.Spec.UpdateStrategy.Type == apps.RollingUpdateStatefulSetStrategyType && ru != nil && ru.Partition != nil &&
		ordinal < getStartOrdinal(w.set)+int(*ru.Partition) {
		return w.currentRev
	}
	return w.updateRev
}

// maxUnavailable mirrors getStatefulSetMaxUnavailable: the field (default 1) scaled against
// replicas rounding down, at least 1. An invalid value resolves to 1.
//
// Example: "25%" of 5 replicas is 1.25 → 1; "10%" of 5 is 0.5 → 0 → 1.
func getStatefulSetMaxUnavailable(set *apps.StatefulSet) int {
	ru := set.Spec.UpdateStrategy.RollingUpdate
	if ru == nil {
		return 1
	}
	n, _, err := scaleMaxUnavailable(ru.MaxUnavailable, int(*set.Spec.Replicas))
	if err != nil {
		return 1
	}
	return n
}

// completeRollingUpdate mirrors completeRollingUpdate (stateful_set_utils.go): once replicas pods exist, all
// updated and ready, status.currentRevision becomes the update revision.
func (w *world) completeRollingUpdate() {
	replicas := int(*w.set.Spec.Replicas)
	created, updated, ready := 0, 0, 0
	for _, p := range w.pods {
		if !p.created {
			continue
		}
		created++
		if !p.deleted && p.revision == w.updateRev {
			updated++
		}
		if p.runningAndReady(w.clock.Now()) {
			ready++
		}
	}
	if created == replicas && updated == replicas && ready == replicas {
		w.currentRev = w.updateRev
	}
}
