package plugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/internal/boundedread"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/progress"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
	"github.com/kubectl-workload/kubectl-workload/internal/safetext"
	"github.com/kubectl-workload/kubectl-workload/internal/version"
	"github.com/kubectl-workload/kubectl-workload/predict"
	"github.com/kubectl-workload/kubectl-workload/predict/planreport"
)

// PredictOptions are the flags and inputs of `kubectl workload predict`.
type PredictOptions struct {
	configFlags *genericclioptions.ConfigFlags

	Filenames, From, StateFiles, Images             []string
	BaseRef, Output, NodesFile, Now, LastSchedule   string
	Down                                            string
	Replicas                                        int32
	Undo, Resume, Restart, FailNew, Chart, Live     bool
	ToRevision, Seed                                int64
	ReadyAfter, TerminateAfter, RunFor, ReadySpread time.Duration
	Nodes, Next, FailFirst, Runs                    int
	FailRate                                        float64
	renderFlags                                     renderFlags
	fromValues, fromSet                             []string // the old side's own values (--from-values, --from-set)

	// changed names the flags given on the command line: a flag given explicitly with a
	// zero value is refused, and each given flag must apply to something predicted.
	changed map[string]bool
	// request is what Complete read from the flags and arguments.
	request predict.Request
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
		Long:    help("predict"),
		Example: help("predict-example"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
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
	f.StringVarP(&o.Output, "output", "o", "text", "output format: "+strings.Join(planreport.Formats, ", "))
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

// Complete reads the flags and arguments into the request: the namespace, the what-if
// change, the targets, the CronJob and Job times and the nodes.
func (o *PredictOptions) Complete(cmd *cobra.Command, args []string) error {
	o.changed = map[string]bool{}
	typed := map[string]string{}
	cmd.Flags().Visit(func(f *pflag.Flag) { o.changed[f.Name], typed[f.Name] = true, f.Value.String() })
	r := &o.request
	*r = predict.Request{Files: o.Filenames, Stdin: o.In, From: o.From, StateFiles: o.StateFiles, BaseRef: o.BaseRef,
		Undo: o.Undo, ToRevision: o.ToRevision, Resume: o.Resume, Restart: o.Restart,
		ReadyAfter: o.ReadyAfter, TerminateAfter: o.TerminateAfter, FailNew: o.FailNew, ReadySpread: o.ReadySpread,
		Runs: o.Runs, Seed: o.Seed, Clock: o.clock, Next: o.Next, RunFor: o.RunFor, FailFirst: o.FailFirst, FailRate: o.FailRate,
		Progress: progress.New(o.ErrOut, o.Output).Runs} // clears its line after the last run
	// As kubectl: -n, else the namespace of the kubeconfig's context, else default.
	if o.changed["namespace"] && o.configFlags.Namespace != nil {
		r.Namespace, r.NamespaceExplicit = *o.configFlags.Namespace, true
	} else {
		ns, _, err := o.configFlags.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return fmt.Errorf("the namespace of the kubeconfig's context: %w", err)
		}
		r.Namespace = ns
	}
	// A zero given explicitly is refused rather than read as "the default".
	for _, zero := range []struct {
		flag   string
		isZero bool
		why    string
	}{
		{"run-for", o.RunFor == 0, "each Job or pod runs a positive time; omit the flag for a Job's default of 10s"},
		{"nodes", o.Nodes == 0, "a DaemonSet needs nodes; omit the flag to use the state's or the cluster's nodes"},
		{"ready-after", o.ReadyAfter == 0, "omit the flag to derive it from the probes"},
		{"terminate-after", o.TerminateAfter == 0, "omit the flag to derive it from the preStop sleep and the grace period"},
	} {
		if o.changed[zero.flag] && zero.isZero {
			return fmt.Errorf("--%s %s: must be positive (%s)", zero.flag, typed[zero.flag], zero.why)
		}
	}
	for _, s := range o.Images {
		name, image, ok := strings.Cut(s, "=")
		if !ok || name == "" || image == "" {
			return fmt.Errorf("--image %q: want NAME=IMAGE", s)
		}
		r.Images = append(r.Images, predict.ImageChange{Container: name, Image: image})
	}
	if o.changed["replicas"] {
		r.Replicas = &o.Replicas
	}
	explicitNS := ""
	if r.NamespaceExplicit {
		explicitNS = r.Namespace
	}
	var err error
	if r.Targets, err = predict.ParseTargets(args, explicitNS); err != nil {
		return err
	}
	if err := o.completeBatch(); err != nil {
		return err
	}
	// TYPE/NAME reads the cluster unless another baseline is given.
	r.Live = o.Live || (len(r.Targets) > 0 && len(o.StateFiles) == 0 && len(o.From) == 0 && o.BaseRef == "")
	return o.completeNodes()
}

// completeBatch reads the CronJob flags' times.
func (o *PredictOptions) completeBatch() error {
	r := &o.request
	parse := func(flag, v string) (time.Time, error) {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(v))
		if err != nil {
			return time.Time{}, fmt.Errorf("--%s %q: want an RFC 3339 time such as 2026-03-08T09:00:00Z: %w", flag, v, err)
		}
		return t, nil
	}
	var err error
	if o.Now != "" {
		if r.Now, err = parse("now", o.Now); err != nil {
			return err
		}
	}
	if o.LastSchedule != "" {
		t, err := parse("last-schedule", o.LastSchedule)
		if err != nil {
			return err
		}
		r.LastSchedule = &t
		now, flag := r.Now, "--now"
		if now.IsZero() && o.clock != nil {
			now, flag = o.clock(), "the current time"
		}
		if !now.IsZero() && t.After(now) {
			return fmt.Errorf("--last-schedule %s is after %s (%s): the last schedule is in the past", t.Format(time.RFC3339), flag, now.Format(time.RFC3339))
		}
	}
	if o.Down != "" {
		from, to, ok := strings.Cut(o.Down, ",")
		if !ok {
			return fmt.Errorf("--down %q: want FROM,TO, two RFC 3339 times", o.Down)
		}
		if r.DownFrom, err = parse("down", from); err != nil {
			return err
		}
		if r.DownTo, err = parse("down", to); err != nil {
			return err
		}
		if r.DownTo.Before(r.DownFrom) {
			return fmt.Errorf("--down %q: TO is before FROM", o.Down)
		}
	}
	return nil
}

