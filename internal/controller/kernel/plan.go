// Package kernel is the simulation kernel shared by the workload controllers' mirrors
// (deployment/, statefulset/, daemon/, job/, cronjob/ beside it, named after upstream's pkg/controller packages): the simulated clock with causal
// instants, the event loop and its recorder, the Plan and its Steps in revision-neutral words,
// pod timing, and the arithmetic text. It never imports cobra and never prints.
package kernel

import (
	"time"
)

// ReasonChange marks a step where the input edited the workload (Input.Changes: an apply, a
// scale, a pause); it is not a controller event.
const ReasonChange = "Change"

// Timing holds the world's timing parameters. minReadySeconds comes from the Deployment spec.
type Timing struct {
	// ReadyAfter is how long a created pod takes to become Ready.
	ReadyAfter time.Duration
	// TerminateAfter is how long a deleted pod keeps running before it is gone.
	TerminateAfter time.Duration
	// FailNew makes the pods of the new revision (for a Deployment, the ReplicaSet whose template
	// equals the Deployment's) never become Ready.
	FailNew bool
	// RefuseNew makes the API server refuse every pod of the new revision (a namespace's Pod
	// Security enforce level): the controller's creations fail (FailedCreate), so none exists.
	// The Deployment world models it; it implies FailNew.
	RefuseNew bool
	// Spread, when set, adds to each created pod's ReadyAfter its own draw from [0, D): the
	// pods of one batch then turn Ready apart, as they do in a real cluster, and the
	// controllers may take smaller steps (--ready-spread). Nil is the deterministic causal
	// plan, in which a batch turns Ready together.
	Spread *Spread
}

// RevisionSize is one revision's size at a step: a ReplicaSet of a Deployment, or the pods of
// one controller revision of a StatefulSet or DaemonSet.
type RevisionSize struct {
	Name string
	// Replicas is spec.replicas.
	Replicas int32
	// Pods counts the revision's pods that exist, including terminating ones.
	Pods int32
	// Available counts its available pods.
	Available int32
	// Ready counts its ready pods that are not terminating, available ones included
	// (Ready - Available are ready but not yet minReadySeconds old).
	Ready int32
	// Terminating counts its pods that are being deleted, within Pods.
	Terminating int32
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
	// Revisions lists every revision (a Deployment's ReplicaSets, a StatefulSet's or
	// DaemonSet's controller revisions), oldest first, as this event leaves it: a revision the
	// event (or an earlier one) resized shows its pods after the controllers acted on that
	// size; one that a later event of the same sync resizes still shows its size and pods from
	// before. The last step of a sync shows the state after the sync.
	Revisions []RevisionSize
	// Pods counts every pod that exists, terminating ones included.
	Pods int32
	// Available counts available pods.
	Available int32
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
// workload kind: Step.Revisions holds a Deployment's ReplicaSets, or one entry per controller
// revision of a StatefulSet or DaemonSet.
type Plan struct {
	// Kind is the workload kind: "Deployment", "StatefulSet" or "DaemonSet".
	Kind   string
	Header Header
	// TargetRevision is the name of the revision the rollout ends on: a Deployment's new
	// ReplicaSet, or a StatefulSet's or DaemonSet's update controller revision.
	TargetRevision string
	Steps          []Step
	// Notes are facts a reader needs beside the steps: version-dependent behaviour, a
	// deadlock, a manual intervention.
	Notes   []string
	Summary Summary
	// End is when the simulation ran out of events, and Final the revisions then, after the
	// last pods terminated or became available (no step records those moments).
	End   time.Duration
	Final []RevisionSize
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
	// NameNote qualifies TargetRevision, for example that its hash depends on the server version.
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
