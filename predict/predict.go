// Package predict is the library behind `kubectl workload predict`: it takes a request of
// plain values (files, a baseline, targets, a what-if change, the timing and batch
// parameters), reads the starting state from files, git or the cluster (internal/gitref and
// internal/live), runs the predictors (predict/runner) and returns the plan as a value. It
// never imports cobra and never writes to a stream: the plugin checks the flags, builds the
// Request and renders the Plan (predict/planreport).
package predict

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/daemon"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/job"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/gitref"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// DefaultNext is how many scheduled times of a CronJob are listed by default (--next).
const DefaultNext = runner.DefaultNext

// MaxNext is the most scheduled times of a CronJob a prediction lists (runner.MaxNext).
const MaxNext = runner.MaxNext

// MaxNodes is the most nodes a DaemonSet is simulated on (runner.MaxPods).
const MaxNodes = runner.MaxPods

// Target names a workload to predict: a Deployment, StatefulSet or DaemonSet, or a
// ReplicaSet or ReplicationController scaled down (runner.Target).
type Target = runner.Target

// ImageChange is a what-if image change, as kubectl set image makes it (kernel.ImageChange).
type ImageChange = kernel.ImageChange

// ParseNodes reads the nodes of a DaemonSet prediction from kubectl get nodes -o yaml
// (daemon.ParseNodes).
func ParseNodes(data []byte) ([]*v1.Node, error) { return daemon.ParseNodes(data) }

// SyntheticNodes are n Ready nodes without taints (daemon.SyntheticNodes).
func SyntheticNodes(n int) []*v1.Node { return daemon.SyntheticNodes(n) }

// Request is what a prediction needs, as plain values already read from the command line.
type Request struct {
	// Files are the new manifests; "-" is Stdin.
	Files []string
	Stdin io.Reader
	// From are old manifests, assumed fully rolled out and available.
	From []string
	// StateFiles are dumps of kubectl get deploy,rs,pods -o yaml.
	StateFiles []string
	// BaseRef is a git ref whose version of each of Files is the old version.
	BaseRef string
	// Targets are the workloads named (ParseTargets).
	Targets []Target
	// Namespace is -n when NamespaceExplicit, else the kubeconfig context's namespace.
	Namespace         string
	NamespaceExplicit bool
	// Live starts from the cluster's current state: Predict then needs its client.
	Live bool

	// The what-if change, as kubectl would make it: set image, scale (Replicas, nil for
	// none), rollout undo (to ToRevision, 0 for the previous), resume and restart.
	Images                 []ImageChange
	Replicas               *int32
	Undo                   bool
	ToRevision             int64
	Resume, Restart        bool
	ReadyAfter             time.Duration
	TerminateAfter         time.Duration
	FailNew                bool
	ReadySpread            time.Duration
	Runs                   int
	Seed                   int64
	Nodes                  []*v1.Node
	Clock                  func() time.Time
	Now                    time.Time
	LastSchedule           *time.Time
	DownFrom, DownTo       time.Time
	Next                   int
	RunFor                 time.Duration
	FailFirst              int
	FailRate               float64
	Renderer, FromRenderer manifest.Renderer
	// Progress, when set, is told how many of the Runs simulations of a workload are
	// done (runner.Request.Progress).
	Progress func(done, total int)
}

// Plan is what a prediction found: the predictions (runner.Result) and the notes of a live
// run, each a kind of object it went on without because it could not read it.
type Plan struct {
	*runner.Result
	Notes []string
}

// Kinds are the kinds predicted, each once, in order, with the first workload of each
// (Kind namespace/name) for messages.
func (p *Plan) Kinds() (kinds []string, refs []string) {
	seen := map[string]bool{}
	for _, pr := range p.Predictions {
		if !seen[pr.Kind] {
			kinds = append(kinds, pr.Kind)
			refs = append(refs, fmt.Sprintf("%s %s/%s", pr.Kind, pr.Namespace, pr.Name))
		}
		seen[pr.Kind] = true
	}
	return kinds, refs
}

