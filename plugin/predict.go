package plugin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/gitref"
	"github.com/kubectl-workload/kubectl-workload/live"
	"github.com/kubectl-workload/kubectl-workload/manifest"
	"github.com/kubectl-workload/kubectl-workload/predict"
	"github.com/kubectl-workload/kubectl-workload/predict/daemonset"
	"github.com/kubectl-workload/kubectl-workload/predict/job"
	"github.com/kubectl-workload/kubectl-workload/predict/report"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
	"github.com/kubectl-workload/kubectl-workload/version"
)

const predictExample = `  # How will applying web.yaml roll out, starting from what web-v1.yaml deployed?
  kubectl workload predict -f examples/good/web.yaml --from examples/predict/web-v1.yaml

  # The same, with the old version taken from git (pre-commit, PR review)
  kubectl workload predict -f k8s/web.yaml --base-ref origin/main

  # From a state dump taken mid-rollout, what would kubectl set image do?
  kubectl get deploy,rs,pods -o yaml > state.yaml
  kubectl workload predict --state state.yaml deployment/web --image web=nginx:1.27

  # Where does the rollout stall if the new pods never become ready?
  kubectl workload predict -f examples/good/web.yaml --from examples/predict/web-v1.yaml --fail-new --chart

  # A picture of the timeline
  kubectl workload predict -f examples/good/web.yaml --from examples/predict/web-v1.yaml -o svg > rollout.svg

  # When does a CronJob run next, and does a Job start after the controller was down?
  kubectl workload predict -f examples/predict/report-cronjob.yaml --next 10
  kubectl workload predict -f examples/predict/report-cronjob.yaml --down 2026-03-08T05:00:00Z,2026-03-08T09:00:00Z

  # How does a Job end when its first 3 pods fail?
  kubectl workload predict -f batch-job.yaml --fail-first 3 --run-for 1m

  # Which pods does a ReplicaSet delete first when scaled to 2?
  kubectl get rs,pods -o yaml > pods.yaml
  kubectl workload predict replicaset/web-5c8f6b7d9 --replicas 2 --state pods.yaml`

// PredictOptions are the flags and inputs of `kubectl workload predict`.
type PredictOptions struct {
	configFlags *genericclioptions.ConfigFlags

	Filenames      []string
	renderFlags    renderFlags
	From           []string
	StateFiles     []string
	BaseRef        string
	Images         []string
	Replicas       int32
	Undo           bool
	ToRevision     int64
	Resume         bool
	Restart        bool
	ReadyAfter     time.Duration
	TerminateAfter time.Duration
	FailNew        bool
	Output         string
	Chart          bool
	Live           bool
	Nodes          int
	NodesFile      string
	Next           int
	Now            string
	LastSchedule   string
	Down           string
	RunFor         time.Duration
	FailFirst      int
	FailRate       float64
	Seed           int64
	ReadySpread    time.Duration
	Runs           int

	live bool
	// changed names the flags given on the command line, for the check that each applies to
	// something predicted (checkFlagsApply).
	changed map[string]bool
	// clock is the real clock: a CronJob's default start time.
	clock func() time.Time

	request runner.Request

	genericiooptions.IOStreams
}

