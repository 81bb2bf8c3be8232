// Package predict simulates a Deployment rollout with the Deployment controller's own
// arithmetic (k8s.io/kubernetes v1.37.1, pkg/controller/deployment), in a discrete-event world
// on an injected clock. It never imports cobra and never prints: Simulate takes plain inputs and
// returns a Plan.
package predict

import (
	"time"

	apps "k8s.io/api/apps/v1"
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
	// ReasonChange marks a step where Input.Changes edited the Deployment; it is not a
	// controller event.
	ReasonChange = "Change"
)

// Timing holds the world's timing parameters. minReadySeconds comes from the Deployment spec.
type Timing struct {
	// ReadyAfter is how long a created pod takes to become Ready.
	ReadyAfter time.Duration
	// TerminateAfter is how long a deleted pod keeps running before it is gone.
	TerminateAfter time.Duration
	// FailNew makes the pods of the new ReplicaSet (the one whose template equals the
	// Deployment's) never become Ready.
	FailNew bool
	// Spread, when set, adds to each created pod's ReadyAfter its own draw from [0, D): the
	// pods of one batch then turn Ready apart, as they do in a real cluster, and the
	// controllers may take smaller steps (--ready-spread). Nil is the deterministic causal
	// plan, in which a batch turns Ready together.
	Spread *Spread
}

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
	Timing      Timing
	// Start is the simulated wall time of the first sync; the zero value means a fixed epoch.
	// The simulation never reads the real clock.
	Start time.Time
	// MaxEvents bounds the simulation; 0 means 200,000, enough to roll out about 100,000
	// replicas one pod at a time. A plan cut short says so in its stall reason.
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

// ReplicaSetSize is one ReplicaSet's size at a step.
type ReplicaSetSize struct {
	Name string
	// Replicas is spec.replicas.
	Replicas int32
	// Pods counts the ReplicaSet's pods that exist, including terminating ones.
	Pods int32
	// Available counts its available pods.
	Available int32
}

// Step is one controller action: a scale event or a condition flip.
type Step struct {
	// At is the time since the start.
	At time.Duration
	// Seq orders steps taken at the same time.
	Seq int
	// Sync numbers the controller sync that took the step: steps of one sync share it, and
	// the bounds a strategy promises hold after each sync (within one, the controller's calls
	// pass through states such as a proportional scale-up before its scale-down). 0 when the
	// simulator does not say.
	Sync   int
	Reason string
	// Message is the controller's event text, for example
	// "Scaled up replica set web-6c5f67b5f7 from 0 to 1".
	Message string
	// ReplicaSets lists every ReplicaSet, oldest first, as this event leaves it: a ReplicaSet
	// the event (or an earlier one) resized shows its pods after the ReplicaSet controller
	// acted on that size; one that a later event of the same sync resizes still shows its
	// size and pods from before. The last step of a sync shows the state after the sync.
	ReplicaSets []ReplicaSetSize
	// Pods counts every pod that exists, terminating ones included.
	Pods int32
	// Available counts available pods.
	Available int32

	// event holds the ReplicaSets as the event left them: spec.replicas at the event, and
	// the pods before the ReplicaSet controller acted on the sync (see eventSizes).
	event []ReplicaSetSize
}

// Summary describes how the rollout ends.
type Summary struct {
	// Completed is true when the Deployment ends complete (DeploymentComplete).
	Completed bool
	// Duration is when it became complete, or when the simulation ran out of events.
	Duration time.Duration
	// StallReason says why a rollout that did not complete stopped.
	StallReason string
	// PeakPods is the most pods that existed at once, terminating ones included.
	PeakPods int32
	// MinAvailable is the fewest available pods at any time.
	MinAvailable int32
	// DeadlineExceeded is true when Progressing flipped to ProgressDeadlineExceeded, at
	// DeadlineAt. LastProgressAt is the Progressing condition's last update before that.
	DeadlineExceeded bool
	DeadlineAt       time.Duration
	LastProgressAt   time.Duration
	// WaitsForDeletion is true when the update strategy is OnDelete and old pods remain: the
	// controller replaces a pod only once someone deletes it. That is the user's choice, not a
	// stall: the rollout is not Completed, and not a failure either.
	WaitsForDeletion bool
}

// Plan is the predicted rollout: a header describing the workload and its resolved strategy,
// the steps sorted by time then sequence, notes, and a summary. The same model serves every
// workload kind: for a StatefulSet or a DaemonSet, Step.ReplicaSets holds one entry per
// controller revision.
type Plan struct {
	// Kind is the workload kind: "Deployment", "StatefulSet" or "DaemonSet".
	Kind   string
	Header Header
	// NewReplicaSet is the name of the ReplicaSet (or controller revision) the rollout ends on.
	NewReplicaSet string
	Steps         []Step
	// Notes are facts a reader needs beside the steps: version-dependent behaviour, a
	// deadlock, a manual intervention.
	Notes   []string
	Summary Summary
	// End is when the simulation ran out of events, and Final the ReplicaSets then, after the
	// last pods terminated or became available (no step records those moments).
	End   time.Duration
	Final []ReplicaSetSize
	// Timeline is the pods at every instant they changed, from the start to End: between two
	// steps, pods turn Ready and Available and terminating pods go away. A picture draws it.
	Timeline []Sample
}

// Header describes the workload and its strategy, resolved to numbers.
type Header struct {
	Namespace string
	Name      string
	// Strategy is the update strategy type, for example "RollingUpdate" or "Recreate".
	Strategy string
	Replicas int32
	// Settings are the strategy's parameters with the arithmetic that resolved them, in a
	// fixed order.
	Settings []Setting
	// OldRevision and NewRevision are the revision before and after the rollout; equal when
	// the template does not change.
	OldRevision string
	NewRevision string
	// NameNote qualifies NewReplicaSet, for example that its hash depends on the server version.
	NameNote string
	// MaxPods and MinAvailable are the bounds the strategy promises: at most MaxPods pods, at
	// least MinAvailable available, outside proportional scaling.
	MaxPods      int32
	MinAvailable int32
}

// Setting is one resolved parameter, for example maxSurge "25%" with arithmetic
// "25% of 10 = 2.5 → 3 (rounded up)".
type Setting struct {
	Name       string
	Value      string
	Arithmetic string
}
