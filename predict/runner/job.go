package runner

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/job"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/ttlafterfinished"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// DefaultJobRunFor is how long each pod of a Job runs before it succeeds or fails when
// Request.RunFor is 0.
const DefaultJobRunFor = 10 * time.Second

// JobResult is a Job's predicted run under a failure model: the spec that decides it, as the
// API server defaults it, and the engine's waves, pods and ending.
type JobResult struct {
	// Completions is nil for a work-queue Job (completions unset).
	Completions           *int32
	Parallelism           int32
	CompletionMode        batchv1.CompletionMode
	BackoffLimit          int32
	BackoffLimitPerIndex  *int32
	MaxFailedIndexes      *int32
	ActiveDeadlineSeconds *int64
	RestartPolicy         string
	// Failure is the failure model (--fail-first, --fail-rate, --seed).
	Failure job.FailureModel
	// RunFor is how long each pod runs, and RunForSource where it came from.
	RunFor       time.Duration
	RunForSource string
	Result       *job.Result
	// TTL is when the TTL-after-finished controller deletes the finished Job; nil without
	// ttlSecondsAfterFinished or when the Job does not finish.
	TTL *ttlafterfinished.Deletion
}

// Failed reports whether the Job ends Failed (BackoffLimitExceeded, DeadlineExceeded,
// FailedIndexes, MaxFailedIndexesExceeded).
func (j *JobResult) Failed() bool {
	return j.Result != nil && j.Result.Outcome == job.OutcomeFailed
}

// predictJob runs the API tier on a Job of the new manifests (which defaults parallelism,
// completions and backoffLimit), then job.Simulate under the request's failure model.
func predictJob(ctx context.Context, req Request, checker *apicheck.Checker, obj *manifest.Object, p Prediction, ns string) (Prediction, error) {
	versioned, ok := checkNew(ctx, checker, obj, &p, ns)
	if !ok {
		return p, nil
	}
	j, ok := versioned.(*batchv1.Job)
	if !ok {
		return Prediction{}, fmt.Errorf("%s: document %d: %s: unexpected %T", obj.File, obj.Document, obj.Ref(), versioned)
	}
	j.Namespace = p.Namespace
	r := &JobResult{Completions: j.Spec.Completions, BackoffLimitPerIndex: j.Spec.BackoffLimitPerIndex,
		MaxFailedIndexes: j.Spec.MaxFailedIndexes, ActiveDeadlineSeconds: j.Spec.ActiveDeadlineSeconds,
		RestartPolicy: string(j.Spec.Template.Spec.RestartPolicy), Failure: req.Failure,
		RunFor: req.RunFor, RunForSource: "--run-for"}
	if j.Spec.Parallelism != nil {
		r.Parallelism = *j.Spec.Parallelism
	}
	if j.Spec.BackoffLimit != nil {
		r.BackoffLimit = *j.Spec.BackoffLimit
	}
	r.CompletionMode = batchv1.NonIndexedCompletion
	if j.Spec.CompletionMode != nil {
		r.CompletionMode = *j.Spec.CompletionMode
	}
	if r.RunFor <= 0 {
		r.RunFor, r.RunForSource = DefaultJobRunFor, "the default; --run-for sets it"
	}
	if atOnce := int64(r.Parallelism); j.Spec.Completions != nil {
		if err := checkPods("Job", "parallelism (at most completions)", min(atOnce, int64(*j.Spec.Completions))); err != nil {
			return Prediction{}, fmt.Errorf("%s: document %d: %s: %w", obj.File, obj.Document, obj.Ref(), err)
		}
	} else if err := checkPods("Job", "parallelism", atOnce); err != nil {
		return Prediction{}, fmt.Errorf("%s: document %d: %s: %w", obj.File, obj.Document, obj.Ref(), err)
	}
	res, err := job.Simulate(job.Input{Job: j, Failure: req.Failure, RunFor: r.RunFor, MaxPods: MaxPods})
	if err != nil {
		return Prediction{}, fmt.Errorf("%s: document %d: %s: %w", obj.File, obj.Document, obj.Ref(), err)
	}
	r.Result = res
	finished := res.Outcome == job.OutcomeComplete || res.Outcome == job.OutcomeFailed
	if d, ok := ttlafterfinished.ExpireAt(finished, res.Duration, j.Spec.TTLSecondsAfterFinished, j.CreationTimestamp.Time); ok {
		r.TTL = &d
	}
	p.Baseline = "the manifest, run from its creation"
	p.Job = r
	return p, nil
}