// completeNodes reads --nodes or --nodes-file: a DaemonSet's nodes.
func (o *PredictOptions) completeNodes() error {
	switch {
	case o.NodesFile != "" && o.Nodes > 0:
		return errors.New("give --nodes or --nodes-file, not both")
	case o.NodesFile != "":
		data, err := boundedread.ReadFile(o.NodesFile, manifest.MaxFileSize)
		if err != nil {
			return fmt.Errorf("--nodes-file: %w", err)
		}
		if o.request.Nodes, err = predict.ParseNodes(data); err != nil {
			return fmt.Errorf("--nodes-file %s: %w", o.NodesFile, err)
		}
	case o.Nodes > predict.MaxNodes:
		return fmt.Errorf("--nodes %d: predict simulates a DaemonSet node by node, and at most %d nodes (runner.MaxPods)", o.Nodes, predict.MaxNodes)
	case o.Nodes > 0:
		o.request.Nodes = predict.SyntheticNodes(o.Nodes)
	case o.Nodes < 0:
		return fmt.Errorf("--nodes %d: must be positive", o.Nodes)
	}
	return nil
}

// Validate checks the flags' combinations.
func (o *PredictOptions) Validate() error {
	if err := errors.Join(helper.ValuesBesideChart(o.Filenames), helper.ValuesBesideChart(o.From)); err != nil {
		return err
	}
	if len(o.fromValues)+len(o.fromSet) > 0 && len(o.From) == 0 {
		return errors.New("--from-values and --from-set give the charts of --from their values, and there is no --from")
	}
	if !slices.Contains(planreport.Formats, o.Output) {
		return fmt.Errorf("--output %q: want one of %s", o.Output, strings.Join(planreport.Formats, ", "))
	}
	starts := 0
	for _, set := range []bool{len(o.From) > 0, len(o.StateFiles) > 0, o.BaseRef != ""} {
		if set {
			starts++
		}
	}
	switch {
	case starts > 1:
		return errors.New("give at most one of --from, --state and --base-ref")
	case o.BaseRef != "" && len(o.Filenames) == 0:
		return errors.New("--base-ref needs -f: the files whose old version is read from git")
	case len(o.From) > 0 && len(o.Filenames) == 0 && len(o.request.Targets) == 0:
		return errors.New("--from needs -f (the new manifests), or TYPE/NAME (a workload of the old manifests to change with --image, --replicas, --undo or --restart)")
	case o.ToRevision != 0 && !o.Undo:
		return errors.New("--to-revision needs --undo")
	case o.ReadyAfter < 0 || o.TerminateAfter < 0:
		return errors.New("--ready-after and --terminate-after must not be negative")
	case o.request.Live && (len(o.StateFiles) > 0 || len(o.From) > 0 || o.BaseRef != ""):
		return errors.New("the cluster is the starting state: --live and TYPE/NAME do not combine with --from, --state or --base-ref")
	case o.Chart && o.Output != "text":
		return errors.New("--chart draws in the text output; for a picture use -o svg or -o html")
	}
	return o.validateBatch()
}

