package daemon

import (
	"sort"

	apps "k8s.io/api/apps/v1"
	daemonutil "k8s.io/kubernetes/pkg/controller/daemon/util"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/replicaset"
)

// The DaemonSet controller (pkg/controller/daemon/daemon_controller.go): syncDaemonSet, manage
// and syncNodes' pod creations and deletions. The rolling update is update.go; the simulated
// cluster it acts on, world.go.

// syncDaemonSet mirrors syncDaemonSet (daemon_controller.go): manage, then, once the
// controller's expectations are met (here: when manage did nothing, since the informer sees
// its actions at once), the rolling update.
func (w *world) syncDaemonSet() bool {
	wv := &wave{}
	w.calls = w.clock.NewSync()
	w.manage(wv)
	if wv.created+wv.deleted == 0 && w.ds.Spec.UpdateStrategy.Type == apps.RollingUpdateDaemonSetStrategyType {
		w.rollingUpdate(wv)
	}
	w.recordWave(wv)
	w.batching.Saw(max(wv.created, wv.deleted), w.clock.Elapsed())
	return wv.created+wv.deleted > 0
}

// manage mirrors manage and podsShouldBeOnNode (daemon_controller.go): a node that should run
// the DaemonSet and has no pod (terminating ones included) gets one; surplus running pods are
// deleted (without surge all but the oldest; with surge the old pod once the new one is
// available, or at once if the old one is not Ready); pods on nodes that should not keep running
// it are deleted.
func (w *world) manage(wv *wave) {
	surgeAllowed := daemonutil.AllowsSurge(w.ds)
	for _, n := range w.nodes {
		exists := len(n.pods) > 0
		switch {
		case n.shouldRun && !exists:
			w.create(n, wv)
		case n.shouldContinue:
			var running []*pod
			for _, p := range n.pods {
				if !p.deleted {
					running = append(running, p)
				}
			}
			sort.SliceStable(running, func(i, j int) bool { return running[i].created.Before(running[j].created) })
			if !surgeAllowed {
				for _, p := range running[min(1, len(running)):] {
					w.remove(n, p, wv)
				}
				continue
			}
			if len(running) == 0 && n.shouldRun {
				w.create(n, wv)
				continue
			}
			var oldestNew, oldestOld *pod
			for _, p := range running {
				switch {
				case p.hash == w.hash && oldestNew == nil:
					oldestNew = p
				case p.hash != w.hash && oldestOld == nil:
					oldestOld = p
				default:
					w.remove(n, p, wv)
				}
			}
			if oldestNew != nil && oldestOld != nil && (!oldestOld.ready(w.clock.Now()) || oldestNew.available(w.clock.Now())) {
				w.remove(n, oldestOld, wv)
			}
		case exists:
			for _, p := range n.pods {
				w.remove(n, p, wv)
			}
		}
	}
}

// wave collects one sync's pod actions for a single step.
type wave struct {
	created, deleted       int
	createdNew, deletedOld int
	ineligible             int
}

// create creates n's new pod, as syncNodes (daemon_controller.go) does. syncNodes issues a sync's
// creations in slow-start batches of 1, 2, 4, … (slowStartBatch), each after the one before
// returns, so the pods of different batches turn Ready at different instants, the controller
// syncing in between: with maxSurge 2, the first of two new pods is Ready alone, and its old pod is
// deleted before the second is Ready, as the real controller most often did (16 of 20 runs of 3
// nodes at maxSurge 50%, kwok, issue 35).
func (w *world) create(n *node, wv *wave) {
	created := replicaset.CreateNth(w.calls, wv.created)
	p := &pod{name: w.podName(), hash: w.hash, created: created, readyAt: created.Add(w.timing.ReadyAfter + w.timing.Spread.Draw())}
	p.availableAt = kernel.AvailableAt(p.readyAt, w.minReady)
	p.neverReady = w.timing.FailNew && len(w.oldHashes) > 0 || !n.ready
	if w.hostPort && w.surge > 0 && w.hasLiveOldPod(n) {
		// The scheduler's NodePorts filter rejects the new pod while the old one holds the port.
		p.neverReady = true
		w.deadlocked = true
	}
	n.pods = append(n.pods, p)
	wv.created++
	wv.createdNew++
}

// hasLiveOldPod reports whether n still runs a pod of an old revision that is not deleted.
func (w *world) hasLiveOldPod(n *node) bool {
	for _, p := range n.pods {
		if !p.deleted && p.hash != w.hash {
			return true
		}
	}
	return false
}

// remove deletes p from n, as syncNodes (daemon_controller.go) does, after the sync's
// creations (kernel.SyncCalls.Delete).
func (w *world) remove(n *node, p *pod, wv *wave) {
	if p.deleted {
		return
	}
	p.deleted = true
	p.goneAt = w.calls.Delete().Add(w.timing.TerminateAfter)
	wv.deleted++
	if p.hash != w.hash {
		wv.deletedOld++
	}
	if !n.shouldContinue {
		wv.ineligible++
	}
}
