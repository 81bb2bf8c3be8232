package deployment

import (
	"time"

	apps "k8s.io/api/apps/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// NoteRecreateDeadlineRace is the plan note of a Recreate rollout whose progress deadline
// fires: upstream's getNewReplicaSet records "Created new replica set" in the same status write
// as the revision, and when that write conflicts (a stale informer cache, under load) the retry
// finds the ReplicaSet and leaves the condition alone. The condition then keeps the previous
// rollout's NewReplicaSetAvailable reason, and syncRolloutStatus, seeing every pod updated,
// takes the rollout for complete: the deadline never fires.
const NoteRecreateDeadlineRace = "Recreate: the deadline fires only if the controller's status write when it creates the new ReplicaSet succeeds; " +
	"if that write conflicts (it happens under load), the Progressing condition keeps the previous rollout's NewReplicaSetAvailable reason and, every pod being updated, the rollout never times out"

// Step reasons. ReasonScaling is the controller's event reason for every scale action.
const (
	ReasonScaling          = "ScalingReplicaSet"
	ReasonDeadlineExceeded = "ProgressDeadlineExceeded"
)

// PodPhase is the state of a group of pods in a starting state.
type PodPhase string

// The pod phases a starting state can hold.
const (
	// PodNotReady pods are running but not Ready; they become Ready ReadyAfter after the start.
	PodNotReady PodPhase = "NotReady"
	// PodReady pods are Ready but not yet Available; they become Available after minReadySeconds.
	PodReady PodPhase = "Ready"
	// PodAvailable pods are Ready for at least minReadySeconds.
	PodAvailable PodPhase = "Available"
	// PodTerminating pods are deleted and still running; they are gone TerminateAfter after the start.
	PodTerminating PodPhase = "Terminating"
	// PodStuck pods will not become Ready on their own: unschedulable, or waiting on an image
	// that cannot be pulled, or crash-looping.
	PodStuck PodPhase = "Stuck"
)

// PodGroup is a number of pods of one ReplicaSet in the same phase.
type PodGroup struct {
	Phase PodPhase
	Count int32
}

// ReplicaSetState is one ReplicaSet of a starting state with its pods.
type ReplicaSetState struct {
	// ReplicaSet must have a name, a creation timestamp, spec.replicas and a template. Its
	// status is recomputed from Pods.
	ReplicaSet *apps.ReplicaSet
	Pods       []PodGroup
}

// Input is what Simulate needs. Deployment is the desired state (the new manifest), already
// defaulted. The starting state is either Old (the previous version, assumed fully rolled out
// and available) or ReplicaSets (a state taken mid-rollout); with neither, the Deployment starts
// from nothing.
type Input struct {
	Deployment  *apps.Deployment
	Old         *apps.Deployment
	ReplicaSets []ReplicaSetState
	Timing      kernel.Timing
	// Start is the simulated wall time of the first sync; the zero value means a fixed epoch.
	// The simulation never reads the real clock.
	Start time.Time
	// MaxEvents bounds the simulation; 0 means kernel.DefaultMaxEvents, enough to roll out
	// about 100,000 replicas one pod at a time. A plan cut short says so in its stall reason.
	MaxEvents int
	// Changes edit the Deployment while the simulation runs, in time order: a rollover (apply
	// v3 while v2 rolls out), pause, edits and resume, or a scale in the middle of a rollout.
	Changes []Change
}

// Change is an edit of the Deployment at a simulated time, as kubectl apply, scale or
// rollout pause/resume would make it.
type Change struct {
	// At is the time since the start; it must be positive.
	At time.Duration
	// Deployment is the new desired state, defaulted. Its spec replaces the current spec (a
	// changed spec bumps metadata.generation) and its labels replace the current labels; its
	// annotations replace the current ones except the revision annotations, which the
	// controller owns.
	Deployment *apps.Deployment
	// Description is the step's message, for example "apply web-v3.yaml".
	Description string
}
