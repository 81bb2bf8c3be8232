// Package runner turns plain inputs (manifests, an old version, a state dump, a live
// cluster's state, a what-if change) into predictions, by running the API tier and then the
// simulator of each workload kind. It never imports cobra and never prints.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/deployment"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	apps "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/job"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// HashNote qualifies a predicted ReplicaSet name.
const HashNote = "hash of the defaulted template; another server version may default differently and name it otherwise"

// Request is what Run needs: plain inputs, already read from flags.
type Request struct {
	// Files are the new manifests (-f); "-" is Stdin.
	Files []string
	Stdin io.Reader
	// From are old manifests, assumed fully rolled out and available.
	From []string
	// StateFiles are dumps of `kubectl get deploy,rs,pods -o yaml`.
	StateFiles []string
	// State is a current state given directly (live mode); it is merged with StateFiles.
	State *kernel.State
	// Cluster reads the current state of one object (live mode, package live): a
	// Deployment with its ReplicaSets and their pods; a StatefulSet or DaemonSet with its
	// ControllerRevisions, the pods its selector matches and, for a DaemonSet, the nodes; a
	// ReplicaSet or ReplicationController with its pods. Nil outside live mode.
	Cluster kernel.StateReader
	// Nodes are the nodes a DaemonSet runs on when the state has none (--nodes, --nodes-file).
	Nodes []*v1.Node
	// BaseRef names a git ref whose version of each file is the old version; ReadAtRef reads
	// a file at that ref and returns os.ErrNotExist (wrapped) when it did not exist there.
	BaseRef   string
	ReadAtRef func(file string) ([]byte, error)
	// RenderAtRef renders a chart or kustomization directory as it is at
	// BaseRef, for the old version of the objects rendered from it.
	RenderAtRef func(dir string, kind manifest.DirKind) (*manifest.Set, error)
	// Renderer, when set, renders the charts and kustomizations among
	// Files (see manifest.ExpandWith).
	Renderer manifest.Renderer
	// FromRenderer, when set, renders the charts and kustomizations among From, with
	// values of their own; else Renderer does.
	FromRenderer manifest.Renderer
	// Targets name the Deployments to change with WhatIf when there are no Files.
	Targets []Target
	// Namespace is the namespace of manifests and targets that name none: -n, else the
	// kubeconfig context's; "default" when empty.
	Namespace string
	// NamespaceExplicit is true when Namespace comes from -n. Otherwise a manifest or target
	// that the state holds in exactly one other namespace is looked up there (see
	// resolveNamespace).
	NamespaceExplicit bool
	WhatIf            kernel.WhatIf
	// NamespaceLabels are the labels of the cluster's Namespaces (live mode), read for their
	// Pod Security labels; a Namespace of Files replaces the cluster's.
	NamespaceLabels map[string]map[string]string
	// FetchNamespaceLabels, when set (live mode), reads the labels of the cluster's
	// Namespaces of those names that exist, for the namespaces of Files.
	FetchNamespaceLabels func(ctx context.Context, names []string) (map[string]map[string]string, error)
	// ReadyAfter and TerminateAfter override the derived timings when not zero.
	ReadyAfter     time.Duration
	TerminateAfter time.Duration
	FailNew        bool
	// RefuseNew: the namespace refuses the new pods (set with FailNew when its Pod Security
	// enforce level refuses the template); a Deployment's plan then creates none.
	RefuseNew bool
	// ReadySpread spreads each Deployment, StatefulSet or DaemonSet pod's Ready time over
	// [0, ReadySpread) (--ready-spread); Runs simulations (--runs) then give a Distribution,
	// run i drawn from Seed+i. With a spread and no Runs, the plan is the one spread run of
	// Seed. Zero spread: the deterministic causal plan.
	ReadySpread time.Duration
	Runs        int
	// Progress, when set, is told after each of the Runs simulations of a workload: how
	// many are done, of Runs. It may be called from several goroutines.
	Progress func(done, total int)
	Seed     uint64
	// Start is the simulated time of the first sync; zero means a fixed epoch, or the state's
	// time when there is a state.
	Start time.Time

	// Now is the current time a CronJob's next times count from and a scale-down measures pod
	// ages at (--now); zero means Clock (for a scale-down: the state's time, then Clock).
	Now time.Time
	// Clock is the real clock, injected by the caller; nil means a fixed epoch.
	Clock func() time.Time
	// Next is how many scheduled times a CronJob prediction lists; 0 means DefaultNext.
	Next int
	// LastSchedule is a CronJob's last schedule time (--last-schedule): predict the
	// controller's sync at Now after the times missed since.
	LastSchedule *time.Time
	// DownFrom and DownTo bound a kube-controller-manager outage (--down): predict its first
	// sync at DownTo. Zero means none.
	DownFrom, DownTo time.Time
	// RunFor is how long each Job of a CronJob runs (concurrencyPolicy over the next times), or
	// how long each pod of a Job runs (0: DefaultJobRunFor).
	RunFor time.Duration
	// Failure decides which pods of a Job fail.
	Failure job.FailureModel

	// autoscalers are the HorizontalPodAutoscalers of Files (Run sets them).
	autoscalers []sourcedAutoscaler
}

