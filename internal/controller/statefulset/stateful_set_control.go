package statefulset

import (
	"fmt"
	"sort"

	apps "k8s.io/api/apps/v1"
)

// The StatefulSet controller's sync (pkg/controller/statefulset/stateful_set_control.go):
// updateStatefulSet, runForAll, processReplica, processCondemned and the rolling update. The
// pod calls are stateful_pod_control.go; the simulated cluster, world.go.

// updateStatefulSet mirrors one pass of updateStatefulSet (stateful_set_control.go) over the
// simulated pods and reports whether it created or deleted any. The steps, in the controller's
// order:
//  1. split pods into replicas (ordinals in [start, start+replicas)) and condemned (the rest,
//     highest ordinal first); a missing ordinal gets a placeholder at the revision
//     newVersionedStatefulSetPod would give it;
//  2. processReplica for each replica (runForAll): OrderedReady creates one pod and returns, and
//     blocks on any pod that is terminating, not Running and Ready, or not available; Parallel
//     creates every missing pod at once;
//  3. processCondemned, highest ordinal first (runForAll): OrderedReady deletes one pod per pass
//     and only while every replica is healthy (scaling before updates);
//  4. OnDelete stops here; RollingUpdate deletes old-revision pods, highest ordinal first, down
//     to the partition, one at a time (gate off) or up to maxUnavailable (gate on).
func (w *world) updateStatefulSet() bool {
	set := w.set
	w.calls = w.clock.NewSync()
	w.created, w.deleted = 0, 0
	// What blocks the rollout is what blocked the last sync: a pod the controller waited for
	// at 2s and that is Ready at 4s blocks nothing any more.
	w.blocked = ""
	if set.Spec.UpdateStrategy.Type == apps.RecreateStatefulSetStrategyType {
		// StatefulSetRecreateStrategy is alpha and off in v1.37: updateStatefulSet records
		// UnknownStrategy and returns before touching any pod, scaling included.
		w.block("updateStrategy Recreate needs the StatefulSetRecreateStrategy feature gate (alpha, off by default in v1.37); the controller records UnknownStrategy and does nothing")
		return false
	}
	replicaCount := int(*set.Spec.Replicas)
	first := getStartOrdinal(set)
	replicas := make([]*pod, replicaCount)
	var condemned []*pod
	for _, ord := range w.ordinals() {
		p := w.pods[ord]
		if ord >= first && ord < first+replicaCount {
			replicas[ord-first] = p
		} else {
			condemned = append(condemned, p)
		}
	}
	for i := range replicas {
		if replicas[i] == nil {
			ord := first + i
			replicas[i] = &pod{ordinal: ord, name: getPodName(set, ord), revision: w.versionFor(ord)}
		}
	}
	sort.Slice(condemned, func(i, j int) bool { return condemned[i].ordinal > condemned[j].ordinal })
	var firstUnavailable *pod
	for _, p := range replicas {
		if p.unavailable(w.clock.Now()) && firstUnavailable == nil {
			firstUnavailable = p
		}
	}
	for i := len(condemned) - 1; i >= 0; i-- {
		if condemned[i].unavailable(w.clock.Now()) && firstUnavailable == nil {
			firstUnavailable = condemned[i]
		}
	}
	monotonic := set.Spec.PodManagementPolicy != apps.ParallelPodManagement
	exit, acted := runForAll(replicas, func(p *pod) (bool, bool) { return w.processReplica(p, monotonic) }, monotonic)
	if exit {
		return acted
	}
	exit, actedCondemned := runForAll(condemned, func(p *pod) (bool, bool) { return w.processCondemned(p, firstUnavailable, monotonic) }, monotonic)
	acted = acted || actedCondemned
	if exit {
		return acted
	}

	if set.Spec.UpdateStrategy.Type != apps.RollingUpdateStatefulSetStrategyType {
		return acted
	}
	if w.gate {
		return w.updateStatefulSetAfterInvariantEstablished(replicas) || acted
	}
	// Gate off: delete the highest-ordinal pod not at the update revision, then wait for it.
	for target := len(replicas) - 1; target >= w.partition(); target-- {
		p := replicas[target]
		if p.revision != w.updateRev && !p.deleted {
			w.remove(p)
			return true
		}
		if p.unavailable(w.clock.Now()) {
			w.noteWaiting(p)
			return acted
		}
	}
	return acted
}

// runForAll mirrors runForAll (stateful_set_control.go): OrderedReady runs fn over the pods
// in order and stops at the first that says to exit; Parallel runs it over all of them (upstream
// in slow-start batches of goroutines, whose calls are one batch here). It returns whether to
// exit the sync and whether any pod was created or deleted.
func runForAll(pods []*pod, fn func(*pod) (exit, acted bool), monotonic bool) (bool, bool) {
	actedAny := false
	for _, p := range pods {
		exit, acted := fn(p)
		actedAny = actedAny || acted
		if exit && monotonic {
			return true, actedAny
		}
	}
	return false, actedAny
}

