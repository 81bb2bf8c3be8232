package predict

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/internal/kubectl/drain"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/upgrade"
	"github.com/kubectl-workload/kubectl-workload/predict/report"
)

// UpgradeShort is the one-line help of `kubectl workload predict upgrade`.
const UpgradeShort = "Show whether a node-pool upgrade finishes, how long it takes and what blocks it"

// UpgradeHelp is the long help of `kubectl workload predict upgrade`.
const UpgradeHelp = `Predict a node-pool upgrade of the nodes --selector picks, as AKS, EKS and GKE run
it: surge nodes join with the old nodes' labels, taints and allocatable; the old nodes are
cordoned, drained (kubectl's loop against the PodDisruptionBudgets, as predict drain) and
deleted, maxSurge+maxUnavailable at a time. The plan shows per node each eviction and
refusal with its budget, where the replacements go, when it is empty and deleted; the
upgrade's duration, the first blocker with its fix, and pods no node can take.

--preset aks|eks|gke sets the provider's defaults (docs/predict.md cites them); the other
flags override it. The cluster comes from -f (manifests or a dump) or, without -f, from
the cluster, read-only.

Exit status: 0 when the upgrade completes; 1 when it fails or never ends; 2 for errors.`

// UpgradeExample is the example of `kubectl workload predict upgrade`.
const UpgradeExample = `  # Will a GKE-style surge upgrade of the pool finish, against the budgets in the files?
  kubectl workload predict upgrade --selector pool=blue --preset gke -f plugin/testdata/predict/upgrade-cluster.yaml`

// UpgradeOptions are the flags of `kubectl workload predict upgrade`. The algorithm's flags
// are strings, "" when not given: the preset's value then, or the default.
type UpgradeOptions struct {
	Filenames []string
	Selector  string
	Preset    string
	// MaxSurge and MaxUnavailable are counts or percentages of the pool.
	MaxSurge, MaxUnavailable string
	// DrainTimeout is a duration ("30m"; "0" waits forever), OnTimeout fail or force.
	DrainTimeout, OnTimeout string
	NodeReadyAfter          time.Duration
	ReadyAfter              time.Duration
	// GracePeriod is seconds each evicted pod gets; below 0, the pod's own.
	GracePeriod int
	Order       string
	Output      string
	Getter      genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// algorithm is the preset's algorithm (or the default: surge 1, unavailable 0, no timeout)
// with the flags given over it.
func (o UpgradeOptions) algorithm() (upgrade.Algorithm, []string, error) {
	alg := upgrade.Algorithm{MaxSurge: intstr.FromInt32(1), MaxUnavailable: intstr.FromInt32(0), OnTimeout: upgrade.OnTimeoutFail}
	var notes []string
	if o.Preset != "" {
		p, err := upgrade.PresetNamed(o.Preset)
		if err != nil {
			return alg, nil, fmt.Errorf("--preset: %w", err)
		}
		alg = p.Algorithm
		notes = append(notes, fmt.Sprintf("preset %s: %s (sources: %v)", p.Name, p.Description, p.Sources))
		for _, u := range p.Unverified {
			notes = append(notes, "preset "+p.Name+", not verified: "+u)
		}
	}
	if o.MaxSurge != "" {
		alg.MaxSurge = intstr.Parse(o.MaxSurge)
	}
	if o.MaxUnavailable != "" {
		alg.MaxUnavailable = intstr.Parse(o.MaxUnavailable)
	}
	if o.DrainTimeout != "" {
		d, err := time.ParseDuration(o.DrainTimeout)
		if o.DrainTimeout == "0" {
			d, err = 0, nil
		}
		if err != nil {
			return alg, nil, fmt.Errorf("--drain-timeout %q: %w", o.DrainTimeout, err)
		}
		alg.DrainTimeout = d
	}
	if o.OnTimeout != "" {
		alg.OnTimeout = o.OnTimeout
	}
	if o.NodeReadyAfter != 0 {
		alg.NodeReadyAfter = o.NodeReadyAfter
	}
	if o.Order != "" {
		alg.Order = o.Order
	}
	if err := alg.Validate(); err != nil {
		return alg, nil, err
	}
	return alg, notes, nil
}

// Upgrade predicts the upgrade o asks for, reading the cluster (list only) without -f, writes
// the plan to o.Out, and reports whether the upgrade fails.
func Upgrade(ctx context.Context, o UpgradeOptions) (failed bool, err error) {
	if o.Output != "text" && o.Output != "json" && o.Output != "" {
		return false, fmt.Errorf("-o %s: want text or json", o.Output)
	}
	if o.Selector == "" {
		return false, errors.New("--selector: name the pool's nodes by label (e.g. --selector agentpool=nodepool1)")
	}
	sel, err := labels.Parse(o.Selector)
	if err != nil {
		return false, fmt.Errorf("--selector %q: %w", o.Selector, err)
	}
	alg, notes, err := o.algorithm()
	if err != nil {
		return false, err
	}
	var w drain.World
	if len(o.Filenames) == 0 {
		if o.Getter == nil {
			return false, errors.New("a live upgrade prediction needs the cluster")
		}
		c, err := live.Connect(ctx, o.Getter, func(msg string) { fmt.Fprintf(o.ErrOut, "warning: %s\n", msg) })
		if err != nil {
			return false, err
		}
		if w, err = liveWorld(ctx, c); err != nil {
			return false, err
		}
	} else {
		set := manifest.Load(o.Filenames, o.In)
		if len(set.Problems) > 0 {
			var errs []error
			for _, p := range set.Problems {
				errs = append(errs, fmt.Errorf("%s:%d:%d: %s", p.File, p.Pos.Line, p.Pos.Column, p.Message))
			}
			return false, errors.Join(errs...)
		}
		if w, err = worldOf(set); err != nil {
			return false, err
		}
	}
	plan, err := upgrade.Upgrade(w, upgrade.Options{Selector: sel, Algorithm: alg,
		Drain: drain.Options{Place: len(o.Filenames) > 0, GracePeriodSeconds: o.GracePeriod, ReadyAfter: o.ReadyAfter, Start: drainStart}})
	if err != nil {
		return false, err
	}
	plan.Assumptions = append(notes, plan.Assumptions...)
	if o.Output == "json" {
		err = report.UpgradeJSON(o.Out, plan)
	} else {
		err = report.UpgradeText(o.Out, plan)
	}
	return !plan.Completed, err
}