// Target names a Deployment, or with Kind a StatefulSet, DaemonSet, ReplicaSet or
// ReplicationController.
type Target struct {
	// Kind is kernel.KindDeployment ("" also means a Deployment), KindStatefulSet,
	// KindDaemonSet, KindReplicaSet or KindReplicationController.
	Kind      kernel.Kind
	Namespace string
	Name      string
}

// Result is everything Run predicted, in input order.
type Result struct {
	Predictions []Prediction
	// Problems are input documents that could not be loaded.
	Problems []manifest.Problem
	// Warnings are what rendering the charts and kustomizations among the
	// files warned of (see manifest.Set.Warnings).
	Warnings []string
	// Skipped names objects of -f that predict does not model, with the reason.
	Skipped []SkippedObject
}

// SkippedObject is an object of the new manifests that has no prediction.
type SkippedObject struct {
	File     string
	Document int
	Pos      manifest.Pos
	Ref      string
	Reason   string
}

// Prediction is one workload's predicted rollout, or the API server's verdict instead.
type Prediction struct {
	// File, Document and Pos locate the new manifest; File is empty for a what-if change of
	// the current state.
	File      string
	Document  int
	Pos       manifest.Pos
	Kind      string
	Namespace string
	Name      string
	// Baseline says what the prediction starts from.
	Baseline string
	// Rejected holds what the API server would reject; there is no plan then.
	Rejected []Rejection
	Plan     *kernel.Plan
	Timing   TimingInfo
	// Distribution summarizes Request.Runs spread runs of the plan; nil without --runs.
	Distribution *kernel.Distribution
	// Autoscaler, when set, is the HorizontalPodAutoscaler that owns the replica count of
	// this Deployment or StatefulSet, and the count the plan runs at.
	Autoscaler *Autoscaler
	// Schedule is a CronJob's schedule, Job a Job's run, ScaleDown a ReplicaSet's or
	// ReplicationController's scale-down order; each is set only for its kind, and Plan is nil
	// then.
	Schedule  *ScheduleResult
	Job       *JobResult
	ScaleDown *ScaleDownResult
}

// Rejection is one API server error for the new manifest.
type Rejection struct {
	Rule    string
	Field   string
	Message string
	Pos     manifest.Pos
}

// TimingInfo is the world's timing and where it came from.
type TimingInfo struct {
	ReadyAfter      time.Duration
	ReadySource     string
	TerminateAfter  time.Duration
	TerminateSource string
	FailNew         bool
	// Refused, when set, is why the namespace refuses every new pod (Pod Security): the plan
	// was simulated with the new pods never Ready.
	Refused *Refusal
}

// Failed reports whether any prediction was rejected, stalls, or passes its progress deadline.
func (r *Result) Failed() bool {
	for _, p := range r.Predictions {
		if len(p.Rejected) > 0 {
			return true
		}
		// A rollout fails when it stalls, and when it passes progressDeadlineSeconds even if it
		// completes later (kubectl rollout status fails on the deadline); OnDelete waiting for
		// pods to be deleted is what the user chose.
		if s := p.Plan; s != nil && (s.Summary.DeadlineExceeded || (!s.Summary.Completed && !s.Summary.WaitsForDeletion)) {
			return true
		}
		if (p.Job != nil && p.Job.Failed()) || (p.Schedule != nil && p.Schedule.Failed()) {
			return true
		}
	}
	return false
}

