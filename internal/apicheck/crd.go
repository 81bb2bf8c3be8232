package apicheck

import (
	"context"
	encjson "encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/version"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// RuleCRDMissing is the info on a custom resource whose
// CustomResourceDefinition is nowhere in sight (not in the input, not given
// with --crds, not read from the cluster): nothing checks it.
const RuleCRDMissing = "api/crd-missing"

// CRDKind is the kind of a CustomResourceDefinition, in group
// apiextensions.k8s.io.
const CRDKind = "CustomResourceDefinition"

// CRDs are the CustomResourceDefinitions a run knows, by group and kind. A
// custom resource of one of them is checked as the API server's custom
// resource handler checks it (k8s.io/apiextensions-apiserver's crdHandler):
// strict decoding with pruning of unknown fields, defaulting, then the
// registry strategy's validation (the OpenAPI schema, embedded resources,
// list types, the x-kubernetes-validations CEL rules within the server's
// cost budget, metadata). It is safe for concurrent use once built.
type CRDs struct {
	byGK map[schema.GroupKind]*crdEntry
}

type crdEntry struct {
	crd *apiextensionsv1.CustomResourceDefinition
	// source names where the CRD came from (file or cluster), for messages.
	source   string
	versions map[string]*crdVersion
}

// crdVersion is what the server builds for one version of a CRD
// (crdHandler.getOrCreateServingInfoFor), built on first use.
type crdVersion struct {
	once       sync.Once
	err        error
	structural *structuralschema.Structural
	strategy   customStrategy
	scoped     bool
}

// NewCRDs returns an empty set of CRDs.
func NewCRDs() *CRDs { return &CRDs{byGK: map[schema.GroupKind]*crdEntry{}} }

// IsCRD reports whether apiVersion and kind name a CustomResourceDefinition
// the API server serves (apiextensions.k8s.io/v1).
func IsCRD(apiVersion, kind string) bool {
	return apiVersion == apiextensionsv1.SchemeGroupVersion.String() && kind == CRDKind
}

// Add reads one CustomResourceDefinition (its JSON) into the set, with
// source naming where it came from. A later CRD of the same group and kind
// replaces an earlier one, as a later apply would; callers add the cluster's
// first and the input's last.
func (s *CRDs) Add(data []byte, source string) error {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := encjson.Unmarshal(data, crd); err != nil {
		return fmt.Errorf("%s: decode CustomResourceDefinition: %w", source, err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	if crd.Spec.Group == "" || crd.Spec.Names.Kind == "" {
		return fmt.Errorf("%s: CustomResourceDefinition %q has no spec.group or spec.names.kind", source, crd.Name)
	}
	e := &crdEntry{crd: crd, source: source, versions: map[string]*crdVersion{}}
	for _, v := range crd.Spec.Versions {
		e.versions[v.Name] = &crdVersion{}
	}
	s.byGK[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = e
	return nil
}

// Len returns how many CRDs the set holds.
func (s *CRDs) Len() int {
	if s == nil {
		return 0
	}
	return len(s.byGK)
}

// Defines reports whether the set holds the CRD of apiVersion's group and
// kind, served in any version.
func (s *CRDs) Defines(apiVersion, kind string) bool {
	if s == nil {
		return false
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return false
	}
	_, ok := s.byGK[gv.WithKind(kind).GroupKind()]
	return ok
}

// CustomResource reports whether apiVersion and kind name no kind the API
// tier knows or the built-in API groups serve: a custom resource, checked
// only against its CRD.
func CustomResource(apiVersion, kind string) bool {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || gv.Group == "" || kind == "" {
		return false
	}
	if _, ok := kinds[gv.WithKind(kind)]; ok {
		return false
	}
	if _, _, removed := Removed(apiVersion, kind); removed {
		return false
	}
	return !builtinGroup(gv.Group)
}

// builtinGroup reports whether the API server itself serves group (apps,
// batch, networking.k8s.io, ...), not a CRD.
func builtinGroup(group string) bool {
	if legacyscheme.Scheme.IsGroupRegistered(group) || clientscheme.Scheme.IsGroupRegistered(group) {
		return true
	}
	return group == apiextensionsv1.GroupName || group == apiRegistrationGroup
}

// apiRegistrationGroup is the group of APIService, which kube-apiserver's
// own aggregator serves (k8s.io/kube-aggregator's apiregistration.GroupName):
// no CRD defines it, so a chart's APIService (metrics adapters, kueue) is
// not a custom resource whose CRD is missing.
const apiRegistrationGroup = "apiregistration.k8s.io"

// CheckCustom runs the API server's create path for a custom resource
// against its CRD. Checked is false when the set does not define its kind.
func (s *CRDs) CheckCustom(ctx context.Context, obj Object, opts Options) Result {
	return s.check(ctx, obj, nil, opts)
}

// CheckCustomUpdate runs the API server's update path: obj replaces old
// (what is stored). The CRD's transition rules (oldSelf) run, with the
// server's ratcheting of unchanged fields.
func (s *CRDs) CheckCustomUpdate(ctx context.Context, old, obj Object, opts Options) Result {
	return s.check(ctx, obj, &old, opts)
}

func (s *CRDs) check(ctx context.Context, obj Object, old *Object, opts Options) (res Result) {
	gv, err := schema.ParseGroupVersion(obj.APIVersion)
	if err != nil || s == nil {
		return Result{}
	}
	gvk := gv.WithKind(obj.Kind)
	e, ok := s.byGK[gvk.GroupKind()]
	if !ok {
		return Result{}
	}
	res.Checked = true
	defer func() {
		if r := recover(); r != nil {
			res.Issues = append(res.Issues, Issue{Rule: RuleInternal,
				Message: fmt.Sprintf("validation of %s failed inside the embedded API server code: %v", obj.Kind, r)})
		}
	}()
	var served *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range e.crd.Spec.Versions {
		if v := &e.crd.Spec.Versions[i]; v.Name == gv.Version && v.Served {
			served = v
		}
	}
	if served == nil {
		// kubectl's RESTMapper finds no resource for the version, and
		// refuses the object before sending it.
		return Result{Checked: true, Issues: []Issue{{Rule: RuleUnknownVersion, Field: "apiVersion",
			Message: fmt.Sprintf("no matches for kind %q in version %q: the CustomResourceDefinition %s serves %s",
				obj.Kind, obj.APIVersion, e.crd.Name, servedVersions(e.crd))}}}
	}
	v := e.versions[served.Name]
	v.once.Do(func() { v.err = v.build(e.crd, served, gvk) })
	if v.err != nil {
		return Result{Checked: true, Issues: []Issue{{Rule: RuleInternal,
			Message: fmt.Sprintf("the CustomResourceDefinition %s (%s) cannot serve %s: %v", e.crd.Name, e.source, obj.APIVersion, v.err)}}}
	}

	prefix := fmt.Sprintf("%s in version %q cannot be handled as a %s: ", gvk.Kind, gvk.Version, gvk.Kind)
	u, unknown, err := v.decode(obj.JSON, e.crd, gvk)
	if err != nil {
		return Result{Checked: true, Issues: []Issue{{Rule: RuleDecode, Message: prefix + err.Error()}}}
	}
	if len(unknown) > 0 {
		for _, f := range unknown {
			res.Issues = append(res.Issues, Issue{Rule: RuleUnknownField, Field: f,
				Message: prefix + "strict decoding error: " + fmt.Sprintf("unknown field %q", f)})
		}
		return res
	}
	if served.Deprecated {
		msg := defaultDeprecationWarning(served.Name, e.crd.Spec)
		if served.DeprecationWarning != nil {
			msg = *served.DeprecationWarning
		}
		res.Issues = append(res.Issues, Issue{Rule: RuleWarning, Warning: true, Field: "apiVersion", Message: msg})
	}

	u.SetUID(fixedUID)
	u.SetCreationTimestamp(metav1.NewTime(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)))
	if u.GetName() == "" && u.GetGenerateName() != "" {
		u.SetName(generateName(u.GetGenerateName()))
	}
	ns := ""
	if v.scoped {
		ns = u.GetNamespace()
		if ns == "" {
			ns = opts.Namespace
		}
		if ns == "" {
			ns = metav1.NamespaceDefault
		}
	}
	u.SetNamespace(ns)
	ctx = genericapirequest.WithNamespace(ctx, ns)
	plural := e.crd.Spec.Names.Plural
	if old == nil {
		ctx = genericapirequest.WithRequestInfo(ctx, requestInfo(gvk, plural, "create", ns, u.GetName()))
		v.strategy.PrepareForCreate(ctx, u)
		if errs := rest.ValidateCreate(ctx, u, v.strategy); len(errs) > 0 {
			for _, fe := range errs {
				res.Issues = append(res.Issues, fieldIssue(fe))
			}
			return res
		}
		for _, w := range v.strategy.WarningsOnCreate(ctx, u) {
			res.Issues = append(res.Issues, Issue{Rule: RuleWarning, Warning: true, Field: warningField(w), Message: w})
		}
		return res
	}
	prev, _, err := v.decode(old.JSON, e.crd, gvk)
	if err != nil {
		// What is stored does not decode against this version's schema:
		// check the object as created instead.
		return s.check(ctx, obj, nil, opts)
	}
	prev.SetNamespace(ns)
	prev.SetUID(fixedUID)
	prev.SetCreationTimestamp(u.GetCreationTimestamp())
	if prev.GetGeneration() == 0 {
		prev.SetGeneration(1)
	}
	if prev.GetResourceVersion() == "" {
		// An object made stored from a file (--base-ref): the server's
		// would have one, and the update carries it (optimistic locking).
		prev.SetResourceVersion("1")
	}
	u.SetResourceVersion(prev.GetResourceVersion())
	u.SetGeneration(prev.GetGeneration())
	ctx = genericapirequest.WithRequestInfo(ctx, requestInfo(gvk, plural, "update", ns, u.GetName()))
	v.strategy.PrepareForUpdate(ctx, u, prev)
	errs := rest.ValidateUpdate(ctx, u, prev, v.strategy)
	for _, fe := range errs {
		res.Issues = append(res.Issues, fieldIssue(fe))
	}
	if len(errs) > 0 {
		return res
	}
	for _, w := range v.strategy.WarningsOnUpdate(ctx, u, prev) {
		res.Issues = append(res.Issues, Issue{Rule: RuleWarning, Warning: true, Field: warningField(w), Message: w})
	}
	return res
}

// build prepares one version of a CRD as crdHandler.getOrCreateServingInfoFor
// (k8s.io/apiextensions-apiserver/pkg/apiserver) does: the structural schema
// with its defaults pruned, the OpenAPI schema validator, and the registry
// strategy (customresource.NewStrategy) that holds the CEL validator.
func (v *crdVersion) build(crd *apiextensionsv1.CustomResourceDefinition, served *apiextensionsv1.CustomResourceDefinitionVersion, gvk schema.GroupVersionKind) error {
	if err := celCostErrors(crd); err != nil {
		return err
	}
	val, err := apiextensionshelpers.GetSchemaForVersion(crd, served.Name)
	if err != nil {
		return err
	}
	var internalSchemaProps *apiextensionsinternal.JSONSchemaProps
	if val != nil {
		internal := &apiextensionsinternal.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
			return fmt.Errorf("convert the schema to the internal version: %w", err)
		}
		internalSchemaProps = internal.OpenAPIV3Schema
		st, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil && !crd.Spec.PreserveUnknownFields {
			return fmt.Errorf("the schema is not structural: %w", err)
		}
		if !crd.Spec.PreserveUnknownFields {
			st = st.DeepCopy()
			if err := structuraldefaulting.PruneDefaults(st); err != nil {
				return fmt.Errorf("prune the schema's defaults: %w", err)
			}
		}
		v.structural = st
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internalSchemaProps)
	if err != nil {
		return fmt.Errorf("build the schema validator: %w", err)
	}
	var statusSpec *apiextensionsinternal.CustomResourceSubresourceStatus
	var scaleSpec *apiextensionsinternal.CustomResourceSubresourceScale
	var statusValidator apiservervalidation.SchemaValidator
	subresources, err := apiextensionshelpers.GetSubresourcesForVersion(crd, served.Name)
	if err != nil {
		return err
	}
	if subresources != nil && subresources.Status != nil {
		statusSpec = &apiextensionsinternal.CustomResourceSubresourceStatus{}
		if internalSchemaProps != nil && internalSchemaProps.Properties != nil {
			if statusSchema, ok := internalSchemaProps.Properties["status"]; ok {
				if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&statusSchema); err != nil {
					return fmt.Errorf("build the status validator: %w", err)
				}
			}
		}
	}
	if subresources != nil && subresources.Scale != nil {
		scaleSpec = &apiextensionsinternal.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scaleSpec, nil); err != nil {
			return fmt.Errorf("convert the scale subresource: %w", err)
		}
	}
	v.scoped = crd.Spec.Scope == apiextensionsv1.NamespaceScoped
	v.strategy = customresource.NewStrategy(unstructuredTyper{}, v.scoped, gvk, validator, statusValidator,
		v.structural, statusSpec, scaleSpec, served.SelectableFields)
	return nil
}

