package apicheck

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// LastAppliedAnnotation is where kubectl apply (client-side) keeps the
// configuration it last applied: the "original" of its three-way merge.
const LastAppliedAnnotation = corev1.LastAppliedConfigAnnotation

// looseDecoder decodes stored objects: objects the API server already holds
// are not held to strict decoding (a newer server may add fields v1.37 does
// not know; they are dropped, as a v1.37 server would drop them).
var looseDecoder = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, legacyscheme.Scheme, legacyscheme.Scheme,
	kjson.SerializerOptions{})

// CheckUpdate runs the API server's update path on obj replacing old, and
// reports what it would reject or warn about, in the same shapes as Check:
// the field paths are obj's, so a caller places them in obj's file.
//
// old is the stored object (a live object as the API server returns it, or
// what CreatedByApply returns); obj is the object the server is asked to
// store in its place, whole (for kubectl apply, see Applied). Both are
// defaulted and converted to the internal version; then, mirroring
// rest.BeforeUpdate (k8s.io/apiserver/pkg/registry/rest), the generation,
// UID and creation timestamp are carried over from old, the strategy's
// PrepareForUpdate runs, then rest.ValidateUpdate (object metadata, the
// strategy's ValidateUpdate and declarative validation) and, when nothing
// is rejected, WarningsOnUpdate. That is where "field is immutable" and
// "updates to statefulset spec for fields other than ..." come from.
//
// For kinds the API tier does not validate, CheckUpdate is Check. It never
// panics: a panic inside upstream code becomes an api/internal issue.
func (c *Checker) CheckUpdate(ctx context.Context, old, obj Object, opts Options) (res Result) {
	gv, err := schema.ParseGroupVersion(obj.APIVersion)
	if err != nil {
		return c.Check(ctx, obj, opts)
	}
	gvk := gv.WithKind(obj.Kind)
	k, ok := kinds[gvk]
	if !ok {
		return c.Check(ctx, obj, opts)
	}
	strategy, ok := k.strategy.(rest.RESTUpdateStrategy)
	if !ok {
		return c.Check(ctx, obj, opts)
	}
	res.Checked = true
	defer func() {
		if r := recover(); r != nil {
			res.Issues = append(res.Issues, Issue{Rule: RuleInternal,
				Message: fmt.Sprintf("update validation of %s failed inside the embedded API server code: %v", obj.Kind, r)})
		}
	}()

	// 1. Decode: the new object strictly, as for a create; the stored one
	// loosely.
	versioned, issues := c.decodeStrict(obj.JSON, gvk)
	if len(issues) > 0 {
		res.Issues = issues
		return res
	}
	oldVersioned, oldGVK, err := looseDecoder.Decode(old.JSON, nil, nil)
	if err != nil {
		res.Issues = append(res.Issues, Issue{Rule: RuleInternal, Message: fmt.Sprintf("decode the stored %s: %v", obj.Kind, err)})
		return res
	}
	if oldGVK.GroupKind() != gvk.GroupKind() {
		res.Issues = append(res.Issues, Issue{Rule: RuleInternal,
			Message: fmt.Sprintf("the stored object is a %s, not a %s", oldGVK.GroupKind(), gvk.GroupKind())})
		return res
	}

	// 2. Default both, then convert both to the internal type.
	legacyscheme.Scheme.Default(versioned)
	legacyscheme.Scheme.Default(oldVersioned)
	res.Versioned = versioned
	internal, oldInternal := k.internal(), k.internal()
	if err := legacyscheme.Scheme.Convert(versioned.DeepCopyObject(), internal, nil); err != nil {
		res.Issues = append(res.Issues, Issue{Rule: RuleInternal, Message: fmt.Sprintf("convert %s to the internal version: %v", gvk.Kind, err)})
		return res
	}
	if err := legacyscheme.Scheme.Convert(oldVersioned, oldInternal, nil); err != nil {
		res.Issues = append(res.Issues, Issue{Rule: RuleInternal, Message: fmt.Sprintf("convert the stored %s to the internal version: %v", gvk.Kind, err)})
		return res
	}

	// 3. rest.BeforeUpdate's steps, in its order.
	accessor, err := meta.Accessor(internal)
	if err != nil {
		res.Issues = append(res.Issues, Issue{Rule: RuleInternal, Message: fmt.Sprintf("read %s metadata: %v", gvk.Kind, err)})
		return res
	}
	oldAccessor, err := meta.Accessor(oldInternal)
	if err != nil {
		res.Issues = append(res.Issues, Issue{Rule: RuleInternal, Message: fmt.Sprintf("read the stored %s metadata: %v", gvk.Kind, err)})
		return res
	}
	ns := k.namespace(accessor.GetNamespace(), opts)
	accessor.SetNamespace(ns)
	if oldAccessor.GetNamespace() == "" || ns == metav1.NamespaceNone {
		oldAccessor.SetNamespace(ns)
	}
	ctx = genericapirequest.WithNamespace(ctx, ns)
	ctx = genericapirequest.WithRequestInfo(ctx, requestInfo(gvk, k.resource, "update", ns, accessor.GetName()))

	// kubectl apply patches the stored object, so the object validated
	// carries its resourceVersion; a whole manifest given here may not.
	if accessor.GetResourceVersion() == "" {
		accessor.SetResourceVersion(oldAccessor.GetResourceVersion())
	}
	accessor.SetGeneration(oldAccessor.GetGeneration())
	strategy.PrepareForUpdate(ctx, internal, oldInternal)
	if accessor.GetUID() == "" {
		accessor.SetUID(oldAccessor.GetUID())
	}
	if t := oldAccessor.GetCreationTimestamp(); !t.IsZero() {
		accessor.SetCreationTimestamp(t)
	}
	if !oldAccessor.GetDeletionTimestamp().IsZero() {
		accessor.SetDeletionTimestamp(oldAccessor.GetDeletionTimestamp())
	}
	if oldAccessor.GetDeletionGracePeriodSeconds() != nil && accessor.GetDeletionGracePeriodSeconds() == nil {
		accessor.SetDeletionGracePeriodSeconds(oldAccessor.GetDeletionGracePeriodSeconds())
	}
	if errs := rest.ValidateUpdate(ctx, internal, oldInternal, strategy); len(errs) > 0 {
		for _, e := range errs {
			res.Issues = append(res.Issues, fieldIssue(e))
		}
		return res
	}
	for _, w := range strategy.WarningsOnUpdate(ctx, internal, oldInternal) {
		res.Issues = append(res.Issues, Issue{Rule: RuleWarning, Warning: true, Field: warningField(w), Message: w})
	}
	return res
}

