package deployment

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/replicaset"
)

// LogNormal is a delay distribution: Median × e^(Sigma × N(0,1)). Sigma 0 is always Median.
type LogNormal struct {
	Median time.Duration
	Sigma  float64
}

func (l LogNormal) draw(r *rand.Rand) time.Duration {
	if l.Sigma <= 0 {
		return l.Median
	}
	return time.Duration(float64(l.Median) * math.Exp(l.Sigma*r.NormFloat64()))
}

func (l LogNormal) String() string { return fmt.Sprintf("%s×e^(%.2f·N)", l.Median, l.Sigma) }

// Model is the physical timing model of a rollout on a real control plane (issue 44): instead
// of rules about which pods turn Ready together, the two controllers' work queues and the
// delays between them, sampled. Its parameters are four delay distributions, the same for
// every scenario:
//
//   - Ready: a created pod to its Ready condition as the ReplicaSet controller's informer
//     sees it (kube-scheduler's bind, kwok's pod-ready stage, which has no delay of its own in
//     the e2e's stages (test/e2e/controllers.go), and the watch), drawn once per sync, plus
//     Jitter, drawn per pod.
//   - API: one API call (a pod create or delete, a ReplicaSet or status update).
//   - Watch: a write to the informers of the other controller (event delivery).
//   - Pickup: a queued key to a worker starting its sync (the controller's CPU share).
//   - Work: a sync's own processing before its first call.
//
// What is modelled (pkg/controller/replicaset, pkg/controller/deployment, client-go's
// workqueue): one key per controller (the Deployment, each ReplicaSet); a key added while it
// waits is processed once; a key added while being processed is processed once more after.
// A ReplicaSet sync lists the pods at its start, creates the missing ones in slow-start
// batches (each batch's calls in parallel, the next batch once they all returned) or deletes
// the surplus in parallel, then writes a status computed from the pods listed at its start
// (calculateStatus on filteredPods), if it changed. Expectations keep a sync from managing
// pods again until the informer has seen its own creations and deletions. A deleted pod is
// terminating, so not active, as soon as the deletion is stored. A Deployment sync reads the
// ReplicaSets' statuses as its informer last saw them and scales them (the mirror of
// syncDeployment); each ReplicaSet update, its own status write and its requeues (progress
// deadline) queue it again.
type Model struct {
	Ready LogNormal
	// Jitter is each pod's own delay on top of its sync's Ready draw: the pods a sync creates
	// go through kube-scheduler and kwok together, so their Ready times share one draw and
	// differ by this (kwok readied the pods of one batch 15-44ms apart, issue 35).
	Jitter LogNormal
	API    LogNormal
	Watch  LogNormal
	Pickup LogNormal
	// Work is a sync's own processing before its first API call (the controller's CPU on a
	// busy machine): the sync lists its state at its start, and events meanwhile queue its
	// key again, to be processed once after it (dirty).
	Work LogNormal
}

func (m Model) String() string {
	return fmt.Sprintf("ready %s + %s, api %s, watch %s, pickup %s, work %s", m.Ready, m.Jitter, m.API, m.Watch, m.Pickup, m.Work)
}

// mPod is one pod in the model: when the ReplicaSet controller's informer sees it created,
// Ready and deleted.
type mPod struct {
	seen, readySeen time.Duration
	availableAt     time.Duration
	neverReady      bool
	// deleted: the ReplicaSet controller deleted it (expectations count it gone); deleteSeen
	// is when its informer sees the deletion; goneAt when it no longer exists.
	deleted    bool
	deleteSeen time.Duration
	goneAt     time.Duration
}

// mEvent is one event of the model's clock.
type mEvent struct {
	at  time.Duration
	seq int
	fn  func()
}

type mEvents []*mEvent

func (e mEvents) Len() int { return len(e) }
func (e mEvents) Less(i, j int) bool {
	if e[i].at != e[j].at {
		return e[i].at < e[j].at
	}
	return e[i].seq < e[j].seq
}
func (e mEvents) Swap(i, j int) { e[i], e[j] = e[j], e[i] }
func (e *mEvents) Push(x any)   { *e = append(*e, x.(*mEvent)) }
func (e *mEvents) Pop() any     { o := *e; x := o[len(o)-1]; *e = o[:len(o)-1]; return x }

// mQueue is one key of a client-go work queue with one worker for it: waiting (queued, not
// yet processed), processing, and dirty (added while processing).
type mQueue struct {
	waiting, processing, dirty bool
}