// Run predicts the rollout of every Deployment, StatefulSet and DaemonSet in req.Files (or of
// req.Targets changed by req.WhatIf) from the baseline req names; for a CronJob its schedule
// (cronjob.go), for a Job its run (job.go), and for a ReplicaSet or ReplicationController its
// scale-down order (scaledown.go). Input that cannot be used at all (an unreadable state, a
// what-if without a state) is an error; a rejected manifest, a stalled rollout or a failing Job
// is a Prediction.
func Run(ctx context.Context, req Request) (*Result, error) {
	ns := req.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	res := &Result{}
	if len(req.Files) == 0 && len(req.From) > 0 && len(req.Targets) > 0 {
		// TYPE/NAME --from OLD: the named workload of the old manifests, as they run (fully
		// rolled out), changed by the what-if.
		req.Files = req.From
	}
	state, err := loadState(req, res)
	if err != nil {
		return nil, err
	}
	var oldSet *manifest.Set
	if len(req.From) > 0 {
		// Old charts and overlays render as the new ones do, unless they have values
		// of their own.
		from := req.Renderer
		if req.FromRenderer != nil {
			from = req.FromRenderer
		}
		oldSet = manifest.LoadWith(req.From, nil, from)
		res.Problems = append(res.Problems, oldSet.Problems...)
	}
	checker := apicheck.New()
	if len(req.Files) == 0 && len(req.Targets) > 0 && req.Targets[0].Kind.ScaleDown() {
		if err := scaleDownTargets(ctx, req, state, res, ns); err != nil {
			return nil, err
		}
		return res, nil
	}
	if len(req.Files) == 0 {
		// Without a change, a state (or a Deployment named in the cluster) predicts what happens
		// next: how a rollout in progress finishes.
		if req.WhatIf.Empty() && state == nil && len(req.Targets) == 0 {
			return nil, errors.New("nothing to predict: give new manifests with -f, a change (--image, --replicas, --undo, --resume, --restart), or a state (--state, or deployment/NAME in the cluster) to see what happens next")
		}
		if state == nil && req.Cluster == nil {
			return nil, errors.New("a change without -f needs the current state: give --state, or name a Deployment in the cluster")
		}
		targets := req.Targets
		if len(targets) == 0 && state == nil {
			return nil, errors.New("a change without -f needs a Deployment: name it as deployment/NAME")
		}
		if len(targets) == 0 && req.WhatIf.Empty() {
			// What happens next to every Deployment of the state.
			for _, d := range state.Deployments {
				targets = append(targets, Target{Namespace: d.Namespace, Name: d.Name})
			}
			sort.Slice(targets, func(i, j int) bool {
				if targets[i].Namespace != targets[j].Namespace {
					return targets[i].Namespace < targets[j].Namespace
				}
				return targets[i].Name < targets[j].Name
			})
			if len(targets) == 0 {
				return nil, fmt.Errorf("state %s holds no Deployment: nothing to predict", state.Source)
			}
		}
		if len(targets) == 0 {
			if len(state.Deployments) != 1 {
				return nil, fmt.Errorf("state %s holds %d Deployments: name one", state.Source, len(state.Deployments))
			}
			targets = []Target{{Namespace: state.Deployments[0].Namespace, Name: state.Deployments[0].Name}}
		}
		for _, t := range targets {
			st := state
			var cur *apps.Deployment
			explicit := t.Namespace != "" || req.NamespaceExplicit
			if t.Namespace == "" {
				t.Namespace = ns
			}
			if setKind(string(t.Kind)) {
				p, err := predictSetChange(ctx, req, checker, state, t, explicit)
				if err != nil {
					return nil, err
				}
				res.Predictions = append(res.Predictions, p)
				continue
			}
			resolved, note, err := resolveNamespace(st, "Deployment", t.Namespace, t.Name, explicit)
			if err != nil {
				return nil, err
			}
			t.Namespace = resolved
			if st != nil {
				cur = st.Deployment(t.Namespace, t.Name)
			}
			if cur == nil && req.Cluster != nil {
				fetched, err := req.Cluster.ReadState(ctx, kernel.KindDeployment, t.Namespace, t.Name)
				if err != nil {
					return nil, err
				}
				if fetched == nil {
					return nil, fmt.Errorf("%s: deployment %s/%s: not found", req.source(), t.Namespace, t.Name)
				}
				st, cur = fetched, fetched.Deployment(t.Namespace, t.Name)
			}
			if cur == nil {
				where := req.source()
				if st != nil {
					where = st.Source
				}
				return nil, fmt.Errorf("deployment %s/%s: not found in %s", t.Namespace, t.Name, where)
			}
			a := autoscalerOfStored(st, "Deployment", cur.Namespace, cur.Name, cur.Spec.Replicas, req.WhatIf.Replicas)
			p, err := predictFromState(req, st, cur, nil)
			if err != nil {
				return nil, fmt.Errorf("deployment %s/%s: %w", t.Namespace, t.Name, err)
			}
			addNote(&p, note)
			attachAutoscaler(&p, a, st)
			res.Predictions = append(res.Predictions, p)
		}
		return res, nil
	}

	set := manifest.LoadWith(req.Files, req.Stdin, req.Renderer)
	set.Relocate()
	if err := onlyTargets(set, req.Targets, ns, strings.Join(req.Files, ", ")); err != nil {
		return nil, err
	}
	res.Problems = append(res.Problems, set.Problems...)
	res.Warnings = append(res.Warnings, set.Warnings...)
	if req.autoscalers, err = autoscalersOfSet(set, ns); err != nil {
		return nil, err
	}
	autoscaled := targetedAutoscalers(set, req.autoscalers, ns)
	images, err := imagesByWorkload(set, req.WhatIf.Images, ns)
	if err != nil {
		return nil, err
	}
	if req.FetchNamespaceLabels != nil {
		labels, err := req.FetchNamespaceLabels(ctx, namespacesOfSet(set, ns))
		if err != nil {
			return nil, err
		}
		merged := map[string]map[string]string{}
		for k, v := range req.NamespaceLabels {
			merged[k] = v
		}
		for k, v := range labels {
			merged[k] = v
		}
		req.NamespaceLabels = merged
	}
	policies := namespacePolicies(req, set)
	for _, obj := range set.Objects {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := Prediction{File: obj.File, Document: obj.Document, Pos: obj.Start, Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name}
		if p.Namespace == "" {
			p.Namespace = ns
		}
		var nsNote string
		if obj.Kind == "Deployment" || obj.Kind == "StatefulSet" || obj.Kind == "DaemonSet" || scaleDownKind(obj.APIVersion, obj.Kind) {
			resolved, note, err := resolveNamespace(state, obj.Kind, p.Namespace, obj.Name, obj.Namespace != "" || req.NamespaceExplicit)
			if err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", obj.File, obj.Document, err)
			}
			p.Namespace, nsNote = resolved, note
		}
		// A namespace whose Pod Security enforce level refuses the pod template: every pod
		// creation fails, so the new pods never become Ready.
		objReq := req
		if len(req.WhatIf.Images) > 0 {
			objReq.WhatIf.Images = images[obj]
		}
		var refused *Refusal
		if obj.APIVersion == "apps/v1" && (obj.Kind == "Deployment" || obj.Kind == "StatefulSet" || obj.Kind == "DaemonSet") {
			r, err := podSecurityRefusal(policies, p.Namespace, obj.Kind, obj.JSON)
			if err == nil && r != nil {
				refused, objReq.FailNew, objReq.RefuseNew = r, true, true
			}
		}
		if obj.APIVersion == "apps/v1" && (obj.Kind == "StatefulSet" || obj.Kind == "DaemonSet") {
			pred, err := predictSet(ctx, objReq, checker, state, oldSet, obj, p, ns)
			if err != nil {
				return nil, err
			}
			if refused != nil && pred.Plan != nil {
				refusedStall(&pred, refused, req.FailNew)
			}
			addNote(&pred, nsNote)
			res.Predictions = append(res.Predictions, pred)
			continue
		}
		if obj.APIVersion == "batch/v1" && (obj.Kind == "CronJob" || obj.Kind == "Job") {
			predictBatch := predictCronJob
			if obj.Kind == "Job" {
				predictBatch = predictJob
			}
			pred, err := predictBatch(ctx, req, checker, obj, p, ns)
			if err != nil {
				return nil, err
			}
			res.Predictions = append(res.Predictions, pred)
			continue
		}
		if scaleDownKind(obj.APIVersion, obj.Kind) {
			pred, skip, err := predictScaleDown(ctx, req, checker, state, obj, p, p.Namespace)
			if err != nil {
				return nil, err
			}
			if skip != nil {
				res.Skipped = append(res.Skipped, *skip)
			} else {
				addNote(&pred, nsNote)
				res.Predictions = append(res.Predictions, pred)
			}
			continue
		}
		if obj.Kind == "Namespace" && obj.APIVersion == "v1" {
			continue // read for its Pod Security labels (namespacePolicies)
		}
		if isAutoscaler(obj) && autoscaled[obj] {
			continue // read for the replica count of the workload it targets (autoscalerFor)
		}
		if obj.Kind != "Deployment" || obj.APIVersion != "apps/v1" {
			res.Skipped = append(res.Skipped, SkippedObject{File: obj.File, Document: obj.Document, Pos: obj.Start, Ref: obj.Ref(),
				Reason: "predict models apps/v1 Deployments, StatefulSets, DaemonSets and ReplicaSets, batch/v1 Jobs and CronJobs, and v1 ReplicationControllers"})
			continue
		}
		base, err := resolveBaseline(ctx, objReq, checker, state, oldSet, obj, p.Namespace, ns)
		if err != nil {
			return nil, err
		}
		cur, _ := base.cur.(*apps.Deployment)
		objState, stored, baseline := base.state, base.stored, base.text
		var old *apps.Deployment
		if base.old != nil {
			if err := json.Unmarshal(base.old, &old); err != nil {
				return nil, fmt.Errorf("%s: document %d: old %s: %w", base.oldObj.File, base.oldObj.Document, base.oldObj.Ref(), err)
			}
		}
		checked, ok := checkAPI(ctx, checker, obj, &p, p.Namespace, stored)
		d, isDeployment := checked.(*apps.Deployment)
		if !ok || !isDeployment {
			res.Predictions = append(res.Predictions, p)
			continue
		}
		d.Namespace = p.Namespace
		a, _ := autoscalerFor(autoscalersOfState(objState), req.autoscalers, "Deployment", p.Namespace, d.Name)
		if a != nil {
			var stored, written *int32
			if cur != nil {
				stored = cur.Spec.Replicas
				a.ScaleSource = objState.Source
			}
			if writesReplicas(obj.JSON) {
				written = d.Spec.Replicas
			}
			n := a.planReplicas(stored, written, req.WhatIf.Replicas)
			d.Spec.Replicas = &n
			// The old version, fully rolled out, ran at the autoscaler's count too, unless it
			// wrote its own.
			if old != nil && !writesReplicas(base.oldObj.JSON) {
				old.Spec.Replicas = &n
			}
		}
		var pred Prediction
		if cur != nil {
			pred, err = predictFromState(objReq, objState, cur, d)
		} else {
			pred, err = predictFromOld(objReq, old, d, baseline)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %s: %w", obj.File, obj.Document, obj.Ref(), err)
		}
		if refused != nil {
			refusedStall(&pred, refused, req.FailNew)
		}
		addMultiAttachNotes(&pred, set.Objects, d, p.Namespace)
		pred.File, pred.Document, pred.Pos, pred.Kind = obj.File, obj.Document, obj.Start, obj.Kind
		addNote(&pred, nsNote)
		attachAutoscaler(&pred, a, objState)
		res.Predictions = append(res.Predictions, pred)
	}
	return res, nil
}

