package lint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/gitref"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// Source names what a run's baseline is read from: the cluster (--live,
// --against-live) or a git revision (--base-ref). The reads themselves are
// live's and gitref's; this file turns what they return into a Baseline.
type Source struct {
	// Cluster is the cluster client of --live and --against-live.
	Cluster *live.Client
	// Live lints the cluster's workloads: Resources (TYPE/NAME arguments,
	// as for kubectl get), or every workload of the client's namespace, or
	// of every namespace with AllNamespaces.
	Live          bool
	Resources     []string
	AllNamespaces bool
	// AgainstLive checks the files' objects as updates of the cluster's.
	AgainstLive bool
	// BaseRef checks the files' objects as updates of their version at this
	// git revision.
	BaseRef string
	// Paths and Stdin are the run's inputs; Namespace is -n. Renderer
	// renders the charts and kustomizations among the paths.
	Renderer  manifest.Renderer
	Paths     []string
	Stdin     []byte
	Namespace string
	// Notes receives a line for each kind the run goes on without, because
	// the user may not list it (live.ListContext); nil drops them.
	Notes func(string)
}

func (src Source) note(skips []live.Skip) {
	for _, s := range skips {
		if src.Notes != nil {
			src.Notes(s.Message)
		}
	}
}

// Check checks the combination of what src names, with the flags' words.
func (src Source) Check() error {
	switch {
	case src.Live && src.AgainstLive:
		return errors.New("--live and --against-live contradict each other: --live lints the cluster, --against-live lints files against it")
	case src.Live && src.BaseRef != "":
		return errors.New("--base-ref compares files with a git revision; it does not apply to --live")
	case src.AgainstLive && src.BaseRef != "":
		return errors.New("--against-live and --base-ref each name what the files are compared with: give one")
	case src.AllNamespaces && !src.Live:
		return errors.New("-A/--all-namespaces applies to --live only")
	case src.Live && len(src.Paths) > 0:
		return fmt.Errorf("--live reads the cluster, not files: drop -f %s", strings.Join(src.Paths, " "))
	case (src.AgainstLive || src.BaseRef != "") && len(src.Paths) == 0:
		return errors.New("no input: name the files to check")
	}
	return nil
}

// ReadBaseline does every read of the cluster or the repository that a run
// needs, before anything is linted or printed, so that a failure
// (unreachable cluster, expired token, forbidden list, missing object,
// unknown ref) leaves no partial output. It returns the baseline (nil when
// src names none) and the namespace for objects that name none.
func ReadBaseline(ctx context.Context, src Source) (*Baseline, string, error) {
	switch {
	case src.Live:
		return liveBaseline(ctx, src.Cluster, src)
	case src.AgainstLive:
		return againstLiveBaseline(ctx, src.Cluster, src)
	case src.BaseRef != "":
		b, err := baseRefBaseline(ctx, src)
		return b, src.Namespace, err
	}
	return nil, src.Namespace, nil
}