// modelWorld is one sampled run of the model.
type modelWorld struct {
	w      *world
	m      Model
	rng    *rand.Rand
	now    time.Duration
	events mEvents
	seq    int
	pods   map[types.UID][]*mPod
	// written is each ReplicaSet's last written status (what a status write compares with),
	// writes counts its status writes and shown is the write the Deployment controller's
	// informer last delivered: a watch delivers writes in order, so an older write that
	// arrives later is not shown.
	written map[types.UID]apps.ReplicaSetStatus
	writes  map[types.UID]int
	shown   map[types.UID]int
	queues  map[string]*mQueue
	msgs    []string
	quantum time.Duration
}

// ModelQuantum is the kwok stage quantum of the Ready condition's lastTransitionTime the e2e's
// controllers use for pods with minReadySeconds (KwokQuantizedPodStages): a pod is available
// minReadySeconds after the next multiple of it. 0 dates the condition when the pod turns
// Ready.
var ModelQuantum = 4 * time.Second

// SampleModel runs the model once, from the starting state of in, with the pseudo-random
// sequence of seed, and returns the Deployment controller's ScalingReplicaSet messages in
// order. Input.Changes are not modelled.
func SampleModel(in Input, m Model, seed uint64) ([]string, error) {
	if len(in.Changes) > 0 {
		return nil, errors.New("predict: the rollout model does not take timed changes")
	}
	in.Timing.Spread = nil
	w, err := newWorld(in)
	if err != nil {
		return nil, err
	}
	mw := &modelWorld{w: w, m: m, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		pods: map[types.UID][]*mPod{}, written: map[types.UID]apps.ReplicaSetStatus{}, writes: map[types.UID]int{}, shown: map[types.UID]int{}, queues: map[string]*mQueue{}, quantum: ModelQuantum}
	for _, rs := range w.rsList {
		mw.adopt(rs)
	}
	w.dc.now = func() time.Time { return w.clock.Start().Time.Add(mw.now) }
	w.dc.event = func(reason, message string) {
		if reason == ReasonScaling {
			mw.msgs = append(mw.msgs, message)
		}
	}
	w.dc.createRS = func(rs *apps.ReplicaSet) *apps.ReplicaSet {
		rs = w.createRS(rs)
		rs.CreationTimestamp.Time = w.dc.now()
		mw.pods[rs.UID] = nil
		return rs
	}
	w.dc.deleteRS = func(rs *apps.ReplicaSet) {
		w.deleteRS(rs)
		delete(mw.pods, rs.UID)
	}
	// The apply is a Deployment update event.
	mw.add("deployment", mw.watch())
	for n := 0; len(mw.events) > 0; n++ {
		if n == modelEventLimit(in.MaxEvents) {
			return mw.msgs, fmt.Errorf("predict: rollout model: no end after %d events", n)
		}
		e := heap.Pop(&mw.events).(*mEvent)
		mw.now = max(mw.now, e.at)
		e.fn()
	}
	return mw.msgs, nil
}

// adopt turns the starting pods of rs (world's groups) into model pods.
func (mw *modelWorld) adopt(rs *apps.ReplicaSet) {
	p := mw.w.pods[rs.UID]
	var out []*mPod
	for range p.available {
		out = append(out, &mPod{})
	}
	for _, g := range p.pending {
		for range g.count {
			mp := &mPod{neverReady: g.neverReady}
			if !g.ready && !g.neverReady {
				mp.readySeen = mw.m.Ready.draw(mw.rng)
				mw.at(mp.readySeen, func() { mw.add(string(rs.UID), 0) })
			}
			mp.availableAt = mw.availableAt(rs, mp.readySeen)
			out = append(out, mp)
		}
	}
	for _, g := range p.terminating {
		for range g.count {
			out = append(out, &mPod{deleted: true, goneAt: mw.m.Ready.draw(mw.rng)})
		}
	}
	mw.pods[rs.UID] = out
	mw.written[rs.UID] = rs.Status
}

// at schedules fn at time t (never before now).
func (mw *modelWorld) at(t time.Duration, fn func()) {
	mw.seq++
	heap.Push(&mw.events, &mEvent{at: max(t, mw.now), seq: mw.seq, fn: fn})
}

func (mw *modelWorld) watch() time.Duration { return mw.now + mw.m.Watch.draw(mw.rng) }