// decode reads a custom resource as the server's request decoder does for
// a CRD with fieldValidation=Strict (schemaCoercingDecoder and
// unstructuredSchemaCoercer in k8s.io/apiextensions-apiserver/pkg/apiserver,
// then unstructuredDefaulter): the JSON into an Unstructured, the metadata
// coerced, unknown fields pruned and returned as paths, nulls dropped, then
// the schema's defaults applied.
func (v *crdVersion) decode(data []byte, crd *apiextensionsv1.CustomResourceDefinition, gvk schema.GroupVersionKind) (*unstructured.Unstructured, []string, error) {
	u := &unstructured.Unstructured{}
	if _, _, err := strictUnstructured.Decode(data, nil, u); err != nil {
		// Only duplicate fields are strict errors of an Unstructured
		// decode, and kubectl never sends one (withoutDuplicateFields).
		if err = withoutDuplicateFields(err); err != nil {
			return nil, nil, err
		}
	}
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{
		ReturnUnknownFieldPaths: true,
	})
	if err != nil {
		return nil, nil, err
	}
	if !crd.Spec.PreserveUnknownFields {
		unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, v.structural, true,
			structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.structural)
	}
	fe, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, v.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if fe != nil {
		return nil, nil, fe
	}
	unknown = append(unknown, paths...)
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, nil, err
		}
	}
	if len(unknown) > 0 {
		return u, unknown, nil
	}
	if v.structural != nil {
		structuraldefaulting.Default(u.Object, v.structural)
	}
	return u, nil, nil
}

