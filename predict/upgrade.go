package predict

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-workload/kubectl-workload/internal/kubectl/drain"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/upgrade"
)

// UpgradeRequest is what an upgrade prediction needs, as plain values. The algorithm's
// settings are nil or "" when not given: the preset's value then, or the default.
type UpgradeRequest struct {
	// Files are the cluster's objects: manifests or dumps ("-" is Stdin). Without files, the
	// cluster is read through the client Upgrade is given (list requests only).
	Files []string
	Stdin io.Reader
	// Selector picks the pool's nodes.
	Selector labels.Selector
	// Preset is aks, eks, gke or "".
	Preset string
	// MaxSurge and MaxUnavailable are counts or percentages of the pool.
	MaxSurge, MaxUnavailable *intstr.IntOrString
	// DrainTimeout is each node's drain timeout (0 waits forever); OnTimeout fail or force.
	DrainTimeout   *time.Duration
	OnTimeout      string
	NodeReadyAfter time.Duration
	ReadyAfter     time.Duration
	// GracePeriod is seconds each evicted pod gets; below 0, the pod's own.
	GracePeriod int
	// Order is name or input.
	Order string
}

// UpgradePlan is an upgrade's plan, node by node (upgrade.Plan).
type UpgradePlan = upgrade.Plan

// algorithm is the preset's algorithm (or the default: surge 1, unavailable 0, no timeout)
// with the flags given over it.
func (o UpgradeRequest) algorithm() (upgrade.Algorithm, []string, error) {
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
	if o.MaxSurge != nil {
		alg.MaxSurge = *o.MaxSurge
	}
	if o.MaxUnavailable != nil {
		alg.MaxUnavailable = *o.MaxUnavailable
	}
	if o.DrainTimeout != nil {
		alg.DrainTimeout = *o.DrainTimeout
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

// Upgrade predicts the upgrade req asks for and returns the plan; the upgrade fails when
// !plan.Completed. Without req.Files it reads the cluster through c (list requests only).
func Upgrade(ctx context.Context, req UpgradeRequest, c *live.Client) (*UpgradePlan, error) {
	if req.Selector == nil || req.Selector.Empty() {
		return nil, errors.New("name the pool's nodes by label (e.g. agentpool=nodepool1)")
	}
	alg, notes, err := req.algorithm()
	if err != nil {
		return nil, err
	}
	var w drain.World
	if len(req.Files) == 0 {
		if c == nil {
			return nil, errors.New("a live upgrade prediction needs the cluster")
		}
		if w, err = liveWorld(ctx, c); err != nil {
			return nil, err
		}
	} else {
		set := manifest.Load(req.Files, req.Stdin)
		if err := problemsError(set); err != nil {
			return nil, err
		}
		if w, err = worldOf(set); err != nil {
			return nil, err
		}
	}
	plan, err := upgrade.Upgrade(w, upgrade.Options{Selector: req.Selector, Algorithm: alg,
		Drain: drain.Options{Place: len(req.Files) > 0, GracePeriodSeconds: req.GracePeriod, ReadyAfter: req.ReadyAfter, Start: drainStart}})
	if err != nil {
		return nil, err
	}
	plan.Assumptions = append(notes, plan.Assumptions...)
	return plan, nil
}