// addNote appends a note on how the baseline was found to p's baseline line.
func addNote(p *Prediction, note string) {
	if note != "" {
		p.Baseline += "; " + note
	}
}

// loadState merges req.State and req.StateFiles.
func loadState(req Request, res *Result) (*kernel.State, error) {
	state := req.State
	if len(req.StateFiles) == 0 {
		return state, nil
	}
	set := manifest.Load(req.StateFiles, req.Stdin)
	res.Problems = append(res.Problems, set.Problems...)
	dump, err := kernel.ParseState(set, fmt.Sprint(req.StateFiles))
	if err != nil {
		return nil, err
	}
	if len(req.StateFiles) == 1 {
		dump.Source = req.StateFiles[0]
	}
	if state == nil {
		return dump, nil
	}
	merged := *state
	merged.Deployments = append(append([]*apps.Deployment(nil), state.Deployments...), dump.Deployments...)
	merged.ReplicaSets = append(append([]*apps.ReplicaSet(nil), state.ReplicaSets...), dump.ReplicaSets...)
	merged.StatefulSets = append(append([]*apps.StatefulSet(nil), state.StatefulSets...), dump.StatefulSets...)
	merged.DaemonSets = append(append([]*apps.DaemonSet(nil), state.DaemonSets...), dump.DaemonSets...)
	merged.Pods = append(append([]*v1.Pod(nil), state.Pods...), dump.Pods...)
	merged.Nodes = append(append([]*v1.Node(nil), state.Nodes...), dump.Nodes...)
	merged.ControllerRevisions = append(append([]*apps.ControllerRevision(nil), state.ControllerRevisions...), dump.ControllerRevisions...)
	merged.Autoscalers = append(append([]*autoscalingv2.HorizontalPodAutoscaler(nil), state.Autoscalers...), dump.Autoscalers...)
	return &merged, nil
}

