package plugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/predict"
	"github.com/kubectl-workload/kubectl-workload/predict/planreport"
)

// upgradeFormats are the -o values of predict upgrade: svg draws the nodes over time, html
// the picture and the text.
var upgradeFormats = []string{"text", "json", "svg", "html"}

// UpgradeOptions are the flags of `kubectl workload predict upgrade`. The algorithm's flags
// are strings, "" when not given: the preset's value then, or the default.
type UpgradeOptions struct {
	configFlags *genericclioptions.ConfigFlags

	Filenames                                  []string
	Selector, Preset, Output, OnTimeout, Order string
	MaxSurge, MaxUnavailable, DrainTimeout     string
	NodeReadyAfter, ReadyAfter                 time.Duration
	GracePeriod                                int
	request                                    predict.UpgradeRequest
	genericiooptions.IOStreams
}

// NewCmdPredictUpgrade builds `kubectl workload predict upgrade --selector K=V`.
func NewCmdPredictUpgrade(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &UpgradeOptions{configFlags: configFlags, IOStreams: streams}
	cmd := &cobra.Command{Use: "upgrade --selector K=V", Args: cobra.NoArgs, Long: help("upgrade"), Example: help("upgrade-example"),
		Short: "Show whether a node-pool upgrade finishes, how long it takes and what blocks it",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		}}
	f := cmd.Flags()
	f.StringSliceVarP(&o.Filenames, "filename", "f", nil, "the cluster's objects or a dump of kubectl get pods,pdb,deploy,rs,sts,ds,rc,jobs,nodes -A -o yaml")
	f.StringVarP(&o.Selector, "selector", "l", "", "the pool's nodes, by label (e.g. agentpool=nodepool1)")
	f.StringVar(&o.Preset, "preset", "", "the provider's defaults: aks, eks or gke")
	f.StringVar(&o.MaxSurge, "max-surge", "", "new nodes beyond the pool's size: a count or a percentage (default 1, or the preset's)")
	f.StringVar(&o.MaxUnavailable, "max-unavailable", "", "old nodes drained beyond the surge: a count or a percentage (default 0, or the preset's)")
	f.StringVar(&o.DrainTimeout, "drain-timeout", "", "each node's drain timeout, e.g. 30m; 0 waits forever (default 0, or the preset's)")
	f.StringVar(&o.OnTimeout, "on-timeout", "", "at the drain timeout: fail the upgrade, or force (delete the pods left) (default fail, or the preset's)")
	f.DurationVar(&o.NodeReadyAfter, "node-ready-after", 0, "time a new node takes to join Ready (default 0: not counted)")
	f.DurationVar(&o.ReadyAfter, "ready-after", 0, "time from a replacement's creation to Ready (default: derived from the probes)")
	f.IntVar(&o.GracePeriod, "grace-period", -1, "seconds each evicted pod gets to terminate (negative: the pod's own)")
	f.StringVar(&o.Order, "order", "", "the old nodes' order: name (default) or input")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: "+strings.Join(upgradeFormats, ", "))
	return cmd
}

// Complete checks the flags and reads them into the request.
func (o *UpgradeOptions) Complete() error {
	if o.Output != "" && !slices.Contains(upgradeFormats, o.Output) {
		return fmt.Errorf("-o %s: want one of %s", o.Output, strings.Join(upgradeFormats, ", "))
	}
	if o.Selector == "" {
		return errors.New("--selector: name the pool's nodes by label (e.g. --selector agentpool=nodepool1)")
	}
	sel, err := labels.Parse(o.Selector)
	if err != nil {
		return fmt.Errorf("--selector %q: %w", o.Selector, err)
	}
	o.request = predict.UpgradeRequest{Files: o.Filenames, Stdin: o.In, Selector: sel, Preset: o.Preset, OnTimeout: o.OnTimeout,
		NodeReadyAfter: o.NodeReadyAfter, ReadyAfter: o.ReadyAfter, GracePeriod: o.GracePeriod, Order: o.Order}
	for _, v := range []struct {
		flag string
		in   string
		out  **intstr.IntOrString
	}{{"max-surge", o.MaxSurge, &o.request.MaxSurge}, {"max-unavailable", o.MaxUnavailable, &o.request.MaxUnavailable}} {
		if v.in != "" {
			x := intstr.Parse(v.in)
			*v.out = &x
		}
	}
	if o.DrainTimeout != "" {
		d, err := time.ParseDuration(o.DrainTimeout)
		if o.DrainTimeout == "0" {
			d, err = 0, nil
		}
		if err != nil {
			return fmt.Errorf("--drain-timeout %q: %w", o.DrainTimeout, err)
		}
		o.request.DrainTimeout = &d
	}
	return nil
}

// Run predicts the upgrade, prints the plan and exits 1 when the upgrade does not complete.
func (o *UpgradeOptions) Run(ctx context.Context) error {
	c, err := clusterWithoutFiles(ctx, o.configFlags, o.ErrOut, o.Filenames)
	if err != nil {
		return err
	}
	plan, err := predict.Upgrade(ctx, o.request, c)
	if err != nil {
		return err
	}
	switch o.Output {
	case "json":
		err = planreport.UpgradeJSON(o.Out, plan)
	case "svg":
		err = planreport.UpgradeSVG(o.Out, plan)
	case "html":
		err = planreport.UpgradeHTML(o.Out, plan)
	default:
		err = planreport.UpgradeText(o.Out, plan)
	}
	if err != nil || plan.Completed {
		return err
	}
	return &exitError{code: ExitFindings}
}
