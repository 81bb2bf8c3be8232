package statefulset

import (
	"fmt"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// The StatefulSet controller's pod calls (pkg/controller/statefulset/stateful_pod_control.go):
// CreateStatefulPod and DeleteStatefulPod with their events, on the simulated pods.

// create mirrors CreateStatefulPod (stateful_pod_control.go) and its event: it starts a pod
// created by this sync's creations, Ready Timing.ReadyAfter later (plus
// its draw from the ready spread), available minReadySeconds after that.
func (w *world) create(p *pod) {
	p.created = true
	p.readyAt = w.calls.Create().Add(w.timing.ReadyAfter + w.timing.Spread.Draw())
	p.availableAt = kernel.AvailableAt(p.readyAt, w.minReady)
	p.neverReady = w.failNew && p.revision == w.updateRev
	w.created++
	w.batching.Saw(w.created, w.clock.Elapsed())
	w.pods[p.ordinal] = p
	w.record(ReasonSuccessfulCreate, fmt.Sprintf("Create Pod %s in StatefulSet %s successful", p.name, w.set.Name))
}

// remove mirrors DeleteStatefulPod (stateful_pod_control.go) and its event: it deletes a pod,
// which terminates for Timing.TerminateAfter, then it is gone.
func (w *world) remove(p *pod) {
	p.deleted = true
	p.goneAt = w.calls.Delete().Add(w.timing.TerminateAfter)
	w.deleted++
	w.batching.Saw(w.deleted, w.clock.Elapsed())
	w.record(ReasonSuccessfulDelete, fmt.Sprintf("Delete Pod %s in StatefulSet %s successful", p.name, w.set.Name))
}
