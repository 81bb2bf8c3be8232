// Package lint checks workload manifests and returns its findings as data.
// It never prints and never exits; the plugin renders the Result.
package lint

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"maps"

	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unique"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/internal/each"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/podsecurity"
	"github.com/kubectl-workload/kubectl-workload/lint/userpolicy"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// Rule ids for problems with the input itself.
const (
	RuleUnparsable   = "input/unparsable"
	RuleDuplicateKey = "input/duplicate-key"
	// RuleNamespaceMismatch reports an object whose metadata.namespace is
	// not the one given with -n, which kubectl refuses to send.
	RuleNamespaceMismatch = "input/namespace-mismatch"
	// RuleLimitExceeded: a file or document over one of manifest's limits
	// (MaxFileSize, MaxDocuments, MaxDepth, MaxAliasExpansion); it is not
	// linted, and every other file is.
	RuleLimitExceeded = "input/limit-exceeded"
	// RuleGenerateName: an object named only by metadata.generateName,
	// which kubectl apply refuses ("cannot use generate name with apply",
	// ApplyOptions.applyOneObject) and kubectl create accepts.
	RuleGenerateName = "input/generate-name"
	// RuleRemote: a kustomization names a URL or git repository in one of
	// its fields; rendering fetches nothing, so the overlay is not built.
	RuleRemote = "input/remote"
)

// Options are lint's inputs.
type Options struct {
	// Paths are files, directories, or "-" for Stdin.
	Paths []string
	Stdin io.Reader
	// Renderer, when set, renders the Helm charts and kustomizations among
	// Paths (see manifest.ExpandWith); findings on their objects stand at
	// the template, resource or patch line, with the rendered place in
	// Finding.Rendered.
	Renderer manifest.Renderer
	// Namespace is the namespace for objects that name none, as kubectl
	// would take it from -n; "default" when empty.
	Namespace string
	// Settings is the configuration file, or nil.
	Settings *config.File
	// NoIgnoreAnnotations makes lint disregard the objects' ignore
	// annotations (--no-ignore-annotations), for platform teams.
	NoIgnoreAnnotations bool
	// CRDPaths are files and directories of CustomResourceDefinitions
	// (--crds), against which the input's custom resources are checked
	// besides the input's own CRDs; a chart directory stands for its
	// crds/ folder.
	CRDPaths []string
	// PolicyPaths are files and directories of ValidatingAdmissionPolicies
	// and their bindings (--policies-from), evaluated on every object
	// besides the input's own.
	PolicyPaths []string
	// Baseline holds the objects that already exist (live cluster mode,
	// --base-ref); nil for offline lint. See live.go.
	Baseline *Baseline
	// Progress, when set, is told after each input is read and its objects
	// checked: the inputs done, of how many, and the objects so far. It is
	// called from several goroutines at once.
	Progress func(done, total, objects int)
}

// Result is everything a lint run found.
type Result struct {
	// Findings are sorted by file, document, line, column and rule.
	Findings []Finding `json:"findings"`
	// Excluded counts the files the configuration's exclude globs left out.
	Excluded int `json:"excluded"`
	// ExcludedNamed are the files named on the command line (not found in a
	// directory) that an exclude glob left out, with the glob, so that the
	// run can say why a file the user named was not read.
	ExcludedNamed []Exclusion `json:"-"`
	// Files, Documents and Objects count what was read.
	Files     int `json:"files"`
	Documents int `json:"documents"`
	Objects   int `json:"objects"`
	// Skipped are the documents that are not Kubernetes objects.
	Skipped []manifest.Skipped `json:"-"`
	// Linted lists every object checked, in input order, with findings or
	// without: what reports that enumerate objects (JUnit) need.
	Linted []LintedObject `json:"-"`
	// Errors are failures of the tool or its inputs as a whole (a path that
	// does not exist); they make the run exit 2. Findings are still valid.
	Errors []error `json:"-"`
	// Warnings are what rendering the charts and kustomizations warned of,
	// in input order (see manifest.Set.Warnings).
	Warnings []string `json:"-"`
	// Timings say where the run's wall time went, for -v and benchmarks.
	Timings Timings `json:"-"`
	// Notes name, in the order met, each kind a run with a baseline (Lint)
	// went on without because the user may not read it.
	Notes []string `json:"-"`
	// Scope names what a --live run read (Baseline.Scope); empty otherwise.
	Scope string `json:"-"`
}