// findOld finds the old version of obj: the Deployment of the same namespace and name in the
// --from manifests, or in obj's file at the base ref. A nil object means there was none (a new
// Deployment); the string says where it was looked for.
func findOld(req Request, oldSet *manifest.Set, obj *manifest.Object, namespace, defaultNS string) (*manifest.Object, string, error) {
	set, where := oldSet, strings.Join(req.From, ", ")
	if req.BaseRef != "" && obj.Rendered != nil {
		if req.RenderAtRef == nil {
			return nil, "", errors.New("--base-ref given but no way to render a chart or kustomization at a git ref")
		}
		var err error
		if set, err = req.RenderAtRef(obj.Rendered.Dir, obj.Rendered.Kind); err != nil {
			return nil, "", fmt.Errorf("%s at %s: %w", obj.Rendered.Dir, req.BaseRef, err)
		}
		where = obj.Rendered.Dir + " rendered at " + req.BaseRef
	} else if req.BaseRef != "" {
		if req.ReadAtRef == nil {
			return nil, "", errors.New("--base-ref given but no way to read files at a git ref")
		}
		data, err := req.ReadAtRef(obj.File)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Sprintf("none: %s does not exist at %s", obj.File, req.BaseRef), nil
			}
			return nil, "", fmt.Errorf("%s at %s: %w", obj.File, req.BaseRef, err)
		}
		set = manifest.Parse(obj.File+"@"+req.BaseRef, data)
		where = obj.File + " at " + req.BaseRef
	}
	for _, o := range set.Objects {
		ons := o.Namespace
		if ons == "" {
			ons = defaultNS
		}
		if o.Kind == obj.Kind && o.Name == obj.Name && ons == namespace {
			return o, where, nil
		}
	}
	return nil, fmt.Sprintf("none: no %s %s/%s in %s", obj.Kind, namespace, obj.Name, where), nil
}

