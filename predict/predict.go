// Package predict runs what `kubectl workload predict` asks: it checks the command's
// options, turns them into a request for the predictors (predict/runner), reads the starting
// state from files, git or the cluster (internal/gitref and internal/live), and writes the report
// (predict/report). It never imports cobra; the plugin maps flags to Options and prints.
package predict

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/boundedread"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/daemon"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/job"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/gitref"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
	"github.com/kubectl-workload/kubectl-workload/internal/version"
	"github.com/kubectl-workload/kubectl-workload/predict/report"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// Formats are the output formats (-o).
var Formats = report.Formats

// DefaultNext is how many scheduled times of a CronJob are listed by default (--next).
const DefaultNext = runner.DefaultNext

// Options are the command's flags and arguments, as given.
type Options struct {
	Filenames      []string
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

	// Args are the TYPE/NAME or TYPE NAME arguments.
	Args []string
	// Namespace is -n when NamespaceExplicit, else the kubeconfig context's namespace.
	Namespace         string
	NamespaceExplicit bool
	// Stdin is read for -f -.
	Stdin io.Reader
	// Changed names the flags given on the command line: a flag given explicitly with a zero
	// value is refused, and each given flag must apply to something predicted.
	Changed map[string]bool
	// FlagValues are the given flags' values as typed, for messages.
	FlagValues map[string]string
	// Clock is the real clock: a CronJob's default start time.
	Clock func() time.Time
	// Renderer renders the charts and kustomizations among the files (package render).
	Renderer manifest.Renderer
	// FromRenderer, when set, renders those among From (the old side) with values of
	// their own (--from-values, --from-set); else Renderer does.
	FromRenderer manifest.Renderer
	// Notes receives a line for each kind a live run goes on without, because the user may
	// not read it; nil drops them.
	Notes func(string)
	// Progress, when set, is told how many of the --runs simulations of a workload are
	// done (runner.Request.Progress).
	Progress func(done, total int)
}

func (o Options) flagValue(name string) string { return o.FlagValues[name] }

// Prediction is a checked request, ready to run.
type Prediction struct {
	opts    Options
	live    bool
	request runner.Request
	// gitReader reads the files at --base-ref; nil without.
	gitReader *gitref.Reader
}

