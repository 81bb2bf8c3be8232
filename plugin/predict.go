package plugin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/progress"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
	"github.com/kubectl-workload/kubectl-workload/internal/safetext"
	"github.com/kubectl-workload/kubectl-workload/predict"
)

// PredictOptions are the flags and inputs of `kubectl workload predict`.
type PredictOptions struct {
	configFlags *genericclioptions.ConfigFlags

	// The flags are bound to the options' fields.
	predict.Options
	renderFlags         renderFlags
	fromValues, fromSet []string // the old side's own values (--from-values, --from-set)

	// clock is the real clock: a CronJob's default start time.
	clock func() time.Time

	genericiooptions.IOStreams
}

// NewCmdPredict builds `kubectl workload predict`.
func NewCmdPredict(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &PredictOptions{configFlags: configFlags, IOStreams: streams, clock: time.Now}
	cmd := &cobra.Command{
		Use:     "predict [-f FILE] [TYPE/NAME | TYPE NAME]",
		Short:   "Show step by step how a rollout will proceed, when a CronJob runs, how a Job ends, which pods a scale-down deletes",
		Long:    predict.Help,
		Example: predict.Example,
		RunE:    func(cmd *cobra.Command, args []string) error { return o.Run(cmd, args) },
	}
	f := cmd.Flags()
	f.StringSliceVarP(&o.Filenames, "filename", "f", nil, "new manifests: file, directory or - (repeatable)")
	f.StringSliceVar(&o.From, "from", nil, "old manifests, assumed fully rolled out and available (repeatable)")
	f.StringSliceVar(&o.StateFiles, "state", nil, "current state: a dump of kubectl get deploy,rs,pods -o yaml (repeatable)")
	f.StringVar(&o.BaseRef, "base-ref", "", "git ref whose version of each -f file is the old version")
	o.renderFlags.add(cmd)
	f.StringArrayVar(&o.fromValues, "from-values", nil, "values file for the charts among --from, in place of --values and the --set flags, which then apply to -f only (repeatable)")
	f.StringArrayVar(&o.fromSet, "from-set", nil, "set a value of the charts among --from, as --set (repeatable); with it, --values and the --set flags apply to -f only")
	f.StringArrayVar(&o.Images, "image", nil, "NAME=IMAGE: change the image of container NAME in the workloads that have one, as kubectl set image does (NAME * for all; repeatable)")
	f.Int32Var(&o.Replicas, "replicas", 0, "change spec.replicas, as kubectl scale does (0 scales to zero)")
	f.BoolVar(&o.Undo, "undo", false, "roll back to the previous revision, as kubectl rollout undo does")
	f.Int64Var(&o.ToRevision, "to-revision", 0, "with --undo: the revision to roll back to")
	f.BoolVar(&o.Resume, "resume", false, "resume a paused Deployment, as kubectl rollout resume does")
	f.BoolVar(&o.Restart, "restart", false, "restart the pods, as kubectl rollout restart does")
	f.DurationVar(&o.ReadyAfter, "ready-after", 0, "time from pod creation to Ready (default: derived from the probes)")
	f.DurationVar(&o.TerminateAfter, "terminate-after", 0, "time a deleted pod keeps running (default: 5s or the preStop sleep, bounded by the grace period)")
	f.BoolVar(&o.FailNew, "fail-new", false, "the new pods never become Ready: show where the rollout stalls")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: "+strings.Join(predict.Formats, ", "))
	f.BoolVar(&o.Chart, "chart", false, "with -o text: draw the pods over time in the terminal")
	f.IntVar(&o.Nodes, "nodes", 0, "DaemonSets: assume N Ready nodes without taints (default: the state's or the cluster's nodes, else 3)")
	f.StringVar(&o.NodesFile, "nodes-file", "", "DaemonSets: the nodes, from kubectl get nodes -o yaml")
	f.IntVar(&o.Next, "next", predict.DefaultNext, "CronJobs: how many scheduled times to list")
	f.StringVar(&o.Now, "now", "", "CronJobs and scale-downs: the current time, RFC 3339 (default: the current time; for a scale-down the state's time)")
	f.StringVar(&o.LastSchedule, "last-schedule", "", "CronJobs: the last schedule time, RFC 3339: predict the controller's sync at --now after the times missed since")
	f.StringVar(&o.Down, "down", "", "CronJobs: FROM,TO (RFC 3339): the controller was down from FROM to TO; predict its first sync after")
	f.DurationVar(&o.RunFor, "run-for", 0, "CronJobs: each Job runs this long (shows concurrencyPolicy at work); Jobs: each pod runs this long (default 10s)")
	f.IntVar(&o.FailFirst, "fail-first", 0, "Jobs (and each Job of a CronJob with --run-for): the first N pods fail, the rest succeed")
	f.Float64Var(&o.FailRate, "fail-rate", 0, "Jobs (and each Job of a CronJob with --run-for): each pod fails with this probability, 0 to 1")
	f.Int64Var(&o.Seed, "seed", 0, "the random seed of --fail-rate (Jobs) or --ready-spread (the same seed gives the same run)")
	f.DurationVar(&o.ReadySpread, "ready-spread", 0, "Deployments, StatefulSets, DaemonSets: spread each pod's Ready time over this long, as in a real cluster (default: the deterministic plan)")
	f.IntVar(&o.Runs, "runs", 0, "with --ready-spread: simulate N times and report the distribution (completion time, bounds, step sequences)")
	cmd.AddCommand(NewCmdPredictDrain(configFlags, streams), NewCmdPredictDelete(configFlags, streams), NewCmdPredictUpgrade(configFlags, streams))
	f.BoolVar(&o.Live, "live", false, "start from the cluster's current state of each -f Deployment, StatefulSet and DaemonSet (implied by TYPE/NAME without --state)")
	return cmd
}

