package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-workload/kubectl-workload/apicheck"
	"github.com/kubectl-workload/kubectl-workload/gitref"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/live"
	"github.com/kubectl-workload/kubectl-workload/manifest"
)

// liveFlags are lint's cluster and git flags.
type liveFlags struct {
	Live          bool
	AllNamespaces bool
	AgainstLive   bool
	BaseRef       string

	// resourceArgs are the TYPE/NAME arguments of --live.
	resourceArgs []string
}

func (f *liveFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.Live, "live", false,
		"lint the workloads in the cluster (the kubeconfig's context) instead of files; arguments are then TYPE/NAME or TYPE NAME..., as for kubectl get")
	cmd.Flags().BoolVarP(&f.AllNamespaces, "all-namespaces", "A", false, "with --live: every namespace, not only -n or the context's")
	cmd.Flags().BoolVar(&f.AgainstLive, "against-live", false,
		"check each file's objects as updates of the cluster's objects of the same name (immutable fields), and lint them with the cluster's objects around them")
	cmd.Flags().StringVar(&f.BaseRef, "base-ref", "",
		"check each file's objects as updates of the same objects in that file at this git revision (immutable fields, offline)")
}

// validate checks the flags' combinations.
func (f *liveFlags) validate(paths []string) error {
	switch {
	case f.Live && f.AgainstLive:
		return errors.New("--live and --against-live contradict each other: --live lints the cluster, --against-live lints files against it")
	case f.Live && f.BaseRef != "":
		return errors.New("--base-ref compares files with a git revision; it does not apply to --live")
	case f.AgainstLive && f.BaseRef != "":
		return errors.New("--against-live and --base-ref each name what the files are compared with: give one")
	case f.AllNamespaces && !f.Live:
		return errors.New("-A/--all-namespaces applies to --live only")
	case f.Live && len(paths) > 0:
		return fmt.Errorf("--live reads the cluster, not files: drop -f %s", strings.Join(paths, " "))
	case (f.AgainstLive || f.BaseRef != "") && len(paths) == 0:
		return errors.New("no input: name the files to check")
	}
	return nil
}

// liveClient builds the cluster client from the process's one ConfigFlags
// and asks the server its version, writing one warning to errOut when its
// minor version is not the embedded v1.37. Errors are one line that names
// the context.
func liveClient(ctx context.Context, getter genericclioptions.RESTClientGetter, errOut io.Writer) (*live.Client, error) {
	c, err := live.New(getter)
	if err != nil {
		return nil, err
	}
	info, err := c.ServerVersion(ctx)
	if err != nil {
		return nil, err
	}
	if w := live.SkewWarning(info); w != "" {
		fmt.Fprintf(errOut, "warning: %s\n", w)
	}
	return c, nil
}

// prepareBaseline does every read of the cluster or the repository that a
// run needs, before anything is linted or printed, so that a failure
// (unreachable cluster, expired token, forbidden list, missing object,
// unknown ref) leaves no partial output. It returns the baseline and the
// namespace for objects that name none.
func (o *LintOptions) prepareBaseline(ctx context.Context, stdin []byte) (*lint.Baseline, string, error) {
	switch {
	case o.Live:
		return o.liveBaseline(ctx)
	case o.AgainstLive:
		return o.againstLiveBaseline(ctx, stdin)
	case o.BaseRef != "":
		b, err := o.baseRefBaseline(ctx, stdin)
		return b, o.namespace, err
	}
	return nil, o.namespace, nil
}