// New checks the options and turns them into a Prediction, ready to run.
func New(ctx context.Context, o Options) (*Prediction, error) {
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
		if o.Changed[zero.flag] && zero.isZero {
			return nil, fmt.Errorf("--%s %s: must be positive (%s)", zero.flag, o.flagValue(zero.flag), zero.why)
		}
	}
	r := runner.Request{
		Files: o.Filenames, Stdin: o.Stdin, From: o.From, StateFiles: o.StateFiles, BaseRef: o.BaseRef,
		ReadyAfter: o.ReadyAfter, TerminateAfter: o.TerminateAfter, FailNew: o.FailNew,
		ReadySpread: o.ReadySpread, Runs: o.Runs, Seed: uint64(o.Seed), Progress: o.Progress,
	}
	// As kubectl: -n, else the namespace of the kubeconfig's context, else default.
	explicitNS := ""
	if o.NamespaceExplicit {
		explicitNS = o.Namespace
		r.Namespace, r.NamespaceExplicit = explicitNS, true
	} else {
		r.Namespace = o.Namespace
	}
	for _, s := range o.Images {
		name, image, ok := strings.Cut(s, "=")
		if !ok || name == "" || image == "" {
			return nil, fmt.Errorf("--image %q: want NAME=IMAGE", s)
		}
		r.WhatIf.Images = append(r.WhatIf.Images, kernel.ImageChange{Container: name, Image: image})
	}
	if o.Changed["replicas"] {
		n := o.Replicas
		r.WhatIf.Replicas = &n
	}
	r.WhatIf.Undo, r.WhatIf.ToRevision, r.WhatIf.Resume, r.WhatIf.Restart = o.Undo, o.ToRevision, o.Resume, o.Restart
	// The restartedAt value changes the template hash, so it is fixed: the prediction's own
	// clock, not the wall clock.
	r.WhatIf.RestartAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	targets, err := parseTargets(o.Args, explicitNS)
	if err != nil {
		return nil, err
	}
	r.Targets = targets
	if err := o.completeBatch(&r); err != nil {
		return nil, err
	}
	// TYPE/NAME reads the cluster unless another baseline is given.
	p := &Prediction{opts: o, live: o.Live || (len(targets) > 0 && len(o.StateFiles) == 0 && len(o.From) == 0 && o.BaseRef == "")}
	switch {
	case o.NodesFile != "" && o.Nodes > 0:
		return nil, errors.New("give --nodes or --nodes-file, not both")
	case o.NodesFile != "":
		data, err := boundedread.ReadFile(o.NodesFile, manifest.MaxFileSize)
		if err != nil {
			return nil, fmt.Errorf("--nodes-file: %w", err)
		}
		if r.Nodes, err = daemon.ParseNodes(data); err != nil {
			return nil, fmt.Errorf("--nodes-file %s: %w", o.NodesFile, err)
		}
	case o.Nodes > runner.MaxPods:
		return nil, fmt.Errorf("--nodes %d: predict simulates a DaemonSet node by node, and at most %d nodes (runner.MaxPods)", o.Nodes, runner.MaxPods)
	case o.Nodes > 0:
		r.Nodes = daemon.SyntheticNodes(o.Nodes)
	case o.Nodes < 0:
		return nil, fmt.Errorf("--nodes %d: must be positive", o.Nodes)
	}
	if o.BaseRef != "" {
		// One git cat-file --batch per work tree serves every file; Run closes it.
		p.gitReader = gitref.NewReader(ctx, o.BaseRef)
		r.ReadAtRef = func(file string) ([]byte, error) {
			data, err := p.gitReader.Read(file)
			if errors.Is(err, gitref.ErrNotAtRef) {
				return nil, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
			}
			return data, err
		}
	}
	r.Renderer, r.FromRenderer = o.Renderer, o.FromRenderer
	if o.BaseRef != "" && o.Renderer != nil {
		ref := o.BaseRef
		r.RenderAtRef = func(dir string, kind manifest.DirKind) (*manifest.Set, error) {
			return helper.AtRef(ctx, o.Renderer, ref, dir, kind)
		}
	}
	p.request = r
	if err := p.validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// completeBatch reads the CronJob and Job flags into r.
func (o Options) completeBatch(r *runner.Request) error {
	r.Clock, r.Next, r.RunFor = o.Clock, o.Next, o.RunFor
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
		if now.IsZero() && o.Clock != nil {
			now, flag = o.Clock(), "the current time"
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
		targets = append(targets, runner.Target{Kind: kind, Namespace: namespace, Name: name})
	}
	return targets, nil
}