// NewCmdPredict builds `kubectl workload predict`.
func NewCmdPredict(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &PredictOptions{configFlags: configFlags, IOStreams: streams, clock: time.Now}
	cmd := &cobra.Command{
		Use:   "predict [-f FILE] [TYPE/NAME | TYPE NAME]",
		Short: "Show step by step how a rollout will proceed, when a CronJob runs, how a Job ends, which pods a scale-down deletes",
		Long: `Predict a Deployment rollout with the Deployment controller's own v1.37 arithmetic:
which ReplicaSet scales to what and when, the surge and availability bounds, how
long it takes, and where it stalls when the new pods never become ready.

The starting point is one of:
  --from OLD        the old manifests, assumed fully rolled out and available
  --state DUMP      kubectl get deploy,rs,pods -o yaml output, possibly mid-rollout
  --base-ref REF    each -f file as it was at a git ref
  TYPE/NAME, --live the cluster: the Deployment, its ReplicaSets and their pods,
                    read with one get and two lists (read-only)
  (nothing)         a Deployment created from scratch

Instead of -f, a change can be described as kubectl would make it, on top of the
state: --image, --replicas, --undo [--to-revision], --resume, --restart, for
deployment/NAME, and (but --resume) statefulset/NAME and daemonset/NAME (--undo by
ControllerRevision). With no change, the state shows what happens next.

The new manifest first goes through the API server's validation (an update of the
old object when there is one, so a changed selector is refused as the server
refuses it); a rejected manifest gets that verdict instead of a plan.

Pods become Ready after a time derived from their readiness and startup probes
(container start 2s + initialDelaySeconds + (successThreshold-1) x periodSeconds),
or --ready-after; deleted pods run for 5s (or their preStop sleep), bounded by
terminationGracePeriodSeconds, or --terminate-after.

StatefulSets and DaemonSets in -f are predicted the same way. Other kinds:
  CronJob (batch/v1)  the next --next N scheduled times (default 5) in its timeZone,
                      from --now (default: the current time), each with its Job's
                      name; --last-schedule T: the controller's sync at --now after
                      the times missed since T; --down FROM,TO: its first sync after
                      an outage; --run-for D: concurrencyPolicy when each Job runs D
  Job (batch/v1)      the waves of pods, the pod-failure backoff (10s doubling,
                      10m cap) and the ending, when each pod runs --run-for (default
                      10s) and --fail-first N pods fail, or each fails with
                      probability --fail-rate F (reproducible with --seed S)
  ReplicaSet, ReplicationController (scale-down)
                      which pods go first and the rule behind each step, from the
                      pods of --state or the cluster: replicaset/NAME --replicas N,
                      or -f rs.yaml with a smaller spec.replicas

Exit status: 0 when every rollout completes (OnDelete waiting for pods to be
deleted included); 1 when one is rejected, stalls or passes progressDeadlineSeconds
(even if it completes later), a Job fails (BackoffLimitExceeded, DeadlineExceeded,
failed indexes), or a CronJob's missed schedule starts no Job (past
startingDeadlineSeconds); 2 for usage or tool errors, a flag that applies to none of
the kinds predicted included.`,
		Example: predictExample,
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
	f.StringArrayVar(&o.Images, "image", nil, "NAME=IMAGE: change a container's image, as kubectl set image does (NAME * for all; repeatable)")
	f.Int32Var(&o.Replicas, "replicas", 0, "change spec.replicas, as kubectl scale does (0 scales to zero)")
	f.BoolVar(&o.Undo, "undo", false, "roll back to the previous revision, as kubectl rollout undo does")
	f.Int64Var(&o.ToRevision, "to-revision", 0, "with --undo: the revision to roll back to")
	f.BoolVar(&o.Resume, "resume", false, "resume a paused Deployment, as kubectl rollout resume does")
	f.BoolVar(&o.Restart, "restart", false, "restart the pods, as kubectl rollout restart does")
	f.DurationVar(&o.ReadyAfter, "ready-after", 0, "time from pod creation to Ready (default: derived from the probes)")
	f.DurationVar(&o.TerminateAfter, "terminate-after", 0, "time a deleted pod keeps running (default: 5s or the preStop sleep, bounded by the grace period)")
	f.BoolVar(&o.FailNew, "fail-new", false, "the new pods never become Ready: show where the rollout stalls")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: "+strings.Join(report.Formats, ", "))
	f.BoolVar(&o.Chart, "chart", false, "with -o text: draw the pods over time in the terminal")
	f.IntVar(&o.Nodes, "nodes", 0, "DaemonSets: assume N Ready nodes without taints (default: the state's or the cluster's nodes, else 3)")
	f.StringVar(&o.NodesFile, "nodes-file", "", "DaemonSets: the nodes, from kubectl get nodes -o yaml")
	f.IntVar(&o.Next, "next", runner.DefaultNext, "CronJobs: how many scheduled times to list")
	f.StringVar(&o.Now, "now", "", "CronJobs and scale-downs: the current time, RFC 3339 (default: the current time; for a scale-down the state's time)")
	f.StringVar(&o.LastSchedule, "last-schedule", "", "CronJobs: the last schedule time, RFC 3339: predict the controller's sync at --now after the times missed since")
	f.StringVar(&o.Down, "down", "", "CronJobs: FROM,TO (RFC 3339): the controller was down from FROM to TO; predict its first sync after")
	f.DurationVar(&o.RunFor, "run-for", 0, "CronJobs: each Job runs this long (shows concurrencyPolicy at work); Jobs: each pod runs this long (default 10s)")
	f.IntVar(&o.FailFirst, "fail-first", 0, "Jobs: the first N pods fail, the rest succeed")
	f.Float64Var(&o.FailRate, "fail-rate", 0, "Jobs: each pod fails with this probability, 0 to 1")
	f.Int64Var(&o.Seed, "seed", 0, "the random seed of --fail-rate (Jobs) or --ready-spread (the same seed gives the same run)")
	f.DurationVar(&o.ReadySpread, "ready-spread", 0, "Deployments, StatefulSets, DaemonSets: spread each pod's Ready time over this long, as in a real cluster (default: the deterministic plan)")
	f.IntVar(&o.Runs, "runs", 0, "with --ready-spread: simulate N times and report the distribution (completion time, bounds, step sequences)")
	f.BoolVar(&o.Live, "live", false, "start from the cluster's current state of each -f Deployment, StatefulSet and DaemonSet (implied by TYPE/NAME without --state)")
	return cmd
}

// Complete turns the flags into a runner.Request.
func (o *PredictOptions) Complete(cmd *cobra.Command, args []string) error {
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
		if f := cmd.Flags().Lookup(zero.flag); f != nil && f.Changed && zero.isZero {
			return fmt.Errorf("--%s %s: must be positive (%s)", zero.flag, f.Value.String(), zero.why)
		}
	}
	o.changed = map[string]bool{}
	cmd.Flags().Visit(func(f *pflag.Flag) { o.changed[f.Name] = true })
	r := runner.Request{
		Files: o.Filenames, Stdin: o.In, From: o.From, StateFiles: o.StateFiles, BaseRef: o.BaseRef,
		ReadyAfter: o.ReadyAfter, TerminateAfter: o.TerminateAfter, FailNew: o.FailNew,
		ReadySpread: o.ReadySpread, Runs: o.Runs, Seed: uint64(o.Seed),
	}
	// As kubectl: -n, else the namespace of the kubeconfig's context, else default.
	explicitNS := ""
	if f := cmd.Flags().Lookup("namespace"); f != nil && f.Changed && o.configFlags.Namespace != nil {
		explicitNS = *o.configFlags.Namespace
		r.Namespace, r.NamespaceExplicit = explicitNS, true
	} else {
		ns, _, err := o.configFlags.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return fmt.Errorf("the namespace of the kubeconfig's context: %w", err)
		}
		r.Namespace = ns
	}
	for _, s := range o.Images {
		name, image, ok := strings.Cut(s, "=")
		if !ok || name == "" || image == "" {
			return fmt.Errorf("--image %q: want NAME=IMAGE", s)
		}
		r.WhatIf.Images = append(r.WhatIf.Images, predict.ImageChange{Container: name, Image: image})
	}
	if cmd.Flags().Changed("replicas") {
		n := o.Replicas
		r.WhatIf.Replicas = &n
	}
	r.WhatIf.Undo, r.WhatIf.ToRevision, r.WhatIf.Resume, r.WhatIf.Restart = o.Undo, o.ToRevision, o.Resume, o.Restart
	// The restartedAt value changes the template hash, so it is fixed: the prediction's own
	// clock, not the wall clock.
	r.WhatIf.RestartAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	targets, err := parseTargets(args, explicitNS)
	if err != nil {
		return err
	}
	r.Targets = targets
	if err := o.completeBatch(&r); err != nil {
		return err
	}
	o.live = o.Live || (len(targets) > 0 && len(o.StateFiles) == 0)
	switch {
	case o.NodesFile != "" && o.Nodes > 0:
		return errors.New("give --nodes or --nodes-file, not both")
	case o.NodesFile != "":
		data, err := os.ReadFile(o.NodesFile)
		if err != nil {
			return fmt.Errorf("--nodes-file: %w", err)
		}
		if r.Nodes, err = daemonset.ParseNodes(data); err != nil {
			return fmt.Errorf("--nodes-file %s: %w", o.NodesFile, err)
		}
	case o.Nodes > 0:
		r.Nodes = daemonset.SyntheticNodes(o.Nodes)
	case o.Nodes < 0:
		return fmt.Errorf("--nodes %d: must be positive", o.Nodes)
	}
	if o.BaseRef != "" {
		ref := o.BaseRef
		r.ReadAtRef = func(file string) ([]byte, error) {
			abs, err := filepath.Abs(file)
			if err != nil {
				return nil, err
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			data, err := gitref.Read(ctx, filepath.Dir(abs), ref, abs)
			if errors.Is(err, gitref.ErrNotAtRef) {
				return nil, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
			}
			return data, err
		}
		r.RenderAtRef = func(dir string, kind manifest.DirKind) (*manifest.Set, error) {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return renderAtRef(ctx, r.Renderer, ref, dir, kind)
		}
	}
	if r.Renderer, err = o.renderFlags.renderer(r.Namespace); err != nil {
		return err
	}
	o.request = r
	return nil
}