// Exclusion is a file an exclude glob of the configuration left out.
type Exclusion struct {
	File, Pattern, Config string
}

// Timings split a run's wall time by stage.
type Timings struct {
	// Load is reading and parsing files plus the per-object checks (input
	// problems and the API tier), done together file by file.
	Load time.Duration
	// Inventory is building the cross-resource index and preparing queries.
	Inventory time.Duration
	// Rules is evaluating the cross-resource rules on every object.
	Rules time.Duration
}

// LintedObject is one object a run checked.
type LintedObject struct {
	File string
	// Document is the 0-based index of the object's document in File.
	Document int
	Object   ObjectRef
}

// Count returns how many unsuppressed findings have exactly the given
// severity.
func (r *Result) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s && f.Suppressed == nil {
			n++
		}
	}
	return n
}

// CountSuppressed returns how many findings are suppressed.
func (r *Result) CountSuppressed() int {
	n := 0
	for _, f := range r.Findings {
		if f.Suppressed != nil {
			n++
		}
	}
	return n
}

// Fails reports whether any unsuppressed finding is at or above the
// threshold.
func (r *Result) Fails(threshold Severity) bool {
	for _, f := range r.Findings {
		if f.Severity >= threshold && f.Suppressed == nil {
			return true
		}
	}
	return false
}

// Config is what a Linter is built from, once.
type Config struct {
	// Policies are user Rego policy files or directories (--policy).
	Policies []string
	// PolicyNamespaces are the packages whose deny/violation/warn rules are
	// read (--namespace); ["main"] when empty.
	PolicyNamespaces []string
	// PolicyTimeout bounds one evaluation of one user policy rule on one
	// object (--policy-timeout); userpolicy.DefaultPolicyTimeout when 0.
	PolicyTimeout time.Duration
}

// Linter holds what is built once and reused across runs: the API tier and
// the compiled user policies.
type Linter struct {
	api *apicheck.Checker
	// rules holds the user policies (--policy), compiled in Rego; without
	// any, it holds nothing and nothing of OPA is compiled.
	rules *userpolicy.Engine
	// policies is set when there are user policy rules to run.
	policies bool
}

// New builds a Linter. It fails when a user policy does not compile.
func New(cfg Config) (*Linter, error) {
	engine, err := userpolicy.New(userpolicy.Options{Policies: cfg.Policies, Namespaces: cfg.PolicyNamespaces,
		PolicyTimeout: cfg.PolicyTimeout})
	if err != nil {
		return nil, err
	}
	return &Linter{api: apicheck.New(), rules: engine, policies: engine.HasPolicies()}, nil
}

// PoliciesNotRun says which packages of the user policies hold rules that
// do not run, because --policy-namespace does not name them.
func (l *Linter) PoliciesNotRun() []string { return l.rules.PoliciesNotRun() }

// BuiltinRules returns the built-in rules' metadata, sorted by id. The
// error is always nil: the catalogue is Go data.
func BuiltinRules() ([]rules.Rule, error) { return rules.Builtin(), nil }

// Rules returns the built-in rules' metadata, sorted by id (BuiltinRules).
func (l *Linter) Rules() ([]rules.Rule, error) { return BuiltinRules() }

// checked is one object after the per-object checks: its findings so far and
// what the rules need. After the first pass (firstPass), obj and input are
// dropped, and what the second pass needs is kept: a large run keeps one per
// object, which every collection scans, so what few objects have is in
// more (240 bytes a record, not 352).
type checked struct {
	obj      *manifest.Object
	file     string
	document int
	ref      ObjectRef
	input    *rules.Object
	findings []Finding
	// entry is the object in the Go inventory, and goCross is set when the
	// cross-resource Go rules evaluate it (it is not rejected).
	entry   *rules.Entry
	goCross bool
	shallow shallowIndex
	// pss are the Pod Security evaluations of an object with pods (one
	// per pod template of a custom workload, customworkload.go).
	pss []*pssState
	// refs are the objects its pod spec needs (references.go).
	refs []reference
	// more is what only some objects have; nil when none of it is set.
	more *checkedMore
}

