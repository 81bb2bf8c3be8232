package apicheck

import (
	"context"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// clusterScoped are the built-in kinds the API server serves without a
// namespace, among those a manifest may hold.
var clusterScoped = map[string]bool{"Namespace": true, "Node": true, "PersistentVolume": true, "ClusterRole": true,
	"ClusterRoleBinding": true, "CustomResourceDefinition": true, "StorageClass": true, "PriorityClass": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true, "MutatingAdmissionPolicy": true,
	"MutatingAdmissionPolicyBinding": true, "ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true,
	"IngressClass": true, "RuntimeClass": true, "APIService": true, "CSIDriver": true, "CSINode": true, "VolumeAttachment": true}

// Target is an object as validating admission sees it: the versioned,
// defaulted object, its REST resource and its request namespace ("" for a
// cluster-scoped kind).
type Target struct {
	Object    *unstructured.Unstructured
	Resource  string
	Namespace string
}

// AdmissionTarget returns obj as the API server's validating admission
// would see it on create: a kind the API tier validates decoded and
// defaulted (versioned is Result.Versioned), a custom resource decoded,
// pruned and defaulted by its CRD, any other kind as written. ok is false
// when the object does not decode.
func (s *CRDs) AdmissionTarget(ctx context.Context, obj Object, versioned runtime.Object, opts Options) (Target, bool) {
	gv, err := schema.ParseGroupVersion(obj.APIVersion)
	if err != nil {
		return Target{}, false
	}
	gvk := gv.WithKind(obj.Kind)
	ns := obj.Namespace
	if ns == "" {
		ns = opts.Namespace
	}
	if ns == "" {
		ns = "default"
	}
	t := Target{}
	if k, ok := kinds[gvk]; ok && versioned != nil {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(versioned)
		if err != nil {
			return Target{}, false
		}
		t.Object = &unstructured.Unstructured{Object: content}
		t.Object.SetGroupVersionKind(gvk)
		t.Resource = k.resource
		if k.strategy.NamespaceScoped() {
			t.Namespace = ns
		}
		return t, true
	}
	if e, ok := s.entry(gvk.GroupKind()); ok {
		v := e.versions[gv.Version]
		if v == nil {
			return Target{}, false
		}
		var served *apiextensionsv1.CustomResourceDefinitionVersion
		for i := range e.crd.Spec.Versions {
			if e.crd.Spec.Versions[i].Name == gv.Version {
				served = &e.crd.Spec.Versions[i]
			}
		}
		if served == nil || !served.Served {
			return Target{}, false
		}
		v.once.Do(func() { v.err = v.build(e.crd, served, gvk) })
		if v.err != nil {
			return Target{}, false
		}
		u, unknown, err := v.decode(obj.JSON, e.crd, gvk)
		if err != nil || len(unknown) > 0 {
			return Target{}, false
		}
		t.Object, t.Resource = u, e.crd.Spec.Names.Plural
		if v.scoped {
			t.Namespace = ns
		}
		return t, true
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(obj.JSON); err != nil {
		return Target{}, false
	}
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
	t.Object, t.Resource = u, strings.ToLower(plural.Resource)
	if !clusterScoped[obj.Kind] {
		t.Namespace = ns
	}
	return t, true
}

// entry returns the CRD of a group and kind.
func (s *CRDs) entry(gk schema.GroupKind) (*crdEntry, bool) {
	if s == nil {
		return nil, false
	}
	e, ok := s.byGK[gk]
	return e, ok
}
