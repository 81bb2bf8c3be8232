// Package admissionpolicy evaluates ValidatingAdmissionPolicies and their
// bindings offline, with the API server's own admission code
// (k8s.io/apiserver/pkg/admission/plugin/policy/validating): its dispatcher
// matches the policies and bindings (match constraints, namespace and object
// selectors, matchConditions), collects the params of each binding's
// paramRef, evaluates the variables, validations and messageExpressions
// within the server's cost budget, and turns the validationActions into a
// denial (Deny), warnings (Warn) and audit annotations (Audit). What it would
// read from informers (policies, bindings, params, Namespaces) is given.
package admissionpolicy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	admissiondefaults "k8s.io/kubernetes/pkg/apis/admissionregistration/v1"
)

// Rule ids: what each validationAction of a binding makes of a failed
// validation.
const (
	// RuleDeny: the API server refuses the object (validationActions Deny).
	RuleDeny = "admission/policy-deny"
	// RuleWarn: the API server accepts it with a warning (Warn).
	RuleWarn = "admission/policy-warn"
	// RuleAudit: the API server accepts it and records the failure in the
	// audit log (Audit).
	RuleAudit = "admission/policy-audit"
)

// Rules lists the rule ids this package reports, sorted.
func Rules() []string { return []string{RuleAudit, RuleDeny, RuleWarn} }

// IsPolicy reports whether apiVersion and kind name a
// ValidatingAdmissionPolicy or a ValidatingAdmissionPolicyBinding the API
// server serves (admissionregistration.k8s.io/v1).
func IsPolicy(apiVersion, kind string) bool {
	return apiVersion == admissionregistrationv1.SchemeGroupVersion.String() &&
		(kind == "ValidatingAdmissionPolicy" || kind == "ValidatingAdmissionPolicyBinding")
}

// Param is an object a binding's paramRef may name.
type Param struct {
	Object *unstructured.Unstructured
	// Resource is its REST resource (configmaps), Namespaced its scope.
	Resource   string
	Namespaced bool
}

// Set holds the policies, bindings, params and Namespaces of a run. It is
// safe for concurrent use once built.
type Set struct {
	policies   map[string]*admissionregistrationv1.ValidatingAdmissionPolicy
	bindings   []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	params     map[schema.GroupVersionKind][]Param
	namespaces cache.Indexer

	once       sync.Once
	hooks      []validating.PolicyHook
	dispatcher generic.Dispatcher[validating.PolicyHook]
}

// NewSet returns an empty Set.
func NewSet() *Set {
	return &Set{policies: map[string]*admissionregistrationv1.ValidatingAdmissionPolicy{},
		params:     map[schema.GroupVersionKind][]Param{},
		namespaces: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})}
}

// AddPolicy reads a ValidatingAdmissionPolicy or a binding (JSON). A later
// one of the same name replaces an earlier one.
func (s *Set) AddPolicy(data []byte, kind, source string) error {
	switch kind {
	case "ValidatingAdmissionPolicy":
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		if err := json.Unmarshal(data, p); err != nil {
			return fmt.Errorf("%s: decode ValidatingAdmissionPolicy: %w", source, err)
		}
		admissiondefaults.SetObjectDefaults_ValidatingAdmissionPolicy(p)
		s.policies[p.Name] = p
	case "ValidatingAdmissionPolicyBinding":
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		if err := json.Unmarshal(data, b); err != nil {
			return fmt.Errorf("%s: decode ValidatingAdmissionPolicyBinding: %w", source, err)
		}
		admissiondefaults.SetObjectDefaults_ValidatingAdmissionPolicyBinding(b)
		for i, old := range s.bindings {
			if old.Name == b.Name {
				s.bindings[i] = b
				return nil
			}
		}
		s.bindings = append(s.bindings, b)
	}
	return nil
}

// Empty reports whether the set holds no binding of a known policy: then
// no object is evaluated.
func (s *Set) Empty() bool {
	if s == nil {
		return true
	}
	for _, b := range s.bindings {
		if _, ok := s.policies[b.Spec.PolicyName]; ok {
			return false
		}
	}
	return true
}

// ParamKinds returns the kinds the policies take params of.
func (s *Set) ParamKinds() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, p := range s.policies {
		if pk := p.Spec.ParamKind; pk != nil {
			if gv, err := schema.ParseGroupVersion(pk.APIVersion); err == nil {
				out = append(out, gv.WithKind(pk.Kind))
			}
		}
	}
	return out
}

// ParamNamespaces returns the namespaces the bindings' paramRefs name,
// sorted: with the requests' own namespaces, where a namespaced paramKind's
// params are looked up (generic.CollectParams).
func (s *Set) ParamNamespaces() []string {
	seen := map[string]bool{}
	var out []string
	for _, b := range s.bindings {
		if r := b.Spec.ParamRef; r != nil && r.Namespace != "" && !seen[r.Namespace] {
			seen[r.Namespace] = true
			out = append(out, r.Namespace)
		}
	}
	sort.Strings(out)
	return out
}

