// Package replicaset mirrors the ReplicaSet controller's slow start (pkg/controller/replicaset,
// replica_set.go): how a sync splits its pod creations into batches of 1, 2, 4, …, each issued
// once the API calls of the one before have returned. The Deployment simulator
// (internal/controller/deployment) creates a ReplicaSet's pods through it, and the DaemonSet
// simulator (internal/controller/daemon) its nodes' pods, as upstream's syncNodes calls
// slowStartBatch too.
package replicaset

import (
	"time"

	"k8s.io/kubernetes/pkg/controller"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// SlowStartBatch is how the ReplicaSet and DaemonSet controllers split n pod creations
// (slowStartBatch in pkg/controller/replicaset/replica_set.go, from
// controller.SlowStartInitialBatchSize):
// 1, then twice the previous batch, each batch issued once the calls of the one before return.
//
// Example: 7 pods are created as 1, 2, 4; 10 as 1, 2, 4, 3.
func SlowStartBatch(n int32) []int32 {
	var out []int32
	size := int32(controller.SlowStartInitialBatchSize)
	for n > 0 {
		b := min(size, n)
		out = append(out, b)
		n -= b
		size *= 2
	}
	return out
}

// CreationBatch is one slow-start batch of a sync's pod creations: Count pods created at At.
type CreationBatch struct {
	Count int32
	At    kernel.Instant
}

// CreateBatches is the instants of n pod creations of the sync s, as slowStartBatch
// (pkg/controller/replicaset/replica_set.go) issues them: batches of 1, 2, 4, … (SlowStartBatch),
// each issued once the calls of the one before have returned, so each batch is a batch of API
// calls of its own, after the one before. The first batch is the sync's Create instant. A sync
// makes all its creations before its first Delete, as the controllers do.
//
// Example: 3 pods are a batch of 1 at the sync's creation instant {t, c} and a batch of 2 at
// {t, c+1}; without a ready spread the first pod turns Ready before the other two, and the
// controllers sync in between.
func CreateBatches(s *kernel.SyncCalls, n int32) []CreationBatch {
	var out []CreationBatch
	for i, size := range SlowStartBatch(n) {
		out = append(out, CreationBatch{Count: size, At: s.Batch(i)})
	}
	return out
}

// CreateNth is the instant of the sync's i-th pod creation (from 0), in the slow-start batch
// slowStartBatch puts it in: for a controller that decides its creations one at a time (the
// DaemonSet controller's syncNodes creates on a list of nodes with slowStartBatch too).
//
// Example: creations 0, 1 and 2 are in batches 0, 1 and 1; creation 3 in batch 2.
func CreateNth(s *kernel.SyncCalls, i int) kernel.Instant {
	k := 0
	for end := 1; i >= end; end = 2*end + 1 {
		k++
	}
	return s.Batch(k)
}

// SpreadBatch is a number of pods that turn Ready Extra after ReadyAfter.
type SpreadBatch struct {
	Count int32
	Extra time.Duration
}

// SpreadBatches spreads the Ready times of n pods created by one sync: each slow-start batch
// (SlowStartBatch) draws its own extra time from s, and a later batch, created after the
// earlier one's calls returned, is never Ready before it. Without a spread, one batch of n.
//
// Example: 7 pods with draws 40ms, 10ms, 70ms are Ready in batches of 1 at +40ms, 2 at +40ms
// (never before the first) and 4 at +70ms.
func SpreadBatches(s *kernel.Spread, n int32) []SpreadBatch {
	if !s.Active() {
		return []SpreadBatch{{Count: n}}
	}
	var out []SpreadBatch
	floor := time.Duration(0)
	for _, size := range SlowStartBatch(n) {
		extra := max(s.Draw(), floor)
		floor = extra
		out = append(out, SpreadBatch{Count: size, Extra: extra})
	}
	return out
}