// liveBaseline reads the cluster for lint --live: the named objects, or
// every object of the kinds lint reads in the namespace (or all of them),
// plus those kinds around the named objects for the cross-resource rules.
// Objects a controller owns (a Deployment's ReplicaSets and Pods) join the
// cross-resource index but are not linted: their findings are their
// owner's.
func (o *LintOptions) liveBaseline(ctx context.Context) (*lint.Baseline, string, error) {
	c, err := liveClient(ctx, o.configFlags, o.ErrOut)
	if err != nil {
		return nil, "", err
	}
	ns := c.Namespace
	if o.AllNamespaces {
		ns = ""
	}
	var targets, around []*unstructured.Unstructured
	if len(o.resourceArgs) > 0 {
		named, err := c.Resolve(ctx, c.Namespace, o.AllNamespaces, o.resourceArgs)
		if err != nil {
			return nil, "", err
		}
		for _, u := range named {
			if _, ok := live.KindFor(u.GroupVersionKind().Group, u.GetKind()); !ok {
				return nil, "", fmt.Errorf("context %q: %s %s/%s: lint --live reads workloads, Services, PodDisruptionBudgets and HorizontalPodAutoscalers only",
					c.Context, u.GetKind(), u.GetNamespace(), u.GetName())
			}
		}
		targets = named
		objs, skips, err := c.ListContext(ctx, namespacesOf(named), live.AllKinds())
		if err != nil {
			return nil, "", err
		}
		o.reportSkips(skips)
		around = objs
	} else {
		all, skips, err := c.ListContext(ctx, []string{ns}, live.AllKinds())
		if err != nil {
			return nil, "", err
		}
		o.reportSkips(skips)
		for _, u := range all {
			if live.Controlled(u) {
				around = append(around, u)
			} else {
				targets = append(targets, u)
			}
		}
	}
	objects, err := live.Manifests(c.Context, targets)
	if err != nil {
		return nil, "", err
	}
	b := &lint.Baseline{Objects: objects}
	for _, u := range around {
		m, err := live.ContextObject(c.Context, u)
		if err != nil {
			return nil, "", err
		}
		b.Context = append(b.Context, m)
	}
	o.liveScope = fmt.Sprintf("context %q, %s", c.Context, strings.TrimPrefix(scopeName(ns), " "))
	return b, c.Namespace, nil
}

// reportSkips writes one line on standard error for each kind the run goes
// on without, because the user may not list it (live.ListContext).
func (o *LintOptions) reportSkips(skips []live.Skip) {
	for _, s := range skips {
		fmt.Fprintf(o.ErrOut, "note: %s\n", s.Message)
	}
}