// storedResourceVersion stands in for the resourceVersion the storage layer
// gives an object CreatedByApply returns: updates must carry one.
const storedResourceVersion = "1"

// CreatedByApply returns, as JSON in obj's version, the object the API server
// would store if `kubectl apply` created obj: defaulted, through the
// strategy's PrepareForCreate (a Job's generated selector and labels), with
// the system fields set (a fixed UID, as Check uses) and the last-applied
// annotation kubectl adds. It is the "old" object for checking a later
// version of a manifest against an earlier one (lint --base-ref) when no
// cluster holds the earlier one. An object that the create path would reject
// is returned all the same: only its decoding can fail.
func (c *Checker) CreatedByApply(ctx context.Context, obj Object, opts Options) ([]byte, error) {
	gv, err := schema.ParseGroupVersion(obj.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", obj.Kind, obj.Name, err)
	}
	gvk := gv.WithKind(obj.Kind)
	k, ok := kinds[gvk]
	if !ok {
		return nil, fmt.Errorf("%s %s: %s is not a kind the API tier validates", obj.Kind, obj.Name, gvk)
	}
	modified, err := withLastApplied(obj.JSON)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", obj.Kind, obj.Name, err)
	}
	versioned, _, err := looseDecoder.Decode(modified, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s %s: decode: %w", obj.Kind, obj.Name, err)
	}
	legacyscheme.Scheme.Default(versioned)
	internal := k.internal()
	if err := legacyscheme.Scheme.Convert(versioned, internal, nil); err != nil {
		return nil, fmt.Errorf("%s %s: convert to the internal version: %w", obj.Kind, obj.Name, err)
	}
	accessor, err := meta.Accessor(internal)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", obj.Kind, obj.Name, err)
	}
	accessor.SetUID(fixedUID)
	accessor.SetCreationTimestamp(metav1.NewTime(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)))
	accessor.SetResourceVersion(storedResourceVersion)
	accessor.SetGeneration(1)
	ns := k.namespace(accessor.GetNamespace(), opts)
	accessor.SetNamespace(ns)
	ctx = genericapirequest.WithNamespace(ctx, ns)
	ctx = genericapirequest.WithRequestInfo(ctx, requestInfo(gvk, k.resource, "create", ns, accessor.GetName()))
	if err := safely(func() {
		if begin := beginCreate[gvk.GroupKind()]; begin != nil {
			// The stored object was created: what its create refused is not
			// this update's to report.
			_ = begin(internal)
		}
		k.strategy.PrepareForCreate(ctx, internal)
	}); err != nil {
		return nil, fmt.Errorf("%s %s: prepare for create: %w", obj.Kind, obj.Name, err)
	}
	out, err := legacyscheme.Scheme.ConvertToVersion(internal, gvk.GroupVersion())
	if err != nil {
		return nil, fmt.Errorf("%s %s: convert to %s: %w", obj.Kind, obj.Name, gvk.GroupVersion(), err)
	}
	out.GetObjectKind().SetGroupVersionKind(gvk)
	return json.Marshal(out)
}

// applyInputs are the original and modified documents of kubectl apply's
// three-way patch against current: the last-applied annotation stored on
// current (nil when there is none), and obj with its own last-applied
// annotation set (withLastApplied). Applied and AppliedCustom share them.
func applyInputs(current []byte, obj Object) (original, modified []byte, err error) {
	var head struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(current, &head); err != nil {
		return nil, nil, fmt.Errorf("%s %s: read the stored object: %w", obj.Kind, obj.Name, err)
	}
	if s := head.Metadata.Annotations[LastAppliedAnnotation]; s != "" {
		original = []byte(s)
	}
	modified, err = withLastApplied(obj.JSON)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", obj.Kind, obj.Name, err)
	}
	return original, modified, nil
}