func predictFromOld(req Request, old, d *apps.Deployment, baseline string) (Prediction, error) {
	if old != nil {
		old.Namespace = d.Namespace
		// The stored object keeps its revision annotation across applies.
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		if rev, ok := old.Annotations[deploymentutil.RevisionAnnotation]; ok {
			d.Annotations[deploymentutil.RevisionAnnotation] = rev
		} else {
			old = old.DeepCopy()
			if old.Annotations == nil {
				old.Annotations = map[string]string{}
			}
			old.Annotations[deploymentutil.RevisionAnnotation] = "1"
			d.Annotations[deploymentutil.RevisionAnnotation] = "1"
		}
	}
	var notes []string
	if !req.WhatIf.Empty() {
		var rsList []*apps.ReplicaSet
		var err error
		d, notes, err = deployment.ApplyWhatIf(req.WhatIf, d, rsList)
		if err != nil {
			return Prediction{}, err
		}
	}
	in := deployment.Input{Deployment: d, Old: old, Start: req.Start}
	return simulate(req, in, d, baseline, notes, nil, nil)
}

// predictFromState predicts from a state: cur is the Deployment as stored, next the new
// manifest (nil for a what-if change of cur).
func predictFromState(req Request, state *kernel.State, cur, next *apps.Deployment) (Prediction, error) {
	states, err := deployment.ReplicaSetsOf(state, cur)
	if err != nil {
		return Prediction{}, err
	}
	d := cur.DeepCopy()
	if next != nil {
		// The new manifest over the stored object, as an update would store it.
		d = deployment.Updated(cur, next)
	}
	var notes []string
	if !req.WhatIf.Empty() {
		rsList := make([]*apps.ReplicaSet, 0, len(states))
		for _, st := range states {
			rsList = append(rsList, st.ReplicaSet)
		}
		d, notes, err = deployment.ApplyWhatIf(req.WhatIf, d, rsList)
		if err != nil {
			return Prediction{}, err
		}
	}
	if !apiequality.Semantic.DeepEqual(cur.Spec, d.Spec) {
		d.Generation = cur.Generation + 1
	}
	start := req.Start
	if start.IsZero() && !state.Now.IsZero() {
		start = state.Now
	}
	baseline := fmt.Sprintf("%s: %d ReplicaSets", state.Source, len(states))
	if len(states) == 1 {
		baseline = fmt.Sprintf("%s: 1 ReplicaSet", state.Source)
	}
	if next == nil && req.WhatIf.Empty() {
		baseline += "; no change: what happens next"
	}
	in := deployment.Input{Deployment: d, ReplicaSets: states, Start: start}
	return simulate(req, in, d, baseline, notes, state, cur)
}