// maxRuns bounds --runs: each run is a whole simulation.
const maxRuns = 10_000

// validateBatch checks the CronJob, Job and scale-down flags.
func (o *PredictOptions) validateBatch() error {
	switch {
	case o.Next <= 0:
		return fmt.Errorf("--next %d: must be positive", o.Next)
	case o.Next > predict.MaxNext:
		return fmt.Errorf("--next %d: at most %d scheduled times are listed (runner.MaxNext)", o.Next, predict.MaxNext)
	case o.RunFor < 0:
		return errors.New("--run-for must not be negative")
	case o.FailFirst < 0:
		return fmt.Errorf("--fail-first %d: must not be negative", o.FailFirst)
	case o.FailRate < 0 || o.FailRate > 1:
		return fmt.Errorf("--fail-rate %g: want a probability from 0 to 1", o.FailRate)
	case o.FailFirst > 0 && o.FailRate > 0:
		return errors.New("give --fail-first or --fail-rate, not both")
	case o.Seed != 0 && o.FailRate == 0 && o.ReadySpread == 0:
		return errors.New("--seed needs --fail-rate or --ready-spread: it seeds their random draws")
	case o.Seed < 0:
		return fmt.Errorf("--seed %d: must not be negative", o.Seed)
	case o.ReadySpread < 0:
		return fmt.Errorf("--ready-spread %s: must not be negative", o.ReadySpread)
	case o.Runs < 0:
		return fmt.Errorf("--runs %d: must be positive", o.Runs)
	case o.Runs > 0 && o.ReadySpread == 0:
		return errors.New("--runs needs --ready-spread: without a spread every run is the same plan")
	case o.Runs > maxRuns:
		return fmt.Errorf("--runs %d: at most %d", o.Runs, maxRuns)
	}
	if t := o.request.Targets; len(t) > 0 && t[0].Kind.ScaleDown() && o.request.Replicas == nil {
		return fmt.Errorf("%s/%s: a scale-down needs --replicas N", strings.ToLower(string(t[0].Kind)), t[0].Name)
	}
	return nil
}

