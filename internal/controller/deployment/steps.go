package deployment

import (
	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// sizes are the ReplicaSets now, oldest first: spec.replicas, pods (terminating ones
// included) and available pods.
func (w *world) sizes() []kernel.RevisionSize {
	sizes := make([]kernel.RevisionSize, 0, len(w.rsList))
	for _, rs := range w.rsList {
		p := w.pods[rs.UID]
		sizes = append(sizes, kernel.RevisionSize{Name: rs.Name, Replicas: *rs.Spec.Replicas, Pods: p.active() + p.terminatingCount(), Available: p.available,
			Ready: p.ready(), Terminating: p.terminatingCount()})
	}
	return sizes
}

// eventSizes is the state a step's own event leaves, from the ReplicaSets at the event (event:
// spec.replicas just after it, pods as before the sync) and after the whole sync (final). A
// ReplicaSet whose spec.replicas the rest of the sync does not change shows its final pods:
// the ReplicaSet controller acts on that size. One that a later event of the sync resizes
// shows its size and pods at the event. A ReplicaSet created later in the sync is left out.
// A step without an event snapshot (an edit of the Deployment) shows the final state.
//
// Example: 10 replicas, maxSurge 3, maxUnavailable 2, old at 10: the sync scales the new
// ReplicaSet 0→3, then the old 10→8. The first step shows old 10 (10 pods, 10 available) and
// new 3 (3 pods); the second old 8 (10 pods, two terminating, 8 available) and new 3.
func eventSizes(event, final []kernel.RevisionSize) ([]kernel.RevisionSize, int32, int32) {
	if event == nil {
		event = final
	}
	at := make(map[string]kernel.RevisionSize, len(event))
	for _, e := range event {
		at[e.Name] = e
	}
	out := make([]kernel.RevisionSize, 0, len(final))
	var pods, available int32
	for _, f := range final {
		e, ok := at[f.Name]
		if !ok {
			continue
		}
		if e.Replicas == f.Replicas {
			e = f
		}
		out = append(out, e)
		pods += e.Pods
		available += e.Available
	}
	return out, pods, available
}