// checkedMore is the part of a checked object that most objects leave
// empty.
type checkedMore struct {
	errs []error
	// injected are the field paths of the containers a sidecar injector
	// replaces at admission (rules.InjectedContainerPaths): findings about
	// them are left out (dropInjected).
	injected     []string
	ignored      map[string]bool
	ignoreReason string
	// nsLabels are a Namespace's Pod Security labels (see podsecurity.go).
	nsLabels map[string]string
	// custom is the parsed object of a custom resource or a CRD, kept
	// until every CRD of the run is known (custom.go).
	custom *manifest.Object
	// hookJob is set on a hook Job, which may create Secrets;
	// producesSecret is the Secret a controller makes for this custom
	// resource (references.go).
	hookJob        bool
	producesSecret string
}

// noMore is what get returns for an object without a checkedMore; never
// written.
var noMore checkedMore

// get returns c's checkedMore for reading: the empty one when c has none.
func (c *checked) get() *checkedMore {
	if c.more == nil {
		return &noMore
	}
	return c.more
}

// set returns c's checkedMore for writing, made on first use.
func (c *checked) set() *checkedMore {
	if c.more == nil {
		c.more = &checkedMore{}
	}
	return c.more
}

// addErr records an error about c's object.
func (c *checked) addErr(err error) {
	m := c.set()
	m.errs = append(m.errs, err)
}