// completeBatch reads the CronJob and Job flags into r.
func (o *PredictOptions) completeBatch(r *runner.Request) error {
	r.Clock, r.Next, r.RunFor = o.clock, o.Next, o.RunFor
	r.Failure = job.FailureModel{FailFirst: o.FailFirst, FailRate: o.FailRate, Seed: o.Seed}
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

// parseTargets reads TYPE/NAME or TYPE NAME arguments naming Deployments, or ReplicaSets and
// ReplicationControllers (a scale-down); the two do not mix.
func parseTargets(args []string, namespace string) ([]runner.Target, error) {
	var targets []runner.Target
	for i := 0; i < len(args); i++ {
		typ, name, ok := strings.Cut(args[i], "/")
		if !ok {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("argument %q: want TYPE/NAME or TYPE NAME", args[i])
			}
			typ, name = args[i], args[i+1]
			i++
		}
		var kind string
		switch strings.ToLower(typ) {
		case "deployment", "deployments", "deploy", "deployment.apps", "deployments.apps":
		case "statefulset", "statefulsets", "sts", "statefulset.apps", "statefulsets.apps":
			kind = "StatefulSet"
		case "daemonset", "daemonsets", "ds", "daemonset.apps", "daemonsets.apps":
			kind = "DaemonSet"
		case "replicaset", "replicasets", "rs", "replicaset.apps", "replicasets.apps":
			kind = runner.KindReplicaSet
		case "replicationcontroller", "replicationcontrollers", "rc":
			kind = runner.KindReplicationController
		default:
			return nil, fmt.Errorf("argument %q: predict models Deployments, StatefulSets and DaemonSets (and ReplicaSets and ReplicationControllers scaled down) by name, not %s; give other kinds with -f", args[i], typ)
		}
		if len(targets) > 0 && scaleDownTarget(targets[0].Kind) != scaleDownTarget(kind) {
			return nil, fmt.Errorf("argument %q: name Deployments, StatefulSets and DaemonSets, or ReplicaSets and ReplicationControllers, not both", args[i])
		}
		targets = append(targets, runner.Target{Kind: kind, Namespace: namespace, Name: name})
	}
	return targets, nil
}