// AddParam adds an object that a paramRef may name.
func (s *Set) AddParam(p Param) {
	gvk := p.Object.GroupVersionKind()
	s.params[gvk] = append(s.params[gvk], p)
}

// AddNamespace adds a Namespace with its labels, for namespaceSelectors.
// The API server labels every Namespace kubernetes.io/metadata.name.
func (s *Set) AddNamespace(name string, labels map[string]string) {
	l := map[string]string{corev1.LabelMetadataName: name}
	for k, v := range labels {
		l[k] = v
	}
	_ = s.namespaces.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}})
}

// build compiles every bound policy once, as the server's policy source
// does (policySource.calculatePolicyData), in the order of their names.
func (s *Set) build() {
	byPolicy := map[string][]*admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	for _, b := range s.bindings {
		byPolicy[b.Spec.PolicyName] = append(byPolicy[b.Spec.PolicyName], b)
	}
	names := make([]string, 0, len(byPolicy))
	for name := range byPolicy {
		if _, ok := s.policies[name]; ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		p := s.policies[name]
		hook := validating.PolicyHook{Policy: p, Bindings: byPolicy[name], Evaluator: compilePolicy(p)}
		if pk := p.Spec.ParamKind; pk != nil {
			gv, err := schema.ParseGroupVersion(pk.APIVersion)
			params := s.params[gv.WithKind(pk.Kind)]
			switch {
			case err != nil:
				hook.ConfigurationError = fmt.Errorf("failed to parse paramKind APIVersion: %w", err)
			case len(params) == 0:
				// No object of the kind is in sight: the server would find
				// its resource (a ConfigMap always), and no object in it.
				hook.ParamInformer = newParamInformer(nil, schema.GroupResource{Group: gv.Group})
				hook.ParamScope = meta.RESTScopeNamespace
			default:
				hook.ParamInformer = newParamInformer(params, schema.GroupResource{Group: gv.Group, Resource: params[0].Resource})
				hook.ParamScope = meta.RESTScopeRoot
				if params[0].Namespaced {
					hook.ParamScope = meta.RESTScopeNamespace
				}
			}
		}
		s.hooks = append(s.hooks, hook)
	}
	matcher := matching.NewMatcher(corelisters.NewNamespaceLister(s.namespaces), nil)
	s.dispatcher = validating.NewDispatcher(nil, generic.NewPolicyMatcher(matcher))
}