// validate checks the options' combinations.
func (p *Prediction) validate() error {
	o := p.opts
	if !slices.Contains(report.Formats, o.Output) {
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
	if len(o.From) > 0 && len(o.Filenames) == 0 && len(p.request.Targets) == 0 {
		return errors.New("--from needs -f (the new manifests), or TYPE/NAME (a workload of the old manifests to change with --image, --replicas, --undo or --restart)")
	}
	if o.ToRevision != 0 && !o.Undo {
		return errors.New("--to-revision needs --undo")
	}
	if o.ReadyAfter < 0 || o.TerminateAfter < 0 {
		return errors.New("--ready-after and --terminate-after must not be negative")
	}
	if p.live && (len(o.StateFiles) > 0 || len(o.From) > 0 || o.BaseRef != "") {
		return errors.New("the cluster is the starting state: --live and TYPE/NAME do not combine with --from, --state or --base-ref")
	}
	if o.Chart && o.Output != "text" {
		return errors.New("--chart draws in the text output; for a picture use -o svg or -o html")
	}
	return p.validateBatch()
}

// maxRuns bounds --runs: each run is a whole simulation.
const maxRuns = 10_000

// validateBatch checks the CronJob, Job and scale-down flags.
func (p *Prediction) validateBatch() error {
	o := p.opts
	switch {
	case o.Next <= 0:
		return fmt.Errorf("--next %d: must be positive", o.Next)
	case o.Next > runner.MaxNext:
		return fmt.Errorf("--next %d: at most %d scheduled times are listed (runner.MaxNext)", o.Next, runner.MaxNext)
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
	if t := p.request.Targets; len(t) > 0 && t[0].Kind.ScaleDown() && p.request.WhatIf.Replicas == nil {
		return fmt.Errorf("%s/%s: a scale-down needs --replicas N", strings.ToLower(string(t[0].Kind)), t[0].Name)
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
	{"fail-first", []string{"CronJob", "Job"}},
	{"fail-rate", []string{"CronJob", "Job"}},
	{"seed", []string{"CronJob", "Job", "Deployment", "StatefulSet", "DaemonSet"}},
	{"ready-spread", rolloutKinds},
	{"runs", rolloutKinds},
	{"next", []string{"CronJob"}},
	{"last-schedule", []string{"CronJob"}},
	{"down", []string{"CronJob"}},
	{"run-for", []string{"CronJob", "Job"}},
	{"now", []string{"CronJob", string(kernel.KindReplicaSet), string(kernel.KindReplicationController)}},
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
	{"replicas", []string{"Deployment", "StatefulSet", string(kernel.KindReplicaSet), string(kernel.KindReplicationController)}},
}

// checkFlagsApply refuses a flag given for kinds that none of the predictions has: it would
// be silently ignored (--fail-first with a Deployment, --chart with a Job).
func (o Options) checkFlagsApply(res *runner.Result) error {
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
		if !o.Changed[fk.flag] {
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

// Live reports whether the prediction starts from the cluster: it then needs Cluster.
func (p *Prediction) Live() bool { return p.live }

// Run predicts and writes the report to out, in the options' format. The cluster, for a live
// prediction, is c (a client of package live). The outcome says which exit status the
// command has; errors are usage or tool errors.
func (p *Prediction) Run(ctx context.Context, c *live.Client, out io.Writer) (Outcome, error) {
	if p.live {
		if c == nil {
			return Outcome{}, errors.New("a live prediction needs the cluster")
		}
		if p.request.Namespace == "" {
			p.request.Namespace = c.Namespace
			for i := range p.request.Targets {
				if p.request.Targets[i].Namespace == "" {
					p.request.Targets[i].Namespace = c.Namespace
				}
			}
		}
		p.request.Cluster = live.NewStateReader(c, time.Now)
		p.request.FetchNamespaceLabels = func(ctx context.Context, names []string) (map[string]map[string]string, error) {
			labels, skips, err := c.NamespaceLabels(ctx, names)
			for _, s := range skips {
				if p.opts.Notes != nil {
					p.opts.Notes(s.Message)
				}
			}
			return labels, err
		}
	}
	res, err := runner.Run(ctx, p.request)
	if p.gitReader != nil {
		if cerr := p.gitReader.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("--base-ref %s: %w", p.opts.BaseRef, cerr)
		}
	}
	if err != nil {
		return Outcome{}, err
	}
	if err := p.opts.checkFlagsApply(res); err != nil {
		return Outcome{}, err
	}
	if err := report.Write(out, p.opts.Output, res, version.Get().Kubernetes, p.opts.Chart); err != nil {
		return Outcome{}, err
	}
	o := Outcome{Failed: res.Failed(), Warnings: res.Warnings}
	for _, pr := range res.Problems {
		o.Problems = append(o.Problems, fmt.Sprintf("%s:%d:%d: error: %s", pr.File, pr.Pos.Line, pr.Pos.Column, pr.Message))
	}
	// The text report shows the problems; the other formats do not.
	o.ProblemsShown = p.opts.Output == "text"
	return o, nil
}

// Outcome is what a run found, for the exit status: problems in the input (exit 2), or a
// prediction that fails (exit 1: rejected, stalled, past its deadline, a failing Job, a
// CronJob that starts no Job).
type Outcome struct {
	// Warnings are what rendering the charts and kustomizations warned of.
	Warnings      []string
	Problems      []string
	ProblemsShown bool
	Failed        bool
}