// simulate fills in the timing and runs deployment.Simulate. With a state, the pods of cur's current
// ReplicaSet show how long this workload really takes to become Ready.
func simulate(req Request, in deployment.Input, d *apps.Deployment, baseline string, notes []string, state *kernel.State, cur *apps.Deployment) (Prediction, error) {
	ti := timingFor(req, &d.Spec.Template)
	if req.ReadyAfter == 0 && state != nil && cur != nil {
		if rs := deployment.CurrentReplicaSet(cur, in.ReplicaSets); rs != nil {
			if took, n, ok := deployment.ReadyAfterFromPods(state, rs); ok && took > 0 {
				ti.ReadyAfter, ti.ReadySource = took.Round(time.Second), fmt.Sprintf("median creation-to-Ready of %d %s of %s", n, plural(n, "pod", "pods"), rs.Name)
			}
		}
	}
	in.Timing = kernel.Timing{ReadyAfter: ti.ReadyAfter, TerminateAfter: ti.TerminateAfter, FailNew: req.FailNew, RefuseNew: req.RefuseNew}
	if err := checkRuns(req, int64(ptrOr(d.Spec.Replicas, 1))); err != nil {
		return Prediction{}, err // the caller names the file and the Deployment
	}
	plan, dist, err := spreadRuns(req, func(s *kernel.Spread) (*kernel.Plan, error) {
		in := in
		in.Timing.Spread = s
		return deployment.Simulate(in)
	})
	if err != nil {
		return Prediction{}, err
	}
	plan.Header.NameNote = HashNote
	plan.Notes = append(plan.Notes, notes...)
	sort.Strings(plan.Notes)
	return Prediction{Kind: "Deployment", Namespace: d.Namespace, Name: d.Name, Baseline: baseline, Plan: plan, Timing: ti, Distribution: dist}, nil
}

// spreadRuns runs sim as the request asks: without a ready spread once, deterministically;
// with --ready-spread alone once, with the spread drawn from the seed; with --runs as well,
// the deterministic plan and the Distribution of the spread runs.
func spreadRuns(req Request, sim func(*kernel.Spread) (*kernel.Plan, error)) (*kernel.Plan, *kernel.Distribution, error) {
	if req.ReadySpread <= 0 {
		p, err := sim(nil)
		return p, nil, err
	}
	if req.Runs == 0 {
		p, err := sim(kernel.NewSpread(req.ReadySpread, req.Seed))
		return p, nil, err
	}
	det, err := sim(nil)
	if err != nil {
		return nil, nil, err
	}
	if req.Progress != nil {
		var done atomic.Int64
		inner := sim
		sim = func(s *kernel.Spread) (*kernel.Plan, error) {
			p, err := inner(s)
			req.Progress(min(int(done.Add(1)), req.Runs), req.Runs)
			return p, err
		}
	}
	dist, err := kernel.Distribute(req.Runs, req.Seed, req.ReadySpread, det, sim)
	if err != nil {
		return nil, nil, err
	}
	return det, &dist, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// source names where req.Cluster reads, for messages; "" outside live mode.
func (req Request) source() string {
	if req.Cluster == nil {
		return ""
	}
	return req.Cluster.Source()
}