// againstLiveBaseline reads the cluster for lint -f FILES --against-live:
// every object of the kinds lint reads in each namespace the files' objects
// are in (list requests only). An object of the files that exists is
// checked as an update of its live version; the others are context.
func (o *LintOptions) againstLiveBaseline(ctx context.Context, stdin []byte) (*lint.Baseline, string, error) {
	c, err := liveClient(ctx, o.configFlags, o.ErrOut)
	if err != nil {
		return nil, "", err
	}
	set := manifest.Load(o.paths, bytes.NewReader(stdin))
	seen := map[string]bool{}
	var namespaces []string
	for _, obj := range set.Objects {
		ns := obj.Namespace
		if ns == "" {
			ns = c.Namespace
		}
		if !seen[ns] {
			seen[ns] = true
			namespaces = append(namespaces, ns)
		}
	}
	sort.Strings(namespaces)
	type key struct{ group, kind, ns, name string }
	stored := map[key][]byte{}
	b := &lint.Baseline{}
	objs, skips, err := c.ListContext(ctx, namespaces, live.AllKinds())
	if err != nil {
		return nil, "", err
	}
	o.reportSkips(skips)
	for _, u := range objs {
		js, err := u.MarshalJSON()
		if err != nil {
			return nil, "", fmt.Errorf("context %q: %s %s/%s: %w", c.Context, u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
		stored[key{u.GroupVersionKind().Group, u.GetKind(), u.GetNamespace(), u.GetName()}] = js
		m, err := live.ContextObject(c.Context, u)
		if err != nil {
			return nil, "", err
		}
		b.Context = append(b.Context, m)
	}
	b.Previous = func(obj *manifest.Object, ref lint.ObjectRef) []byte {
		group, _, _ := strings.Cut(obj.APIVersion, "/")
		if !strings.Contains(obj.APIVersion, "/") {
			group = ""
		}
		return stored[key{group, obj.Kind, ref.Namespace, ref.Name}]
	}
	return b, c.Namespace, nil
}

// baseRefBaseline reads, for lint --base-ref REF, each file's version at REF
// and matches its documents to the file's by apiVersion, kind, namespace and
// name: an object that matches is checked as kubectl apply's update of the
// object created from its old version. Files new since REF, and standard
// input, have no previous version.
func (o *LintOptions) baseRefBaseline(ctx context.Context, stdin []byte) (*lint.Baseline, error) {
	renderer, err := o.renderFlags.renderer(o.namespace)
	if err != nil {
		return nil, err
	}
	inputs, _ := manifest.ExpandWith(o.paths, bytes.NewReader(stdin), renderer)
	checker := apicheck.New()
	type key struct{ file, apiVersion, kind, ns, name string }
	stored := map[key][]byte{}
	repos := map[string]*gitref.Repo{}
	for _, in := range inputs {
		if in.Name == manifest.StdinName {
			continue
		}
		var olds []*manifest.Object
		name := in.Name
		if kind, ok := in.RenderKind(); ok {
			// A chart or kustomization: rendered as it is at the ref; lint
			// names its objects by the rendered name.
			set, err := renderAtRef(ctx, renderer, o.BaseRef, in.Name, kind)
			if err != nil {
				return nil, fmt.Errorf("--base-ref %s: %w", o.BaseRef, err)
			}
			olds, name = set.Objects, manifest.RenderedName(in.Name, kind)
		} else {
			var ok bool
			if olds, ok, err = o.readAtRef(ctx, repos, in.Name); err != nil {
				return nil, err
			} else if !ok {
				continue
			}
		}
		for _, old := range olds {
			if !apicheck.Validated(old.APIVersion, old.Kind) || old.Name == "" {
				continue
			}
			ns := old.Namespace
			if ns == "" {
				ns = defaultNamespace(o.namespace)
			}
			js, err := checker.CreatedByApply(ctx, apicheck.Object{APIVersion: old.APIVersion, Kind: old.Kind,
				Namespace: old.Namespace, Name: old.Name, JSON: old.JSON}, apicheck.Options{Namespace: o.namespace})
			if err != nil {
				continue // an old version that does not decode: the new one is checked as created
			}
			stored[key{name, old.APIVersion, old.Kind, ns, old.Name}] = js
		}
	}
	return &lint.Baseline{Previous: func(obj *manifest.Object, ref lint.ObjectRef) []byte {
		return stored[key{obj.File, obj.APIVersion, obj.Kind, ref.Namespace, ref.Name}]
	}}, nil
}

// readAtRef reads a file's objects as they are at --base-ref; ok is false
// when the file is new since then.
func (o *LintOptions) readAtRef(ctx context.Context, repos map[string]*gitref.Repo, file string) ([]*manifest.Object, bool, error) {
	dir := filepath.Dir(file)
	repo, ok := repos[dir]
	if !ok {
		var err error
		if repo, err = gitref.Open(ctx, dir); err != nil {
			return nil, false, fmt.Errorf("--base-ref %s: %w", o.BaseRef, err)
		}
		repos[dir] = repo
	}
	data, err := repo.Read(ctx, o.BaseRef, file)
	if errors.Is(err, gitref.ErrNotAtRef) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("--base-ref %s: %w", o.BaseRef, err)
	}
	return manifest.Parse(file, data).Objects, true, nil
}

func defaultNamespace(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// namespacesOf returns the sorted namespaces of objs.
func namespacesOf(objs []*unstructured.Unstructured) []string {
	seen := map[string]bool{}
	var out []string
	for _, u := range objs {
		if ns := u.GetNamespace(); ns != "" && !seen[ns] {
			seen[ns] = true
			out = append(out, ns)
		}
	}
	sort.Strings(out)
	return out
}

// scopeName names a namespace for messages; "" is every namespace.
func scopeName(ns string) string {
	if ns == "" {
		return "all namespaces"
	}
	return fmt.Sprintf("namespace %q", ns)
}