// Run loads opts.Paths and lints every object found, in two passes:
//
//  1. files are loaded and each object gets the per-object checks (input
//     problems, the API tier, the built-in rules that need no other object
//     and user policies) by one worker per CPU; then only what the second
//     pass needs of the object is kept (see passes.go), so memory follows
//     the inventory, not the YAML;
//  2. with every object known, the cross-resource rules run on each object
//     against an inventory of its namespace, again one worker per CPU.
//
// Results are merged in input order and sorted, so output does not depend on
// scheduling.
func (l *Linter) Run(ctx context.Context, opts Options) *Result {
	expanded, problems := manifest.ExpandWith(opts.Paths, opts.Stdin, opts.Renderer)
	res := &Result{}
	addProblems(res, problems)
	inputs := expanded
	if opts.Settings.HasExcludes() {
		inputs = make([]manifest.Input, 0, len(expanded))
		named := map[string]bool{}
		for _, p := range opts.Paths {
			named[filepath.Clean(p)] = true
		}
		for _, in := range expanded {
			if pattern, ok := opts.Settings.ExcludedBy(in.Name); ok {
				res.Excluded++
				if named[filepath.Clean(in.Name)] {
					res.ExcludedNamed = append(res.ExcludedNamed, Exclusion{File: in.Name, Pattern: pattern, Config: opts.Settings.Path})
				}
				continue
			}
			inputs = append(inputs, in)
		}
	}

	start := time.Now()
	// The rule ids are needed only for ignore annotations.
	known := sync.OnceValue(l.knownRules)
	off := func(id string) bool { return l.off(opts, id) } // the rules this run leaves out
	goRules := rules.NewRunner(off)
	local := &localRules{goRules: goRules, policies: l.policies}
	keep := rules.NewKeep() // what each object keeps for the second pass
	sets := make([]*manifest.Set, len(inputs))
	perFile := make([][]*checked, len(inputs))
	// Two stages: workers load each file and check its objects with the API
	// tier, and hand them to as many rule workers, which run the first pass.
	// What is queued is bounded by the queue.
	queue := make(chan *checked, firstPassQueue)
	var ruleWorkers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		ruleWorkers.Go(func() {
			for c := range queue {
				l.firstPass(ctx, c, local, opts, known)
			}
		})
	}
	var inputsDone, objectsDone atomic.Int64
	// plain stands for the sets of the inputs that hold only objects,
	// whose file and document counts are summed here.
	plain := &manifest.Set{}
	var plainFiles, plainDocuments atomic.Int64
	stopped := parallel(ctx, len(inputs), func(i int) {
		release := l.rules.Hold() // see userpolicy.Engine.Hold; released before each wait on the queue
		set := inputs[i].Load()
		release()
		cs := make([]*checked, 0, len(set.Objects))
		for _, obj := range set.Objects {
			release := l.rules.Hold()
			c := l.checkObject(ctx, obj, opts, keep)
			release()
			queue <- c
			cs = append(cs, c)
		}
		set.Objects = nil // done with: what is left of each object is in cs
		if len(set.Skipped) == 0 && len(set.Problems) == 0 && len(set.Origins) == 0 && len(set.Warnings) == 0 {
			// Most files: only their counts are kept, not a Set each
			// until the first pass ends.
			plainFiles.Add(int64(set.Files))
			plainDocuments.Add(int64(set.Documents))
			set = plain
		}
		sets[i], perFile[i] = set, cs // each worker owns distinct indices
		if opts.Progress != nil {
			opts.Progress(int(inputsDone.Add(1)), len(inputs), int(objectsDone.Add(int64(len(cs)))))
		}
	})
	close(queue)
	ruleWorkers.Wait()
	if stopped >= 0 {
		res.Errors = append(res.Errors, fmt.Errorf("lint stopped before %s: %w", inputs[stopped].Name, ctx.Err()))
	}
	objects := 0
	for _, cs := range perFile {
		objects += len(cs)
	}
	all := make([]*checked, 0, objects)
	origins := map[string]manifest.Origin{}
	res.Files, res.Documents = int(plainFiles.Load()), int(plainDocuments.Load())
	for i, set := range sets {
		if set == nil {
			continue // not reached before cancellation
		}
		maps.Copy(origins, set.Origins)
		res.Files += set.Files
		res.Documents += set.Documents
		res.Objects += len(perFile[i])
		res.Skipped = append(res.Skipped, set.Skipped...)
		res.Warnings = append(res.Warnings, set.Warnings...)
		addProblems(res, set.Problems)
		all = append(all, perFile[i]...)
	}
	baseline := l.checkBaseline(ctx, opts, res, keep)
	parallel(ctx, len(baseline), func(i int) { l.firstPass(ctx, baseline[i], local, opts, known) })
	all = append(all, baseline...)
	crds := l.checkCustomResources(ctx, all, opts, res, goRules)
	l.checkPolicies(ctx, inputs, perFile, all, baseline, crds, opts, res)
	for _, c := range all {
		if c.more != nil {
			c.more.custom = nil
		}
	}

	res.Timings.Load = time.Since(start)
	extra := opts.Baseline.contextInputs(all)
	if err := l.secondPass(ctx, all, extra, goRules, &res.Timings); err != nil {
		res.Errors = append(res.Errors, err)
	}
	if err := joinErrs(all); err != nil {
		res.Errors = append(res.Errors, err)
	}
	applyPodSecurity(all, opts.Baseline)
	applyReferences(all)
	// Each object's findings are governed on its own (applyGovernance
	// touches only c), so on every CPU: on one, it was a serial step at the
	// end of a large run.
	each.Index(len(all), func(i int) { l.applyGovernance(all[i], opts) })
	// The findings and the list of objects are sized once: growing them
	// by doubling is a copy of every finding on one CPU.
	found := len(res.Findings)
	for _, c := range all {
		found += len(c.findings)
	}
	res.Findings = slices.Grow(res.Findings, found-len(res.Findings))
	res.Linted = slices.Grow(res.Linted, len(all))
	for _, c := range all {
		res.Findings = append(res.Findings, c.findings...)
		res.Linted = append(res.Linted, LintedObject{File: c.file, Document: c.document, Object: c.ref})
		// Each finding points at c.ref, which keeps c alive until the
		// report is written: what else c holds (its findings, now copied,
		// Pod Security's states, references, positions) goes now, not
		// after the sort and the report.
		*c = checked{file: c.file, document: c.document, ref: c.ref}
	}
	// Findings with no object (unparsable documents) obey the settings too.
	kept := res.Findings[:0]
	for _, f := range res.Findings {
		if f.Object == nil {
			if opts.Settings.Disabled(f.Rule) {
				continue
			}
			applySeverity(&f, opts.Settings)
		}
		kept = append(kept, f)
	}
	res.Findings = kept
	toSources(res, origins)
	SortFindings(res.Findings)
	manifest.SortSkipped(res.Skipped)
	return res
}

