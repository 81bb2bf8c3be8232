package daemon

import (
	"fmt"

	apps "k8s.io/api/apps/v1"
	"k8s.io/kubernetes/pkg/controller"
)

// The DaemonSet controller's updates (pkg/controller/daemon/update.go): rollingUpdate,
// findUpdatedPodsOnNode and the revision hash (snapshot).

// RevisionHash is the hash the DaemonSet controller gives ds's template (snapshot in
// pkg/controller/daemon/update.go): controller.ComputeHash over the template and
// status.collisionCount. Its pods carry it in the controller-revision-hash label and its
// ControllerRevision is named "<ds>-<hash>".
func RevisionHash(ds *apps.DaemonSet) string {
	return controller.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
}

// rollingUpdate mirrors rollingUpdate (pkg/controller/daemon/update.go) over the nodes that
// should run the DaemonSet or have its pods.
//
// Without surge: every node with no pod, both pods, or an unavailable new pod counts as
// unavailable; an unavailable old pod is replaced regardless of the budget; then up to
// maxUnavailable − unavailable available old pods are deleted (the core loop recreates them
// once they are gone). Example: 5 nodes at maxUnavailable 25% → ⌈1.25⌉ = 2 old pods deleted per
// wave.
//
// With surge (maxUnavailable ignored): a node whose old pod is unavailable gets its new pod at
// once; up to maxSurge − (nodes with a new pod not yet available) more nodes get a new pod
// beside the old one; an old pod is deleted once the new pod on its node is available.
func (w *world) rollingUpdate(wv *wave) {
	if w.surge == 0 {
		numUnavailable := 0
		var allowed, candidates []*pod
		var allowedNodes, candidateNodes []*node
		for _, n := range w.nodes {
			if !n.shouldRun && len(n.pods) == 0 {
				continue
			}
			newPod, oldPod, ok := w.findUpdatedPodsOnNode(n)
			if !ok {
				numUnavailable++
				continue
			}
			switch {
			case oldPod == nil && newPod == nil, oldPod != nil && newPod != nil:
				numUnavailable++
			case newPod != nil:
				if !newPod.available(w.clock.Now()) {
					numUnavailable++
				}
			default:
				switch {
				case !oldPod.available(w.clock.Now()):
					allowed = append(allowed, oldPod)
					allowedNodes = append(allowedNodes, n)
					numUnavailable++
				case numUnavailable >= w.unavailable:
				default:
					candidates = append(candidates, oldPod)
					candidateNodes = append(candidateNodes, n)
				}
			}
		}
		remaining := min(max(w.unavailable-numUnavailable, 0), len(candidates))
		for i, p := range allowed {
			w.remove(allowedNodes[i], p, wv)
		}
		for i, p := range candidates[:remaining] {
			w.remove(candidateNodes[i], p, wv)
		}
		if len(allowed)+remaining == 0 && numUnavailable > 0 {
			w.blocked = fmt.Sprintf("waiting: %d of %d nodes unavailable (maxUnavailable %d)", numUnavailable, w.desired, w.unavailable)
		}
		return
	}

	var oldToDelete []*pod
	var oldToDeleteNodes []*node
	var shouldNotRun []*pod
	var shouldNotRunNodes []*node
	var candidateNodes, allowedNodes []*node
	numSurge, numAvailable := 0, 0
	for _, n := range w.nodes {
		if !n.shouldRun && len(n.pods) == 0 {
			continue
		}
		newPod, oldPod, ok := w.findUpdatedPodsOnNode(n)
		if !ok {
			numSurge++
			continue
		}
		if oldPod != nil {
			if oldPod.available(w.clock.Now()) {
				numAvailable++
			}
		} else if newPod != nil && newPod.available(w.clock.Now()) {
			numAvailable++
		}
		switch {
		case oldPod == nil:
		case newPod == nil:
			switch {
			case !oldPod.available(w.clock.Now()):
				if !n.shouldRun {
					oldToDelete = append(oldToDelete, oldPod)
					oldToDeleteNodes = append(oldToDeleteNodes, n)
					continue
				}
				allowedNodes = append(allowedNodes, n)
			default:
				if !n.shouldRun {
					shouldNotRun = append(shouldNotRun, oldPod)
					shouldNotRunNodes = append(shouldNotRunNodes, n)
					continue
				}
				if numSurge >= w.surge {
					continue
				}
				candidateNodes = append(candidateNodes, n)
			}
		default:
			if !newPod.available(w.clock.Now()) {
				numSurge++
				continue
			}
			oldToDelete = append(oldToDelete, oldPod)
			oldToDeleteNodes = append(oldToDeleteNodes, n)
		}
	}
	if deletable := numAvailable - w.desired; deletable > 0 {
		deletable = min(deletable, len(shouldNotRun))
		oldToDelete = append(oldToDelete, shouldNotRun[:deletable]...)
		oldToDeleteNodes = append(oldToDeleteNodes, shouldNotRunNodes[:deletable]...)
	}
	remaining := min(max(w.surge-numSurge, 0), len(candidateNodes))
	for i, p := range oldToDelete {
		w.remove(oldToDeleteNodes[i], p, wv)
	}
	for _, n := range append(allowedNodes, candidateNodes[:remaining]...) {
		w.create(n, wv)
	}
	if len(oldToDelete)+len(allowedNodes)+remaining == 0 && numSurge > 0 {
		w.blocked = fmt.Sprintf("waiting: %d new pods not yet available (maxSurge %d)", numSurge, w.surge)
	}
}

// findUpdatedPodsOnNode mirrors findUpdatedPodsOnNode (update.go): the node's one new and one
// old pod, ignoring deleted pods; ok is false when there are several of either.
func (w *world) findUpdatedPodsOnNode(n *node) (newPod, oldPod *pod, ok bool) {
	for _, p := range n.pods {
		if p.deleted {
			continue
		}
		if p.hash == w.hash {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}