// add adds key to its queue at time t (client-go workqueue.Add).
func (mw *modelWorld) add(key string, t time.Duration) {
	mw.at(t, func() {
		q := mw.queues[key]
		if q == nil {
			q = &mQueue{}
			mw.queues[key] = q
		}
		switch {
		case q.processing:
			q.dirty = true
		case q.waiting:
		default:
			q.waiting = true
			mw.at(mw.now+mw.m.Pickup.draw(mw.rng), func() { mw.process(key) })
		}
	})
}

// process runs key's sync; done is called at the sync's end (workqueue.Done).
func (mw *modelWorld) process(key string) {
	q := mw.queues[key]
	q.waiting, q.processing = false, true
	var took time.Duration
	if key == "deployment" {
		took = mw.syncDeployment(mw.m.Work.draw(mw.rng))
	} else {
		took = mw.syncReplicaSet(types.UID(key), mw.m.Work.draw(mw.rng))
	}
	mw.at(mw.now+took, func() {
		q.processing = false
		if q.dirty {
			q.dirty = false
			mw.add(key, mw.now)
		}
	})
}

// rsByUID is the ReplicaSet of uid, nil once deleted.
func (mw *modelWorld) rsByUID(uid types.UID) *apps.ReplicaSet {
	for _, rs := range mw.w.rsList {
		if rs.UID == uid {
			return rs
		}
	}
	return nil
}

// availableAt is when a pod Ready (as seen) at readySeen is available: at once without
// minReadySeconds; otherwise minReadySeconds after its Ready condition's time, which kwok's
// quantized stage dates at the next multiple of the quantum of the wall clock.
func (mw *modelWorld) availableAt(rs *apps.ReplicaSet, readySeen time.Duration) time.Duration {
	m := time.Duration(rs.Spec.MinReadySeconds) * time.Second
	if m == 0 {
		return readySeen
	}
	start := mw.w.clock.Start().Time
	wall := start.Add(readySeen)
	if mw.quantum > 0 {
		wall = wall.Truncate(mw.quantum).Add(mw.quantum)
	} else {
		wall = wall.Truncate(time.Second)
	}
	return wall.Add(m).Sub(start)
}

// syncReplicaSet mirrors syncReplicaSet (pkg/controller/replicaset) for uid at now and returns
// how long it took.
func (mw *modelWorld) syncReplicaSet(uid types.UID, work time.Duration) time.Duration {
	rs := mw.rsByUID(uid)
	if rs == nil {
		return 0
	}
	key := string(uid)
	pods := mw.pods[uid]
	now := mw.now
	// The lister at the start of the sync: pods seen created and not seen deleted.
	var listed []*mPod
	satisfied := true
	active := int32(0)
	for _, p := range pods {
		if p.seen > now || p.deleted && p.deleteSeen > now {
			satisfied = false
		}
		if !p.deleted {
			active++
		}
		if p.seen <= now && !(p.deleted && p.deleteSeen <= now) {
			listed = append(listed, p)
		}
	}
	took := work
	diff := *rs.Spec.Replicas - active
	isNew := mw.w.isNewTemplate(rs)
	switch {
	case !satisfied || diff == 0:
	case diff > 0 && mw.w.timing.RefuseNew && isNew:
	case diff > 0:
		common := mw.m.Ready.draw(mw.rng)
		for _, n := range replicaset.SlowStartBatch(diff) {
			batch := time.Duration(0)
			for range n {
				batch = max(batch, mw.m.API.draw(mw.rng))
			}
			took += batch
			for range n {
				created := now + took
				p := &mPod{seen: created + mw.m.Watch.draw(mw.rng), neverReady: mw.w.timing.FailNew && isNew}
				mw.add(key, p.seen)
				if !p.neverReady {
					// The informer delivers the pod's creation before its Ready update.
					p.readySeen = max(created+common+mw.m.Jitter.draw(mw.rng), p.seen)
					p.availableAt = mw.availableAt(rs, p.readySeen)
					mw.add(key, p.readySeen)
					if p.availableAt > p.readySeen {
						mw.add(key, p.availableAt)
					}
				}
				pods = append(pods, p)
			}
		}
	default:
		// getPodsToDelete: not ready before ready, ready for a shorter time first; among
		// equals the newest.
		victims := make([]*mPod, 0)
		for _, p := range pods {
			if !p.deleted {
				victims = append(victims, p)
			}
		}
		rank := func(p *mPod) (int, time.Duration) {
			if p.neverReady || p.readySeen > now {
				return 0, -p.seen
			}
			return 1, -p.readySeen
		}
		for i := 1; i < len(victims); i++ {
			for j := i; j > 0; j-- {
				a, at := rank(victims[j])
				b, bt := rank(victims[j-1])
				if a < b || a == b && at < bt {
					victims[j], victims[j-1] = victims[j-1], victims[j]
				}
			}
		}
		for _, p := range victims[:-diff] {
			call := work + mw.m.API.draw(mw.rng)
			took = max(took, call)
			p.deleted = true
			p.deleteSeen = now + call + mw.m.Watch.draw(mw.rng)
			p.goneAt = now + call + mw.m.Ready.draw(mw.rng)
			mw.add(key, p.deleteSeen)
			gone := p.goneAt
			mw.at(gone, func() {
				if mw.w.d.Spec.Strategy.Type == apps.RecreateDeploymentStrategyType {
					mw.add("deployment", gone+mw.m.Watch.draw(mw.rng))
				}
			})
		}
	}
	mw.pods[uid] = pods
	// calculateStatus on the pods listed at the start.
	st := rs.Status
	st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.FullyLabeledReplicas = 0, 0, 0, 0
	next := time.Duration(-1)
	for _, p := range listed {
		st.Replicas++
		if p.neverReady || p.readySeen > now {
			continue
		}
		st.ReadyReplicas++
		if p.availableAt <= now {
			st.AvailableReplicas++
		} else if next < 0 || p.availableAt < next {
			next = p.availableAt
		}
	}
	st.FullyLabeledReplicas = st.Replicas
	st.ObservedGeneration = rs.Generation
	if next >= 0 {
		mw.add(key, next)
	}
	if !apiequality.Semantic.DeepEqual(st, mw.written[uid]) {
		took += mw.m.API.draw(mw.rng)
		mw.written[uid] = st
		mw.writes[uid]++
		k := mw.writes[uid]
		seen := now + took + mw.m.Watch.draw(mw.rng)
		mw.at(seen, func() {
			if rs := mw.rsByUID(uid); rs != nil && k > mw.shown[uid] {
				mw.shown[uid] = k
				rs.Status = st
				mw.add("deployment", mw.now)
			}
		})
	}
	return took
}