// Applied returns the object the API server is asked to store when
// `kubectl apply` (client-side, the default) sends the manifest obj over the
// stored object current: kubectl's three-way strategic merge patch from the
// last-applied configuration (current's LastAppliedAnnotation; none means
// nothing is deleted), obj with that annotation set, and current, applied to
// current. It mirrors Patcher.patchSimple in k8s.io/kubectl/pkg/cmd/apply
// for built-in types (overwrite on, as --overwrite defaults). Fields only
// the server set (a Job's generated selector, status) survive the merge, as
// they do in a real apply, so CheckUpdate reports only what the manifest
// changes.
func Applied(current []byte, obj Object) (Object, error) {
	gv, err := schema.ParseGroupVersion(obj.APIVersion)
	if err != nil {
		return Object{}, fmt.Errorf("%s %s: %w", obj.Kind, obj.Name, err)
	}
	typed, err := legacyscheme.Scheme.New(gv.WithKind(obj.Kind))
	if err != nil {
		return Object{}, fmt.Errorf("%s %s: %w", obj.Kind, obj.Name, err)
	}
	lookup, err := strategicpatch.NewPatchMetaFromStruct(typed)
	if err != nil {
		return Object{}, fmt.Errorf("%s %s: patch metadata: %w", obj.Kind, obj.Name, err)
	}
	original, modified, err := applyInputs(current, obj)
	if err != nil {
		return Object{}, err
	}
	patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, lookup, true)
	if err != nil {
		return Object{}, fmt.Errorf("%s %s: three-way merge: %w", obj.Kind, obj.Name, err)
	}
	merged, err := strategicpatch.StrategicMergePatchUsingLookupPatchMeta(current, patch, lookup)
	if err != nil {
		return Object{}, fmt.Errorf("%s %s: apply the patch: %w", obj.Kind, obj.Name, err)
	}
	out := obj
	out.JSON = merged
	return out, nil
}

// withLastApplied returns the object with kubectl's last-applied annotation
// set to the object itself (without that annotation), as kubectl's
// GetModifiedConfiguration (k8s.io/kubectl/pkg/util) builds it.
func withLastApplied(js []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		return nil, fmt.Errorf("read object: %w", err)
	}
	md, _ := m["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		m["metadata"] = md
	}
	ann, _ := md["annotations"].(map[string]any)
	if ann != nil {
		delete(ann, LastAppliedAnnotation)
		if len(ann) == 0 {
			delete(md, "annotations")
		}
	}
	self, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if ann == nil {
		ann = map[string]any{}
	}
	ann[LastAppliedAnnotation] = string(self) + "\n"
	md["annotations"] = ann
	return json.Marshal(m)
}

// decodeStrict decodes a manifest as Check does, returning the issues of an
// object that does not decode.
func (c *Checker) decodeStrict(js []byte, gvk schema.GroupVersionKind) (runtime.Object, []Issue) {
	versioned, _, err := c.decoder.Decode(js, nil, nil)
	if err = withoutDuplicateFields(err); err == nil {
		return versioned, nil
	}
	var issues []Issue
	prefix := fmt.Sprintf("%s in version %q cannot be handled as a %s: ", gvk.Kind, gvk.Version, gvk.Kind)
	if strict, ok := runtime.AsStrictDecodingError(err); ok && versioned != nil {
		for _, e := range strict.Errors() {
			issues = append(issues, Issue{Rule: RuleUnknownField, Field: strictField(e.Error()),
				Message: prefix + "strict decoding error: " + e.Error()})
		}
		return nil, issues
	}
	loose, valueType := decodeField(err.Error())
	return nil, []Issue{{Rule: RuleDecode, Field: loose, Loose: loose != "", ValueType: valueType, Message: prefix + err.Error()}}
}

// requestNamespace is the namespace a request for an object in ns is made in:
// its own, else the one lint was given, else "default".
func requestNamespace(ns string, opts Options) string {
	switch {
	case ns != "":
		return ns
	case opts.Namespace != "":
		return opts.Namespace
	}
	return metav1.NamespaceDefault
}

// requestInfo is the request the API server would be serving.
func requestInfo(gvk schema.GroupVersionKind, resource, verb, ns, name string) *genericapirequest.RequestInfo {
	apiPrefix := "apis"
	if gvk.Group == "" {
		apiPrefix = "api"
	}
	return &genericapirequest.RequestInfo{IsResourceRequest: true, Path: "/" + apiPrefix, Verb: verb, APIPrefix: apiPrefix,
		APIGroup: gvk.Group, APIVersion: gvk.Version, Namespace: ns, Resource: resource, Name: name}
}

// safely runs fn, turning a panic into an error.
func safely(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic inside the embedded API server code: %v", r)
		}
	}()
	fn()
	return nil
}