// ParseTargets reads TYPE/NAME or TYPE NAME arguments naming Deployments, StatefulSets or
// DaemonSets, or ReplicaSets and ReplicationControllers (a scale-down); the two do not mix.
func ParseTargets(args []string, namespace string) ([]Target, error) {
	var targets []Target
	for i := 0; i < len(args); i++ {
		typ, name, ok := strings.Cut(args[i], "/")
		if !ok {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("argument %q: want TYPE/NAME or TYPE NAME", args[i])
			}
			typ, name = args[i], args[i+1]
			i++
		}
		var kind kernel.Kind
		switch strings.ToLower(typ) {
		case "deployment", "deployments", "deploy", "deployment.apps", "deployments.apps":
			kind = kernel.KindDeployment
		case "statefulset", "statefulsets", "sts", "statefulset.apps", "statefulsets.apps":
			kind = kernel.KindStatefulSet
		case "daemonset", "daemonsets", "ds", "daemonset.apps", "daemonsets.apps":
			kind = kernel.KindDaemonSet
		case "replicaset", "replicasets", "rs", "replicaset.apps", "replicasets.apps":
			kind = kernel.KindReplicaSet
		case "replicationcontroller", "replicationcontrollers", "rc":
			kind = kernel.KindReplicationController
		default:
			return nil, fmt.Errorf("argument %q: predict models Deployments, StatefulSets and DaemonSets (and ReplicaSets and ReplicationControllers scaled down) by name, not %s; give other kinds with -f", args[i], typ)
		}
		if len(targets) > 0 && targets[0].Kind.ScaleDown() != kind.ScaleDown() {
			return nil, fmt.Errorf("argument %q: name Deployments, StatefulSets and DaemonSets, or ReplicaSets and ReplicationControllers, not both", args[i])
		}
		targets = append(targets, Target{Kind: kind, Namespace: namespace, Name: name})
	}
	return targets, nil
}

// Predict runs the prediction req asks for. The cluster, for a live prediction, is c (a
// client of package live). Problems in the input and failing predictions are in the Plan;
// errors are tool errors. With an error, the Plan, when not nil, holds the notes taken
// before it (and no Result).
func Predict(ctx context.Context, req Request, c *live.Client) (*Plan, error) {
	r := runner.Request{
		Files: req.Files, Stdin: req.Stdin, From: req.From, StateFiles: req.StateFiles, BaseRef: req.BaseRef,
		ReadyAfter: req.ReadyAfter, TerminateAfter: req.TerminateAfter, FailNew: req.FailNew,
		ReadySpread: req.ReadySpread, Runs: req.Runs, Seed: uint64(req.Seed), Progress: req.Progress,
		Namespace: req.Namespace, NamespaceExplicit: req.NamespaceExplicit, Targets: req.Targets, Nodes: req.Nodes,
		Clock: req.Clock, Next: req.Next, RunFor: req.RunFor, Now: req.Now, LastSchedule: req.LastSchedule,
		DownFrom: req.DownFrom, DownTo: req.DownTo,
		Failure:  job.FailureModel{FailFirst: req.FailFirst, FailRate: req.FailRate, Seed: req.Seed},
		Renderer: req.Renderer, FromRenderer: req.FromRenderer,
	}
	r.WhatIf.Images, r.WhatIf.Replicas = req.Images, req.Replicas
	r.WhatIf.Undo, r.WhatIf.ToRevision, r.WhatIf.Resume, r.WhatIf.Restart = req.Undo, req.ToRevision, req.Resume, req.Restart
	// The restartedAt value changes the template hash, so it is fixed: the prediction's own
	// clock, not the wall clock.
	r.WhatIf.RestartAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var gitReader *gitref.Reader
	if req.BaseRef != "" {
		// One git cat-file --batch per work tree serves every file; closed below.
		gitReader = gitref.NewReader(ctx, req.BaseRef)
		r.ReadAtRef = func(file string) ([]byte, error) {
			data, err := gitReader.Read(file)
			if errors.Is(err, gitref.ErrNotAtRef) {
				return nil, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
			}
			return data, err
		}
		if req.Renderer != nil {
			ref := req.BaseRef
			r.RenderAtRef = func(dir string, kind manifest.DirKind) (*manifest.Set, error) {
				return helper.AtRef(ctx, req.Renderer, ref, dir, kind)
			}
		}
	}
	plan := &Plan{}
	if req.Live {
		if c == nil {
			return nil, errors.New("a live prediction needs the cluster")
		}
		if r.Namespace == "" {
			r.Namespace = c.Namespace
			for i := range r.Targets {
				if r.Targets[i].Namespace == "" {
					r.Targets[i].Namespace = c.Namespace
				}
			}
		}
		r.Cluster = live.NewStateReader(c, time.Now)
		r.FetchNamespaceLabels = func(ctx context.Context, names []string) (map[string]map[string]string, error) {
			labels, skips, err := c.NamespaceLabels(ctx, names)
			for _, s := range skips {
				plan.Notes = append(plan.Notes, s.Message)
			}
			return labels, err
		}
	}
	res, err := runner.Run(ctx, r)
	if gitReader != nil {
		if cerr := gitReader.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("--base-ref %s: %w", req.BaseRef, cerr)
		}
	}
	if err != nil {
		return plan, err
	}
	plan.Result = res
	return plan, nil
}