// syncDeployment runs the Deployment controller's mirror at now on the ReplicaSets as its
// informer sees them and returns how long it took.
func (mw *modelWorld) syncDeployment(work time.Duration) time.Duration {
	w := mw.w
	before := map[types.UID]int32{}
	for _, rs := range w.rsList {
		before[rs.UID] = *rs.Spec.Replicas
	}
	var podMap map[types.UID][]*v1.Pod
	if w.d.Spec.Strategy.Type == apps.RecreateDeploymentStrategyType {
		podMap = map[types.UID][]*v1.Pod{}
		running := &v1.Pod{Status: v1.PodStatus{Phase: v1.PodRunning}}
		for uid, pods := range mw.pods {
			for _, p := range pods {
				if p.goneAt > mw.now || !p.deleted {
					podMap[uid] = []*v1.Pod{running}
					break
				}
			}
		}
	}
	beforeStatus := w.d.Status.DeepCopy()
	beforeRevision := w.d.Annotations[deploymentutil.RevisionAnnotation]
	w.dc.wrote = false
	w.dc.requeue = w.dc.requeue[:0]
	if err := w.dc.syncDeployment(w.d, append([]*apps.ReplicaSet(nil), w.rsList...), podMap); err != nil {
		return 0
	}
	took := work
	for _, rs := range w.rsList {
		if b, ok := before[rs.UID]; ok && b == *rs.Spec.Replicas {
			continue
		}
		took += mw.m.API.draw(mw.rng)
		uid := string(rs.UID)
		mw.add(uid, mw.now+took+mw.m.Watch.draw(mw.rng))
		mw.add("deployment", mw.now+took+mw.m.Watch.draw(mw.rng))
	}
	if w.dc.wrote || beforeRevision != w.d.Annotations[deploymentutil.RevisionAnnotation] || !apiequality.Semantic.DeepEqual(beforeStatus, &w.d.Status) {
		took += mw.m.API.draw(mw.rng)
		mw.add("deployment", mw.now+took+mw.m.Watch.draw(mw.rng))
	}
	start := w.clock.Start().Time
	for _, t := range w.dc.requeue {
		if d := t.Sub(start); d > mw.now {
			mw.add("deployment", d)
		}
	}
	return took
}

// modelEventLimit bounds a sampled run: n, or 50 events per pod-sized step of a rollout of a
// few hundred pods when n is 0.
func modelEventLimit(n int) int {
	if n > 0 {
		return n
	}
	return 100_000
}