// Validate checks flag combinations.
func (o *PredictOptions) Validate() error {
	if !contains(report.Formats, o.Output) {
		return fmt.Errorf("--output %q: want one of %s", o.Output, strings.Join(report.Formats, ", "))
	}
	starts := 0
	for _, set := range []bool{len(o.From) > 0, len(o.StateFiles) > 0, o.BaseRef != ""} {
		if set {
			starts++
		}
	}
	if starts > 1 {
		return errors.New("give at most one of --from, --state and --base-ref")
	}
	if o.BaseRef != "" && len(o.Filenames) == 0 {
		return errors.New("--base-ref needs -f: the files whose old version is read from git")
	}
	if len(o.From) > 0 && len(o.Filenames) == 0 {
		return errors.New("--from needs -f: the new manifests")
	}
	if o.ToRevision != 0 && !o.Undo {
		return errors.New("--to-revision needs --undo")
	}
	if o.ReadyAfter < 0 || o.TerminateAfter < 0 {
		return errors.New("--ready-after and --terminate-after must not be negative")
	}
	if o.live && (len(o.StateFiles) > 0 || len(o.From) > 0 || o.BaseRef != "") {
		return errors.New("the cluster is the starting state: --live and TYPE/NAME do not combine with --from, --state or --base-ref")
	}
	if o.Chart && o.Output != "text" {
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
	if t := o.request.Targets; len(t) > 0 && scaleDownTarget(t[0].Kind) && o.request.WhatIf.Replicas == nil {
		return fmt.Errorf("%s/%s: a scale-down needs --replicas N", strings.ToLower(t[0].Kind), t[0].Name)
	}
	return nil
}

// scaleDownTarget reports whether a target's kind is scaled down (a ReplicaSet or
// ReplicationController) rather than rolled out.
func scaleDownTarget(kind string) bool {
	return kind == runner.KindReplicaSet || kind == runner.KindReplicationController
}

// rolloutKinds are the kinds whose rollout predict simulates.
var rolloutKinds = []string{"Deployment", "StatefulSet", "DaemonSet"}

// flagKinds lists, for each flag that concerns only some kinds, the kinds it applies to.
var flagKinds = []struct {
	flag  string
	kinds []string
}{
	{"fail-first", []string{"Job"}},
	{"fail-rate", []string{"Job"}},
	{"seed", []string{"Job", "Deployment", "StatefulSet", "DaemonSet"}},
	{"ready-spread", rolloutKinds},
	{"runs", rolloutKinds},
	{"next", []string{"CronJob"}},
	{"last-schedule", []string{"CronJob"}},
	{"down", []string{"CronJob"}},
	{"run-for", []string{"CronJob", "Job"}},
	{"now", []string{"CronJob", runner.KindReplicaSet, runner.KindReplicationController}},
	{"chart", rolloutKinds},
	{"fail-new", rolloutKinds},
	{"ready-after", rolloutKinds},
	{"terminate-after", rolloutKinds},
	{"nodes", []string{"DaemonSet"}},
	{"nodes-file", []string{"DaemonSet"}},
	{"image", rolloutKinds},
	{"undo", rolloutKinds},
	{"to-revision", rolloutKinds},
	{"resume", []string{"Deployment"}},
	{"restart", rolloutKinds},
	{"replicas", []string{"Deployment", "StatefulSet", runner.KindReplicaSet, runner.KindReplicationController}},
}

// checkFlagsApply refuses a flag given for kinds that none of the predictions has: it would
// be silently ignored (--fail-first with a Deployment, --chart with a Job).
func (o *PredictOptions) checkFlagsApply(res *runner.Result) error {
	if len(res.Predictions) == 0 {
		return nil
	}
	kinds := map[string]bool{}
	var refs []string
	for _, p := range res.Predictions {
		if !kinds[p.Kind] {
			refs = append(refs, fmt.Sprintf("%s %s/%s", p.Kind, p.Namespace, p.Name))
		}
		kinds[p.Kind] = true
	}
	for _, fk := range flagKinds {
		if !o.changed[fk.flag] {
			continue
		}
		applies := false
		for _, k := range fk.kinds {
			applies = applies || kinds[k]
		}
		if !applies {
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

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Run predicts, prints, and returns an exitError for exit codes 1 and 2.
func (o *PredictOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.live {
		c, err := live.New(o.configFlags)
		if err != nil {
			return err
		}
		info, err := c.ServerVersion(ctx)
		if err != nil {
			return err
		}
		if w := live.SkewWarning(info); w != "" {
			fmt.Fprintf(o.ErrOut, "warning: %s\n", w)
		}
		if o.request.Namespace == "" {
			o.request.Namespace = c.Namespace
			for i := range o.request.Targets {
				if o.request.Targets[i].Namespace == "" {
					o.request.Targets[i].Namespace = c.Namespace
				}
			}
		}
		o.request.Fetch = liveFetcher(c, time.Now)
		o.request.FetchSource = fmt.Sprintf("context %q", c.Context)
	}
	res, err := runner.Run(ctx, o.request)
	if err != nil {
		return err
	}
	if err := o.checkFlagsApply(res); err != nil {
		return err
	}
	if err := report.Write(o.Out, o.Output, res, version.KubernetesRelease, o.Chart); err != nil {
		return err
	}
	if len(res.Problems) > 0 {
		if o.Output != "text" {
			for _, p := range res.Problems {
				fmt.Fprintf(o.ErrOut, "%s:%d:%d: error: %s\n", p.File, p.Pos.Line, p.Pos.Column, p.Message)
			}
		}
		return &exitError{code: ExitError}
	}
	if res.Failed() {
		return &exitError{code: ExitFindings}
	}
	return nil
}