// Run predicts, prints the plan and sets the exit status.
func (o *PredictOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	note := func(msg string) { fmt.Fprintf(o.ErrOut, "note: %s\n", safetext.Escape(msg)) }
	renderer, err := o.renderFlags.renderer(o.request.Namespace)
	if err != nil {
		return err
	}
	defer renderer.Close()
	o.request.Renderer = renderer
	var fromRenderer *helper.Renderer
	switch {
	case len(o.fromValues)+len(o.fromSet) > 0:
		if fromRenderer, err = (&renderFlags{opts: o.renderFlags.opts.WithValues(o.fromValues, o.fromSet)}).renderer(o.request.Namespace); err != nil {
			return err
		}
		defer fromRenderer.Close()
		o.request.FromRenderer = fromRenderer
	case len(o.From) > 0 && o.renderFlags.opts.HasValues():
		note("--values and the --set flags apply to the charts of -f and of --from alike: give the old side its own with --from-values and --from-set")
	}
	var c *live.Client
	if o.request.Live {
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
	plan, err := predict.Predict(ctx, o.request, c)
	if plan != nil {
		for _, msg := range plan.Notes {
			note(msg)
		}
	}
	if err != nil {
		return err
	}
	if err := o.checkFlagsApply(plan); err != nil {
		return err
	}
	if err := planreport.Write(o.Out, o.Output, plan.Result, version.Get().Kubernetes, o.Chart); err != nil {
		return err
	}
	for _, w := range plan.Warnings {
		fmt.Fprintf(o.ErrOut, "warning: %s\n", safetext.Escape(w))
	}
	if len(plan.Problems) > 0 {
		for _, pr := range plan.Problems {
			if o.Output != "text" { // the text report shows them
				fmt.Fprintln(o.ErrOut, safetext.Line(fmt.Sprintf("%s:%d:%d: error: %s", pr.File, pr.Pos.Line, pr.Pos.Column, pr.Message)))
			}
		}
		return &exitError{code: ExitError}
	}
	if plan.Failed() {
		return &exitError{code: ExitFindings}
	}
	return nil
}

// rolloutKinds are the kinds whose rollout predict simulates.
var rolloutKinds = []string{"Deployment", "StatefulSet", "DaemonSet"}

// flagKinds lists, for each flag that concerns only some kinds, the kinds it applies to.
var flagKinds = []struct {
	flag  string
	kinds []string
}{
	{"fail-first", []string{"CronJob", "Job"}}, {"fail-rate", []string{"CronJob", "Job"}},
	{"seed", []string{"CronJob", "Job", "Deployment", "StatefulSet", "DaemonSet"}},
	{"ready-spread", rolloutKinds}, {"runs", rolloutKinds},
	{"next", []string{"CronJob"}}, {"last-schedule", []string{"CronJob"}}, {"down", []string{"CronJob"}},
	{"run-for", []string{"CronJob", "Job"}}, {"now", []string{"CronJob", "ReplicaSet", "ReplicationController"}},
	{"chart", rolloutKinds}, {"fail-new", rolloutKinds}, {"ready-after", rolloutKinds}, {"terminate-after", rolloutKinds},
	{"nodes", []string{"DaemonSet"}}, {"nodes-file", []string{"DaemonSet"}},
	{"image", rolloutKinds}, {"undo", rolloutKinds}, {"to-revision", rolloutKinds},
	{"resume", []string{"Deployment"}}, {"restart", rolloutKinds},
	{"replicas", []string{"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"}},
}

// checkFlagsApply refuses a flag given for kinds that none of the predictions has: it would
// be silently ignored (--fail-first with a Deployment, --chart with a Job).
func (o *PredictOptions) checkFlagsApply(plan *predict.Plan) error {
	kinds, refs := plan.Kinds()
	if len(kinds) == 0 {
		return nil
	}
	for _, fk := range flagKinds {
		applies := false
		for _, k := range fk.kinds {
			applies = applies || slices.Contains(kinds, k)
		}
		if o.changed[fk.flag] && !applies {
			return fmt.Errorf("--%s applies to %s, and none is predicted here (%s)", fk.flag, kindList(fk.kinds), strings.Join(refs, ", "))
		}
	}
	return nil
}

// kindList names kinds in the plural: "Jobs", "CronJobs and Jobs", "Deployments, StatefulSets and DaemonSets".
func kindList(kinds []string) string {
	plural := make([]string, len(kinds))
	for i, k := range kinds {
		plural[i] = k + "s"
	}
	if len(plural) == 1 {
		return plural[0]
	}
	return strings.Join(plural[:len(plural)-1], ", ") + " and " + plural[len(plural)-1]
}
