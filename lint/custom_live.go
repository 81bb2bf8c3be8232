package lint

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-workload/kubectl-workload/internal/admissionpolicy"
	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// readClusterAdmission reads, for --against-live, what the cluster's API
// server would check the files' objects against beyond the built-in
// validation: the ValidatingAdmissionPolicies and their bindings, and, when
// the files hold custom resources, the CRDs and the stored custom resources
// of those kinds in namespaces (for the update path and its transition
// rules). A list the user may not make (Kubernetes' view role grants none
// of these) is noted, and the run goes on without it; the note on CRDs is
// repeated in api/crd-missing. It returns the stored custom resources'
// lookup, nil when none was read.
func readClusterAdmission(ctx context.Context, c *live.Client, src Source, objs []*manifest.Object, namespaces []string, b *Baseline) (func(*manifest.Object, ObjectRef) []byte, error) {
	if err := readClusterPolicies(ctx, c, src, objs, namespaces, b); err != nil {
		return nil, err
	}
	customs := map[schema.GroupKind]bool{}
	for _, obj := range objs {
		if apicheck.CustomResource(obj.APIVersion, obj.Kind) {
			gv, _ := schema.ParseGroupVersion(obj.APIVersion)
			customs[gv.WithKind(obj.Kind).GroupKind()] = true
		}
	}
	if len(customs) == 0 {
		return nil, nil
	}
	items, skip, err := c.ListOptional(ctx, "", live.CRDKind, "custom resources are checked only against the CRDs of the files and of --crds")
	if err != nil {
		return nil, err
	}
	if skip != nil {
		src.note([]live.Skip{*skip})
		b.CRDNote = fmt.Sprintf("the cluster's were not read: the user may not list customresourcedefinitions.apiextensions.k8s.io in context %q", c.Context)
		return nil, nil
	}
	type key struct{ group, kind, ns, name string }
	stored := map[key][]byte{}
	for _, u := range items {
		m, err := live.Manifest(c.Context, u)
		if err != nil {
			return nil, err
		}
		b.CRDs = append(b.CRDs, m)
		group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
		kindName, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
		plural, _, _ := unstructured.NestedString(u.Object, "spec", "names", "plural")
		scope, _, _ := unstructured.NestedString(u.Object, "spec", "scope")
		if !customs[schema.GroupKind{Group: group, Kind: kindName}] {
			continue
		}
		version := storageVersion(u)
		k := live.CustomKind(group, version, plural, kindName)
		scopes := namespaces
		if scope != "Namespaced" {
			scopes = []string{""}
		}
		for _, ns := range scopes {
			crs, skip, err := c.ListOptional(ctx, ns, k, fmt.Sprintf("its %ss are checked as created, not as updates", kindName))
			if err != nil {
				return nil, err
			}
			if skip != nil {
				src.note([]live.Skip{*skip})
				continue
			}
			for _, cr := range crs {
				js, err := cr.MarshalJSON()
				if err != nil {
					return nil, fmt.Errorf("context %q: %s %s/%s: %w", c.Context, kindName, cr.GetNamespace(), cr.GetName(), err)
				}
				stored[key{group, kindName, cr.GetNamespace(), cr.GetName()}] = js
			}
		}
	}
	return func(obj *manifest.Object, ref ObjectRef) []byte {
		gv, err := schema.ParseGroupVersion(obj.APIVersion)
		if err != nil {
			return nil
		}
		ns := ref.Namespace
		if !b.customScoped(gv.Group, obj.Kind) {
			ns = ""
		}
		return stored[key{gv.Group, obj.Kind, ns, ref.Name}]
	}, nil
}

// readClusterPolicies reads the cluster's ValidatingAdmissionPolicies and
// bindings into b.Policies, and the objects their paramRefs may name into
// b.Params (readClusterParams). A list the user may not make is noted, and
// the run goes on without it.
func readClusterPolicies(ctx context.Context, c *live.Client, src Source, objs []*manifest.Object, namespaces []string, b *Baseline) error {
	for _, k := range []live.Kind{live.PolicyKind, live.BindingKind} {
		items, skip, err := c.ListOptional(ctx, "", k, "the cluster's ValidatingAdmissionPolicies are not evaluated")
		if err != nil {
			return err
		}
		if skip != nil {
			src.note([]live.Skip{*skip})
			continue
		}
		for _, u := range items {
			m, err := live.Manifest(c.Context, u)
			if err != nil {
				return err
			}
			b.Policies = append(b.Policies, m)
		}
	}
	return readClusterParams(ctx, c, src, objs, namespaces, b)
}

// readClusterParams reads the cluster's objects that the bindings'
// paramRefs may name, into b.Params: for each paramKind of the cluster's
// policies and of the files', every object of that kind (list requests
// only) in the files' namespaces and in those a paramRef names, or in the
// cluster for a cluster-scoped kind. The API server's admission then picks
// among them by the paramRef's name, namespace and selector
// (generic.CollectParams), as it picks among its informer's. A kind the
// user may not list is noted, and its params are those of the files.
func readClusterParams(ctx context.Context, c *live.Client, src Source, objs []*manifest.Object, namespaces []string, b *Baseline) error {
	ps := admissionpolicy.NewSet()
	for _, obj := range append(append([]*manifest.Object{}, b.Policies...), objs...) {
		if admissionpolicy.IsPolicy(obj.APIVersion, obj.Kind) {
			_ = ps.AddPolicy(obj.JSON, obj.Kind, obj.File) // a policy that does not decode is reported by checkPolicies
		}
	}
	gvks := ps.ParamKinds()
	if len(gvks) == 0 {
		return nil
	}
	sort.Slice(gvks, func(i, j int) bool { return gvks[i].String() < gvks[j].String() })
	gvks = slices.Compact(gvks)
	scopes := append(append([]string{}, namespaces...), ps.ParamNamespaces()...)
	sort.Strings(scopes)
	scopes = slices.Compact(scopes)
	for _, gvk := range gvks {
		k, namespaced, err := c.KindOf(gvk)
		if err != nil {
			// The server does not serve it: its admission reports the
			// policy's paramKind as a configuration error, as lint does.
			src.note([]live.Skip{{Message: fmt.Sprintf("%v; paramRefs to it are resolved with the files' objects only", err)}})
			continue
		}
		where := scopes
		if !namespaced {
			where = []string{""}
		}
		for _, ns := range where {
			items, skip, err := c.ListOptional(ctx, ns, k, fmt.Sprintf("the policies' paramRefs to %s objects are resolved with the files' only", gvk.Kind))
			if err != nil {
				return err
			}
			if skip != nil {
				src.note([]live.Skip{*skip})
				continue
			}
			for _, u := range items {
				b.Params = append(b.Params, admissionpolicy.Param{Object: u, Resource: k.GVR.Resource, Namespaced: namespaced})
			}
		}
	}
	return nil
}

// customScoped reports whether the cluster's CRD of a group and kind is
// namespaced.
func (b *Baseline) customScoped(group, kindName string) bool {
	for _, m := range b.CRDs {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(m.JSON); err != nil {
			continue
		}
		g, _, _ := unstructured.NestedString(u.Object, "spec", "group")
		k, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
		if g == group && k == kindName {
			s, _, _ := unstructured.NestedString(u.Object, "spec", "scope")
			return s == "Namespaced"
		}
	}
	return true
}

// storageVersion is the version a CRD stores its objects in, which the
// list asks for.
func storageVersion(crd *unstructured.Unstructured) string {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	first := ""
	for _, v := range versions {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		if first == "" {
			first = name
		}
		if storage, _ := m["storage"].(bool); storage {
			return name
		}
	}
	return first
}