// customStrategy is what customresource.NewStrategy returns (an unexported
// type): a create and an update strategy.
type customStrategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// strictUnstructured decodes JSON into an Unstructured, strictly, as the
// server's StrictSerializer for custom resources.
var strictUnstructured = json.NewSerializerWithOptions(json.DefaultMetaFactory, unstructuredCreator{}, unstructuredTyper{},
	json.SerializerOptions{Strict: true})

// unstructuredCreator and unstructuredTyper stand for the custom resource
// handler's own (unstructuredCreator, UnstructuredObjectTyper): every kind is
// an Unstructured.
type unstructuredCreator struct{}

func (unstructuredCreator) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kind)
	return u, nil
}

type unstructuredTyper struct{}

func (unstructuredTyper) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		return nil, false, runtime.NewMissingKindErr("object has no kind field")
	}
	return []schema.GroupVersionKind{gvk}, false, nil
}

func (unstructuredTyper) Recognizes(schema.GroupVersionKind) bool { return true }

// defaultDeprecationWarning mirrors defaultDeprecationWarning in
// k8s.io/apiextensions-apiserver/pkg/apiserver: the warning for a
// deprecated version that gives no deprecationWarning of its own.
func defaultDeprecationWarning(deprecatedVersion string, crd apiextensionsv1.CustomResourceDefinitionSpec) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", crd.Group, deprecatedVersion, crd.Names.Kind)
	var newer []string
	for _, v := range crd.Versions {
		if v.Served && !v.Deprecated && version.CompareKubeAwareVersionStrings(deprecatedVersion, v.Name) < 0 {
			newer = append(newer, v.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	sort.Slice(newer, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0 })
	return msg + fmt.Sprintf("; use %s/%s %s", crd.Group, newer[0], crd.Names.Kind)
}

// servedVersions lists a CRD's served versions, for messages.
func servedVersions(crd *apiextensionsv1.CustomResourceDefinition) string {
	var names []string
	for _, v := range crd.Spec.Versions {
		if v.Served {
			names = append(names, crd.Spec.Group+"/"+v.Name)
		}
	}
	if len(names) == 0 {
		return "no version"
	}
	return strings.Join(names, ", ")
}

// AppliedCustom returns what kubectl apply would store for a custom
// resource obj whose stored version is current (JSON): a three-way JSON
// merge patch from the last-applied annotation, kubectl's choice for kinds
// without a strategic merge schema (patcher.buildMergePatch in
// k8s.io/kubectl/pkg/cmd/apply), applied to current.
func AppliedCustom(current []byte, obj Object) (Object, error) {
	original, modified, err := applyInputs(current, obj)
	if err != nil {
		return Object{}, err
	}
	patch, err := jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current)
	if err != nil {
		return Object{}, fmt.Errorf("%s %s: three-way merge: %w", obj.Kind, obj.Name, err)
	}
	merged, err := jsonpatch.MergePatch(current, patch)
	if err != nil {
		return Object{}, fmt.Errorf("%s %s: apply the patch: %w", obj.Kind, obj.Name, err)
	}
	out := obj
	out.JSON = merged
	return out, nil
}

// celCostErrors returns the errors about CEL rule costs that the API server
// gives when the CustomResourceDefinition is created: apiextensions'
// ValidateCustomResourceDefinition estimates each x-kubernetes-validations
// rule's cost with CEL's cost estimator, against the per-expression limit
// (StaticEstimatedCostLimit) and the CRD's total
// (StaticEstimatedCRDCostLimit), so a rule nesting all() four deep over an
// unbounded list is refused there. (At run time, the strategy's CEL
// validator holds each call to PerCallLimit and each object to
// RuntimeCELCostBudget.) The CRD's other errors are left out: lint reads
// CRDs as the cluster serves them, status and all.
func celCostErrors(crd *apiextensionsv1.CustomResourceDefinition) error {
	internal := &apiextensionsinternal.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		return fmt.Errorf("convert the CustomResourceDefinition to the internal version: %w", err)
	}
	var costs []string
	for _, e := range apiextensionsvalidation.ValidateCustomResourceDefinition(context.Background(), internal) {
		if strings.Contains(e.Detail, "cost") {
			costs = append(costs, e.Error())
		}
	}
	if len(costs) > 0 {
		return fmt.Errorf("the API server refuses it at creation: %s", strings.Join(costs, "; "))
	}
	return nil
}