// liveBaseline reads the cluster for lint --live: the named objects, or
// every object of the kinds lint reads in the namespace (or all of them),
// plus those kinds around the named objects for the cross-resource rules.
// Objects a controller owns (a Deployment's ReplicaSets and Pods) join the
// cross-resource index but are not linted: their findings are their
// owner's.
func liveBaseline(ctx context.Context, c *live.Client, src Source) (*Baseline, string, error) {
	ns := c.Namespace
	if src.AllNamespaces {
		ns = ""
	}
	var targets, around []*unstructured.Unstructured
	if len(src.Resources) > 0 {
		named, err := c.Resolve(ctx, c.Namespace, src.AllNamespaces, src.Resources)
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
		src.note(skips)
		around = objs
	} else {
		all, skips, err := c.ListContext(ctx, []string{ns}, live.AllKinds())
		if err != nil {
			return nil, "", err
		}
		src.note(skips)
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
	b := &Baseline{Objects: objects}
	for _, u := range around {
		m, err := live.ContextObject(c.Context, u)
		if err != nil {
			return nil, "", err
		}
		b.Context = append(b.Context, m)
	}
	nsNames := namespacesOf(append(append([]*unstructured.Unstructured{}, targets...), around...))
	if ns != "" && !slices.Contains(nsNames, ns) {
		nsNames = append(nsNames, ns)
		sort.Strings(nsNames)
	}
	if b.NamespaceLabels, err = namespaceLabels(ctx, c, src, nsNames); err != nil {
		return nil, "", err
	}
	// The cluster's policies judge its objects as they would their next
	// write (see checkPolicies).
	if err := readClusterPolicies(ctx, c, src, nil, nsNames, b); err != nil {
		return nil, "", err
	}
	b.Scope = fmt.Sprintf("context %q, %s", c.Context, scopeName(ns))
	return b, c.Namespace, nil
}

// namespaceLabels reads the labels of the cluster's Namespaces names, for
// the Pod Security labels lint applies to their pods, and notes those the
// user may not read.
func namespaceLabels(ctx context.Context, c *live.Client, src Source, names []string) (map[string]map[string]string, error) {
	labels, skips, err := c.NamespaceLabels(ctx, names)
	if err != nil {
		return nil, err
	}
	src.note(skips)
	return labels, nil
}

// againstLiveBaseline reads the cluster for lint -f FILES --against-live:
// every object of the kinds lint reads in each namespace the files' objects
// are in (list requests only). An object of the files that exists is
// checked as an update of its live version; the others are context.
func againstLiveBaseline(ctx context.Context, c *live.Client, src Source) (*Baseline, string, error) {
	set := manifest.Load(src.Paths, bytes.NewReader(src.Stdin))
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
	b := &Baseline{}
	objs, skips, err := c.ListContext(ctx, namespaces, live.AllKinds())
	if err != nil {
		return nil, "", err
	}
	src.note(skips)
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
	if b.NamespaceLabels, err = namespaceLabels(ctx, c, src, namespaces); err != nil {
		return nil, "", err
	}
	customPrevious, err := readClusterAdmission(ctx, c, src, set.Objects, namespaces, b)
	if err != nil {
		return nil, "", err
	}
	b.Previous = func(obj *manifest.Object, ref ObjectRef) []byte {
		group, _, _ := strings.Cut(obj.APIVersion, "/")
		if !strings.Contains(obj.APIVersion, "/") {
			group = ""
		}
		if prev := stored[key{group, obj.Kind, ref.Namespace, ref.Name}]; prev != nil || customPrevious == nil {
			return prev
		}
		return customPrevious(obj, ref)
	}
	return b, c.Namespace, nil
}

// baseRefBaseline reads, for lint --base-ref REF, each file's version at REF
// and matches its documents to the file's by apiVersion, kind, namespace and
// name: an object that matches is checked as kubectl apply's update of the
// object created from its old version. Files new since REF, and standard
// input, have no previous version.
func baseRefBaseline(ctx context.Context, src Source) (*Baseline, error) {
	inputs, _ := manifest.ExpandWith(src.Paths, bytes.NewReader(src.Stdin), src.Renderer)
	checker := apicheck.New()
	type key struct{ file, apiVersion, kind, ns, name string }
	stored := map[key][]byte{}
	// One git cat-file --batch per work tree serves every file.
	reader := gitref.NewReader(ctx, src.BaseRef)
	defer reader.Close() // on an early return; Close is also called, and checked, below
	for _, in := range inputs {
		if in.Name == manifest.StdinName {
			continue
		}
		var olds []*manifest.Object
		name := in.Name
		if kind, ok := in.RenderKind(); ok {
			// A chart or kustomization: rendered as it is at the ref; lint
			// names its objects by the rendered name.
			set, err := helper.AtRef(ctx, src.Renderer, src.BaseRef, in.Name, kind)
			if err != nil {
				return nil, fmt.Errorf("--base-ref %s: %w", src.BaseRef, err)
			}
			olds, name = set.Objects, manifest.RenderedName(in.Name, kind)
		} else {
			var ok bool
			var err error
			if olds, ok, err = readAtRef(reader, src.BaseRef, in.Name); err != nil {
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
				ns = defaultNamespace(src.Namespace)
			}
			js, err := checker.CreatedByApply(ctx, apicheck.Object{APIVersion: old.APIVersion, Kind: old.Kind,
				Namespace: old.Namespace, Name: old.Name, JSON: old.JSON}, apicheck.Options{Namespace: src.Namespace})
			if err != nil {
				continue // an old version that does not decode: the new one is checked as created
			}
			stored[key{name, old.APIVersion, old.Kind, ns, old.Name}] = js
		}
	}
	if err := reader.Close(); err != nil {
		return nil, fmt.Errorf("--base-ref %s: %w", src.BaseRef, err)
	}
	return &Baseline{Previous: func(obj *manifest.Object, ref ObjectRef) []byte {
		return stored[key{obj.File, obj.APIVersion, obj.Kind, ref.Namespace, ref.Name}]
	}}, nil
}

// readAtRef reads a file's objects as they are at the git ref; ok is false
// when the file is new since then.
func readAtRef(reader *gitref.Reader, ref, file string) ([]*manifest.Object, bool, error) {
	data, err := reader.Read(file)
	if errors.Is(err, gitref.ErrNotAtRef) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("--base-ref %s: %w", ref, err)
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