// processReplica mirrors processReplica (stateful_set_control.go) for one replica: a failed pod
// is deleted (and recreated once gone); a missing one is created, and OrderedReady then exits
// the sync; OrderedReady also exits on a pod that is terminating, not Running and Ready, or not
// available (minReadySeconds), which is where a rollout waits.
func (w *world) processReplica(p *pod, monotonic bool) (exit, acted bool) {
	if p.failed {
		if !p.deleted {
			w.remove(p)
			acted = true
		}
		return monotonic, acted
	}
	if !p.created {
		w.create(p)
		if monotonic {
			return true, true
		}
		acted = true
	}
	if !monotonic {
		return false, acted
	}
	switch {
	case p.deleted:
		w.block("waiting for pod %s to terminate", p.name)
		return true, acted
	case !p.runningAndReady(w.clock.Now()):
		w.block("waiting for pod %s to be Running and Ready", p.name)
		if p.neverReady {
			w.stuckPod = p.name
		}
		return true, acted
	case !p.available(w.clock.Now()):
		w.block("waiting for pod %s to be available (minReadySeconds %d)", p.name, w.set.Spec.MinReadySeconds)
		return true, acted
	}
	return false, acted
}

// processCondemned mirrors processCondemned (stateful_set_control.go) for one pod beyond the
// replicas, highest ordinal first: OrderedReady waits for a terminating pod, and deletes only
// while every pod is healthy (firstUnavailable being this pod itself or none), one per sync;
// Parallel deletes them all at once.
func (w *world) processCondemned(p *pod, firstUnavailable *pod, monotonic bool) (exit, acted bool) {
	if p.deleted {
		if monotonic {
			w.block("waiting for pod %s to terminate before scaling down", p.name)
			return true, false
		}
		return false, false
	}
	if monotonic && p != firstUnavailable && !p.available(w.clock.Now()) {
		w.block("waiting for pod %s to be Running and available before scaling down", firstUnavailable.name)
		return true, false
	}
	w.remove(p)
	return monotonic, true
}

// noteWaiting records that the rolling update waits for p, stuck when p never turns Ready.
func (w *world) noteWaiting(p *pod) {
	w.block("waiting for pod %s to update", p.name)
	if p.neverReady {
		w.stuckPod = p.name
	}
}

// block records what the sync waits for (the plan's stall reason).
func (w *world) block(format string, args ...interface{}) {
	w.blocked = fmt.Sprintf(format, args...)
}

// updateStatefulSetAfterInvariantEstablished mirrors updateStatefulSetAfterInvariantEstablished
// (stateful_set_control.go, v1.37, MaxUnavailableStatefulSet on): count unavailable replicas (all
// ordinals, below the partition too); stop when the budget is used and, for Parallel, no old
// unavailable pod waits; Parallel then deletes in two phases (old pods that are already
// unavailable, then available old pods up to the remaining budget), OrderedReady in one pass of
// maxUnavailable − unavailable pods, highest ordinal first, down to the partition.
//
// Example (upstream TestStatefulSetControlRollingUpdateWithMaxUnavailable): Parallel, 6 replicas,
// partition 3, maxUnavailable 2: pods 5 and 4 are deleted together; once 4 is back and available
// while 5 is not, pod 3 is deleted.
func (w *world) updateStatefulSetAfterInvariantEstablished(replicas []*pod) bool {
	maxUnavail := getStatefulSetMaxUnavailable(w.set)
	parallel := w.set.Spec.PodManagementPolicy == apps.ParallelPodManagement
	unavailablePods, needingUpdate := 0, 0
	for _, p := range replicas {
		if p.unavailable(w.clock.Now()) {
			unavailablePods++
			if parallel && p.revision != w.updateRev && !p.deleted {
				needingUpdate++
			}
		}
	}
	if unavailablePods >= maxUnavail && needingUpdate == 0 {
		for target := len(replicas) - 1; target >= w.partition(); target-- {
			if p := replicas[target]; p.unavailable(w.clock.Now()) {
				w.noteWaiting(p)
				break
			}
		}
		return false
	}
	acted := false
	updateMin := w.partition()
	if parallel {
		for target := len(replicas) - 1; target >= updateMin; target-- {
			p := replicas[target]
			if p.revision != w.updateRev && !p.available(w.clock.Now()) && !p.deleted {
				w.remove(p)
				acted = true
			}
		}
		budget := maxUnavail - unavailablePods
		for target := len(replicas) - 1; target >= updateMin && budget > 0; target-- {
			p := replicas[target]
			if p.revision != w.updateRev && !p.unavailable(w.clock.Now()) {
				w.remove(p)
				acted = true
				budget--
			}
		}
		return acted
	}
	toDelete := maxUnavail - unavailablePods
	for target := len(replicas) - 1; target >= updateMin && toDelete > 0; target-- {
		p := replicas[target]
		if p.revision != w.updateRev && !p.deleted {
			w.remove(p)
			acted = true
			toDelete--
		}
	}
	return acted
}