// firstPassQueue bounds the objects loaded and checked by the API tier that
// wait for the first pass's rules.
const firstPassQueue = 1024

// parallel calls fn(0..n-1) on one worker per CPU: a producer, N workers,
// no shared state beyond what fn's index owns. It returns the first index
// not handed out because ctx was done, or -1.
func parallel(ctx context.Context, n int, fn func(i int)) int {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := range jobs {
				fn(i)
			}
		})
	}
	stopped := -1
feed:
	for i := range n {
		if ctx.Err() != nil { // checked first: select picks at random among ready cases
			stopped = i
			break
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			stopped = i
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	return stopped
}

// addProblems turns loading problems into findings (a document that does not
// parse) or errors (a path that cannot be read).
func addProblems(res *Result, problems []manifest.Problem) {
	for _, p := range problems {
		switch p.Kind {
		case manifest.Unparsable:
			res.Findings = append(res.Findings, Finding{Rule: RuleUnparsable, Severity: SeverityError, Message: p.Message,
				File: p.File, Document: p.Document, Line: p.Pos.Line, Column: p.Pos.Column})
		case manifest.LimitExceeded:
			res.Findings = append(res.Findings, Finding{Rule: RuleLimitExceeded, Severity: SeverityError, Message: p.Message,
				File: p.File, Document: p.Document, Line: p.Pos.Line, Column: p.Pos.Column})
		case manifest.Remote:
			res.Findings = append(res.Findings, Finding{Rule: RuleRemote, Severity: SeverityError, Message: p.Message,
				File: p.File, Document: p.Document, Line: p.Pos.Line, Column: p.Pos.Column})
		default:
			res.Errors = append(res.Errors, errors.New(p.Message))
		}
	}
}

// checkObject runs the per-object checks on one object: duplicate keys and
// the API tier. It also prepares the object's input to the rules.
// What the second pass keeps of it is allocated in keep.
func (l *Linter) checkObject(ctx context.Context, obj *manifest.Object, opts Options, keep *rules.Keep) *checked {
	ns := obj.Namespace
	if ns == "" {
		ns = opts.Namespace
		if ns == "" {
			ns = "default"
		}
	}
	// A run keeps every object's reference, and its namespace in the
	// inventory: the strings most objects share are kept once.
	ns = unique.Make(ns).Value()
	ref := ObjectRef{APIVersion: unique.Make(obj.APIVersion).Value(), Kind: unique.Make(obj.Kind).Value(),
		Namespace: ns, Name: obj.Name}
	if ref.Name == "" && obj.GenerateName != "" {
		ref.Name = obj.GenerateName + "*"
	}
	c := &checked{obj: obj, file: obj.File, document: obj.Document, ref: ref, input: &rules.Object{JSON: obj.JSON, Namespace: ns, Keep: keep}}
	keepCustom(c, obj)
	if obj.Name == "" && obj.GenerateName != "" {
		c.findings = append(c.findings, c.at(RuleGenerateName, SeverityInfo, "metadata.generateName",
			fmt.Sprintf("%s has metadata.generateName %q and no name: kubectl apply refuses it (\"cannot use generate name with apply\"); create it with kubectl create, which lets the API server pick the name",
				obj.Kind, obj.GenerateName)))
	}
	if f, ok := c.objectSize(); ok {
		c.findings = append(c.findings, f)
	}
	for _, d := range obj.Duplicates {
		// At the key's own position, with no lookup of the field: a lookup
		// scans the mapping, and a mapping of one key repeated 200,000
		// times would take 200,000 scans of 200,000 keys.
		c.findings = append(c.findings, Finding{Rule: RuleDuplicateKey, Severity: SeverityError, File: c.file, Document: c.document,
			Line: d.Pos.Line, Column: d.Pos.Column, Field: d.Field, Object: &c.ref,
			Message: fmt.Sprintf("%s: duplicate key: it is already set at line %d, and kubectl silently keeps only this last value", d.Field, d.First.Line)})
	}
	if scoped, _ := apicheck.NamespaceScoped(obj.APIVersion, obj.Kind); scoped && opts.Namespace != "" && obj.Namespace != "" &&
		obj.Namespace != opts.Namespace && opts.Baseline == nil {
		// kubectl's own words: resource.RequireNamespace
		// (k8s.io/cli-runtime/pkg/resource), which kubectl apply and
		// create run on every object read from a file.
		c.findings = append(c.findings, c.at(RuleNamespaceMismatch, SeverityError, "metadata.namespace", fmt.Sprintf(
			"the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.",
			obj.Namespace, opts.Namespace, obj.Namespace)))
	}
	res := l.checkAPI(ctx, obj, ref, opts)
	var annotations map[string]string
	if m, err := meta.Accessor(res.Versioned); res.Versioned != nil && err == nil {
		annotations = m.GetAnnotations()
	}
	c.readSecretSource(obj, annotations)
	for _, is := range res.Issues {
		sev := SeverityError
		if is.Warning {
			sev = SeverityWarning
		}
		fieldPath := is.Field
		if is.Loose {
			if real, ok := obj.ResolveLoose(is.Field, is.ValueType); ok {
				fieldPath = real
			}
		}
		c.findings = append(c.findings, c.at(is.Rule, sev, fieldPath, is.Message))
		if !is.Warning {
			c.input.Rejected = true
		}
	}
	if res.Versioned != nil && !c.input.Rejected {
		// pss/restricted's per-check findings are made only when it is on.
		if err := c.checkPodSecurity(res.Versioned, opts.Settings.Enabled(podsecurity.RuleRestricted) && !opts.Settings.Disabled(podsecurity.RuleRestricted)); err != nil {
			c.addErr(fmt.Errorf("%s: document %d: %s: %w", c.file, c.document, c.ref, err))
		}
		// A controller's objects (a Deployment's ReplicaSets) are left to
		// their owner.
		if m, err := meta.Accessor(res.Versioned); err == nil && metav1.GetControllerOfNoCopy(m) == nil {
			c.readReferences(res.Versioned)
		}
		c.checkSchedule(res.Versioned)
	}
	if res.Versioned != nil && defaultedKinds[ref.Kind] {
		c.input.Defaulted = res.Versioned
	}
	if !c.input.Rejected {
		c.input.Versioned = res.Versioned
	}
	c.input.Written = res.Written
	return c
}

// defaultedKinds are the kinds whose inventory entry is read from the
// defaulted object (rules.NewEntry): the workloads. Other kinds the API
// tier validates (Services, ConfigMaps, ...) are read as written, which
// saves encoding and reading them twice.
var defaultedKinds = map[string]bool{"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true,
	"Job": true, "CronJob": true, "ReplicationController": true, "Pod": true, "PodTemplate": true}

// at places a finding about c's object at fieldPath, or at its nearest
// existing ancestor. After the first pass, only the fields two levels deep
// are known (shallowIndex), which is where cross-resource findings point.
func (c *checked) at(rule string, sev Severity, fieldPath, msg string) Finding {
	var pos manifest.Pos
	if c.obj != nil {
		pos, _ = c.obj.Position(fieldPath)
	} else {
		pos = c.shallow.lookup(fieldPath)
	}
	return Finding{Rule: rule, Severity: sev, Message: msg, File: c.file, Document: c.document,
		Line: pos.Line, Column: pos.Column, Field: fieldPath, Object: &c.ref}
}