// Run maps the flags to predict.Options, runs the prediction and sets the exit status.
func (o *PredictOptions) Run(cmd *cobra.Command, args []string) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	opts := o.Options
	opts.Args, opts.Stdin, opts.Clock = args, o.In, o.clock
	opts.Notes = func(msg string) { fmt.Fprintf(o.ErrOut, "note: %s\n", safetext.Escape(msg)) }
	opts.Progress = progress.New(o.ErrOut, o.Output).Runs // clears its line after the last run
	opts.Changed, opts.FlagValues = map[string]bool{}, map[string]string{}
	cmd.Flags().Visit(func(f *pflag.Flag) { opts.Changed[f.Name], opts.FlagValues[f.Name] = true, f.Value.String() })
	// As kubectl: -n, else the namespace of the kubeconfig's context, else default.
	if opts.Changed["namespace"] && o.configFlags.Namespace != nil {
		opts.Namespace, opts.NamespaceExplicit = *o.configFlags.Namespace, true
	} else {
		ns, _, err := o.configFlags.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return fmt.Errorf("the namespace of the kubeconfig's context: %w", err)
		}
		opts.Namespace = ns
	}
	if err := errors.Join(helper.ValuesBesideChart(opts.Filenames), helper.ValuesBesideChart(opts.From)); err != nil {
		return err
	}
	renderer, err := o.renderFlags.renderer(opts.Namespace)
	if err != nil {
		return err
	}
	defer renderer.Close()
	opts.Renderer = renderer
	var fromRenderer *helper.Renderer
	switch fromValues := len(o.fromValues)+len(o.fromSet) > 0; {
	case fromValues && len(opts.From) == 0:
		return errors.New("--from-values and --from-set give the charts of --from their values, and there is no --from")
	case fromValues:
		if fromRenderer, err = (&renderFlags{opts: o.renderFlags.opts.WithValues(o.fromValues, o.fromSet)}).renderer(opts.Namespace); err != nil {
			return err
		}
		defer fromRenderer.Close()
		opts.FromRenderer = fromRenderer
	case len(opts.From) > 0 && o.renderFlags.opts.HasValues():
		opts.Notes("--values and the --set flags apply to the charts of -f and of --from alike: give the old side its own with --from-values and --from-set")
	}
	p, err := predict.New(ctx, opts)
	if err != nil {
		return err
	}
	var c *live.Client
	if p.Live() {
		if c, err = liveClient(ctx, o.configFlags, o.ErrOut); err != nil {
			return err
		}
		// Charts render as helm install renders them on this cluster.
		if vs, err := c.APIVersions(ctx); err != nil {
			fmt.Fprintf(o.ErrOut, "note: charts are rendered for the API versions of a v1.37 cluster: %v\n", err)
		} else {
			renderer.SetClusterAPIVersions(vs)
			if fromRenderer != nil {
				fromRenderer.SetClusterAPIVersions(vs)
			}
		}
	}
	outcome, err := p.Run(ctx, c, o.Out)
	if err != nil {
		return err
	}
	for _, w := range outcome.Warnings {
		fmt.Fprintf(o.ErrOut, "warning: %s\n", safetext.Escape(w))
	}
	if len(outcome.Problems) > 0 {
		if !outcome.ProblemsShown {
			for _, msg := range outcome.Problems {
				fmt.Fprintln(o.ErrOut, safetext.Line(msg))
			}
		}
		return &exitError{code: ExitError}
	}
	if outcome.Failed {
		return &exitError{code: ExitFindings}
	}
	return nil
}