// compilePolicy mirrors compilePolicy in
// k8s.io/apiserver/pkg/admission/plugin/policy/validating (unexported): the
// variables, matchConditions, validations, audit annotations and message
// expressions compiled in one composited environment with the strict cost.
func compilePolicy(policy *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	hasParam := policy.Spec.ParamKind != nil
	optionalVars := cel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: true}
	expressionOptionalVars := cel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: false}
	failurePolicy := policy.Spec.FailurePolicy
	filterCompiler, err := cel.NewCompositedCompiler(compositionEnv())
	if err != nil {
		return validating.NewValidator(nil, nil, nil, nil, failurePolicy, err)
	}
	variables := make([]cel.NamedExpressionAccessor, len(policy.Spec.Variables))
	for i, v := range policy.Spec.Variables {
		variables[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	filterCompiler.CompileAndStoreVariables(variables, optionalVars, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if mcs := policy.Spec.MatchConditions; len(mcs) > 0 {
		accessors := make([]cel.ExpressionAccessor, len(mcs))
		for i := range mcs {
			accessors[i] = (*matchconditions.MatchCondition)(&mcs[i])
		}
		matcher = matchconditions.NewMatcher(filterCompiler.CompileCondition(accessors, optionalVars, environment.StoredExpressions),
			failurePolicy, "policy", "validate", policy.Name)
	}
	validations := make([]cel.ExpressionAccessor, len(policy.Spec.Validations))
	messages := make([]cel.ExpressionAccessor, len(policy.Spec.Validations))
	for i, v := range policy.Spec.Validations {
		validations[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			messages[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	audits := make([]cel.ExpressionAccessor, len(policy.Spec.AuditAnnotations))
	for i, a := range policy.Spec.AuditAnnotations {
		audits[i] = &validating.AuditAnnotationCondition{Key: a.Key, ValueExpression: a.ValueExpression}
	}
	return validating.NewValidator(
		filterCompiler.CompileCondition(validations, optionalVars, environment.StoredExpressions),
		matcher,
		filterCompiler.CompileCondition(audits, optionalVars, environment.StoredExpressions),
		filterCompiler.CompileCondition(messages, expressionOptionalVars, environment.StoredExpressions),
		failurePolicy,
		nil,
	)
}

// compositionEnv mirrors getCompositionEnvTemplateWithStrictCost in the
// same package: the base environment of the default compatibility version.
var compositionEnv = sync.OnceValue(func() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
})

// Request is one object sent to the API server.
type Request struct {
	// Object is the object as validating admission sees it (versioned,
	// defaulted); Old the stored one of an update, else nil.
	Object, Old *unstructured.Unstructured
	// Resource is its REST resource (deployments); Namespace the request's,
	// "" for a cluster-scoped kind.
	Resource  string
	Namespace string
}

// Verdict is what the policies decide about one request.
type Verdict struct {
	// Denied is the server's message when a Deny action refuses the object.
	Denied string
	// Warnings are the Warn actions' messages, as kubectl prints them.
	Warnings []string
	// Audits are the Audit actions' failures (the audit annotation
	// validation.policy.admission.k8s.io/validation_failure).
	Audits []string
}

// Admit runs the policies on one request, as the API server's validating
// admission does on a create (Old nil) or an update.
func (s *Set) Admit(ctx context.Context, req Request) (v Verdict, err error) {
	s.once.Do(s.build)
	if len(s.hooks) == 0 {
		return Verdict{}, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validating admission policies failed inside the embedded API server code: %v", r)
		}
	}()
	gvk := req.Object.GroupVersionKind()
	op := admission.Create
	var opts runtime.Object = &metav1.CreateOptions{}
	var old runtime.Object
	if req.Old != nil {
		op, opts, old = admission.Update, &metav1.UpdateOptions{}, req.Old
	}
	if req.Namespace != "" {
		if _, ok, _ := s.namespaces.GetByKey(req.Namespace); !ok {
			// A namespace the run knows nothing of: the server's own label.
			s.addMissingNamespace(req.Namespace)
		}
	}
	attr := &annotated{Attributes: admission.NewAttributesRecord(req.Object, old, gvk, req.Namespace, req.Object.GetName(),
		gvk.GroupVersion().WithResource(req.Resource), "", op, opts, false, &user.DefaultInfo{Name: "kubectl-workload"})}
	recorder := &warnings{}
	ctx = warning.WithWarningRecorder(ctx, recorder)
	o := admission.NewObjectInterfacesFromScheme(unstructuredScheme)
	derr := s.dispatcher.Dispatch(ctx, attr, o, s.hooks)
	v.Warnings = recorder.list
	v.Audits = attr.failures
	if derr != nil {
		var status apierrors.APIStatus
		if errors.As(derr, &status) {
			v.Denied = status.Status().Message
		} else {
			v.Denied = derr.Error()
		}
	}
	return v, nil
}

// annotated records the audit annotations the dispatcher adds: the
// validation failures of Audit actions.
type annotated struct {
	admission.Attributes
	failures []string
}

// auditFailureKey is the audit annotation of the Audit actions' failures
// (validating.publishValidationFailureAnnotations).
const auditFailureKey = "validation.policy.admission.k8s.io/validation_failure"

func (a *annotated) AddAnnotation(key, value string) error {
	if key == auditFailureKey {
		a.failures = append(a.failures, value)
	}
	return nil
}

func (a *annotated) AddAnnotationWithLevel(key, value string, _ auditinternal.Level) error {
	return a.AddAnnotation(key, value)
}

var nsMu sync.Mutex

func (s *Set) addMissingNamespace(name string) {
	nsMu.Lock()
	defer nsMu.Unlock()
	if _, ok, _ := s.namespaces.GetByKey(name); !ok {
		s.AddNamespace(name, nil)
	}
}

// warnings records what the dispatcher warns (warning.Recorder).
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) AddWarning(agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// unstructuredScheme is an empty scheme: the objects are Unstructured, of
// the kind the policies match, so nothing is converted.
var unstructuredScheme = runtime.NewScheme()

// paramInformer serves params from memory to generic.CollectParams, which
// reads them through an informer's lister.
type paramInformer struct {
	indexer  cache.Indexer
	resource schema.GroupResource
}

func newParamInformer(params []Param, gr schema.GroupResource) informers.GenericInformer {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, p := range params {
		_ = idx.Add(p.Object)
	}
	return &paramInformer{indexer: idx, resource: gr}
}

func (p *paramInformer) Informer() cache.SharedIndexInformer { return syncedInformer{} }
func (p *paramInformer) Lister() cache.GenericLister {
	return cache.NewGenericLister(p.indexer, p.resource)
}

// syncedInformer is an informer that has synced: the only method
// CollectParams calls.
type syncedInformer struct{ cache.SharedIndexInformer }

func (syncedInformer) HasSynced() bool { return true }

// Describe renders a Verdict's denial without the object prefix, for
// messages: the server's text as kubectl prints it.
func Describe(v Verdict) string { return strings.TrimSpace(v.Denied) }
