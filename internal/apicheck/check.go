// Package apicheck runs, offline, what the Kubernetes v1.37 API server runs
// when it is asked to create a workload: strict decoding, defaulting,
// conversion to the internal type, the registry strategy's PrepareForCreate,
// its Validate (hand-written and declarative) and the common object-metadata
// checks, then WarningsOnCreate. The messages are the API server's own,
// because the code is the API server's own.
package apicheck

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/capabilities"
)

// Rule ids of the API tier. Field errors take theirs from the error type.
const (
	RuleUnknownField   = "api/unknown-field"
	RuleDecode         = "api/decode"
	RuleRemovedVersion = "api/removed-version"
	RuleUnknownVersion = "api/unknown-version"
	RuleUnknownKind    = "api/unknown-kind"
	RuleWarning        = "api/warning"
	RuleInternal       = "api/internal"
)

// ruleByType maps each field.ErrorType to its rule id.
var ruleByType = map[field.ErrorType]string{
	field.ErrorTypeNotFound:     "api/not-found",
	field.ErrorTypeRequired:     "api/required",
	field.ErrorTypeDuplicate:    "api/duplicate",
	field.ErrorTypeInvalid:      "api/invalid",
	field.ErrorTypeNotSupported: "api/not-supported",
	field.ErrorTypeForbidden:    "api/forbidden",
	field.ErrorTypeTooLong:      "api/too-long",
	field.ErrorTypeTooMany:      "api/too-many",
	field.ErrorTypeInternal:     RuleInternal,
	field.ErrorTypeTypeInvalid:  "api/type-invalid",
}

// Rules lists every rule id the API tier can report, sorted.
func Rules() []string {
	ids := []string{RuleUnknownField, RuleDecode, RuleRemovedVersion, RuleUnknownVersion, RuleUnknownKind, RuleWarning, RuleCRDMissing}
	for _, id := range ruleByType {
		ids = append(ids, id)
	}
	return sortedUnique(ids)
}

// Issue is one thing the API server would say about an object.
type Issue struct {
	// Rule is the rule id: api/invalid, api/required, api/unknown-field, ...
	Rule string
	// Warning is true for what the server accepts with a warning
	// (WarningsOnCreate); false for what it rejects.
	Warning bool
	// Field is the field path in the API server's notation, "" for the object.
	Field string
	// Message is the API server's text for this issue.
	Message string
	// Loose is set on api/decode issues: Field is then the path as Go's JSON
	// decoder names it, without list indices and with embedded struct names
	// ("spec.volumes.VolumeSource.fc.lun"), and ValueType is the JSON type it
	// met there ("string"). manifest.Object.ResolveLoose finds the real field.
	Loose     bool
	ValueType string
}

// Object is the input: an object's apiVersion, kind, name, namespace and its
// JSON exactly as kubectl would send it.
type Object struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	JSON       []byte
}

// Options tune the checks.
type Options struct {
	// Namespace is the request namespace for objects that name none, as
	// kubectl takes it from -n or the context; "default" when empty.
	Namespace string
	// Written asks Check for Result.Written, a copy of the object as
	// decoded, for the callers that read it.
	Written bool
}

// Result is what Check found.
type Result struct {
	// Checked is false when the kind is not one the API tier validates
	// (a Service, a CRD); Issues may still hold api/removed-version.
	Checked bool
	Issues  []Issue
	// Versioned is the decoded and defaulted object (apps/v1 Deployment, ...),
	// nil when it did not decode. Predict starts from it.
	Versioned runtime.Object
	// Written is the object Check decoded from Object.JSON, before
	// defaulting (a copy taken then: Versioned's type, with a field the
	// JSON leaves out nil or zero), when Options.Written asks for it; nil
	// when Versioned is nil. CheckUpdate,
	// whose new object may be what kubectl apply computes rather than the
	// manifest, leaves it nil.
	Written runtime.Object
}

// Checker runs the API tier. It is safe for concurrent use.
type Checker struct {
	decoder runtime.Decoder
}

// New returns a Checker. Privileged containers are allowed, as on clusters
// built by kubeadm and on the managed offerings (kube-apiserver
// --allow-privileged=true); the library's own default would reject them.
func New() *Checker {
	// capabilities is process-wide upstream state, set once per binary.
	capabilities.Setup(true, 0)
	return &Checker{
		// headerMetaFactory reads the kind as json.DefaultMetaFactory does,
		// without a second full decode of the object.
		decoder: json.NewSerializerWithOptions(headerMetaFactory{}, legacyscheme.Scheme, legacyscheme.Scheme,
			json.SerializerOptions{Strict: true}),
	}
}

// fixedUID stands in for the UID the API server generates, so that messages
// that quote generated values (a Job's selector) are the same on every run.
const fixedUID = types.UID("00000000-0000-4000-8000-000000000000")

// Check runs the API server's create path on obj and reports what it would
// reject or warn about. It never panics: a panic inside upstream code becomes
// an api/internal issue.
func (c *Checker) Check(ctx context.Context, obj Object, opts Options) (res Result) {
	gv, err := schema.ParseGroupVersion(obj.APIVersion)
	if err != nil {
		return Result{Issues: []Issue{{Rule: RuleUnknownVersion, Field: "apiVersion",
			Message: fmt.Sprintf("apiVersion: Invalid value: %q: %v", obj.APIVersion, err)}}}
	}
	gvk := gv.WithKind(obj.Kind)
	k, ok := kinds[gvk]
	if !ok {
		if in, repl, removed := Removed(obj.APIVersion, obj.Kind); removed {
			return Result{Issues: []Issue{{Rule: RuleRemovedVersion, Field: "apiVersion",
				Message: fmt.Sprintf("no matches for kind %q in version %q: it was removed in Kubernetes %s; use %s",
					obj.Kind, obj.APIVersion, in, repl)}}}
		}
		if served, known := servedVersion(obj.Kind); known {
			return Result{Issues: []Issue{{Rule: RuleUnknownVersion, Field: "apiVersion",
				Message: fmt.Sprintf("no matches for kind %q in version %q: use %s", obj.Kind, obj.APIVersion, served)}}}
		}
		if msg, unknown := unknownKind(gvk); unknown {
			return Result{Issues: []Issue{{Rule: RuleUnknownKind, Field: "kind", Message: msg}}}
		}
		return Result{}
	}
	res.Checked = true
	defer func() {
		if r := recover(); r != nil {
			res.Issues = append(res.Issues, Issue{Rule: RuleInternal,
				Message: fmt.Sprintf("validation of %s failed inside the embedded API server code: %v", obj.Kind, r)})
		}
	}()

	// 1. Decode, strictly: the API server's fieldValidation=Strict, which
	// kubectl asks for by default. The server stops at decoding errors.
	versioned, _, err := c.decoder.Decode(obj.JSON, nil, nil)
	err = withoutDuplicateFields(err)
	if err != nil {
		prefix := fmt.Sprintf("%s in version %q cannot be handled as a %s: ", gvk.Kind, gvk.Version, gvk.Kind)
		if strict, ok := runtime.AsStrictDecodingError(err); ok && versioned != nil {
			for _, e := range strict.Errors() {
				res.Issues = append(res.Issues, Issue{Rule: RuleUnknownField, Field: strictField(e.Error()),
					Message: prefix + "strict decoding error: " + e.Error()})
			}
			return res
		}
		loose, valueType := decodeField(err.Error())
		res.Issues = append(res.Issues, Issue{Rule: RuleDecode, Field: loose, Loose: loose != "", ValueType: valueType,
			Message: prefix + err.Error()})
		return res
	}

	// 2. Default, then convert to the internal type. The object as written
	// is kept first: copying it is a fraction of decoding the JSON again,
	// which the rules that read what the manifest left out would do.
	var written runtime.Object
	if opts.Written {
		written = versioned.DeepCopyObject()
	}
	legacyscheme.Scheme.Default(versioned)
	res.Versioned, res.Written = versioned, written
	internal := k.internal()
	if err := legacyscheme.Scheme.Convert(versioned.DeepCopyObject(), internal, nil); err != nil {
		res.Issues = append(res.Issues, Issue{Rule: RuleInternal, Message: fmt.Sprintf("convert %s to the internal version: %v", gvk.Kind, err)})
		return res
	}

	// 3. What the generic registry store does before BeforeCreate: system
	// fields, the generated name, and the request's namespace.
	accessor, err := meta.Accessor(internal)
	if err != nil {
		res.Issues = append(res.Issues, Issue{Rule: RuleInternal, Message: fmt.Sprintf("read %s metadata: %v", gvk.Kind, err)})
		return res
	}
	accessor.SetUID(fixedUID)
	accessor.SetCreationTimestamp(metav1.NewTime(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)))
	if accessor.GetName() == "" && accessor.GetGenerateName() != "" {
		accessor.SetName(generateName(accessor.GetGenerateName()))
	}
	ns := k.namespace(accessor.GetNamespace(), opts)
	// rest.BeforeCreate: the object's namespace must be the request's
	// (kubectl sends it to the object's own), or none for a cluster-scoped
	// kind, whose namespace the server drops.
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(ns, accessor); err != nil {
		res.Issues = append(res.Issues, Issue{Rule: RuleInternal, Message: fmt.Sprintf("%s namespace: %v", gvk.Kind, err)})
		return res
	}
	ctx = genericapirequest.WithNamespace(ctx, ns)
	ctx = genericapirequest.WithRequestInfo(ctx, requestInfo(gvk, k.resource, "create", ns, accessor.GetName()))

	if begin := beginCreate[gvk.GroupKind()]; begin != nil {
		if errs := begin(internal); len(errs) > 0 {
			for _, e := range errs {
				res.Issues = append(res.Issues, fieldIssue(e))
			}
			return res
		}
	}
	// 4. rest.BeforeCreate's checks, in its order.
	k.strategy.PrepareForCreate(ctx, internal)
	if errs := rest.ValidateCreate(ctx, internal, k.strategy); len(errs) > 0 {
		for _, e := range errs {
			res.Issues = append(res.Issues, fieldIssue(e))
		}
		return res
	}
	for _, w := range k.strategy.WarningsOnCreate(ctx, internal) {
		res.Issues = append(res.Issues, Issue{Rule: RuleWarning, Warning: true, Field: warningField(w), Message: w})
	}
	return res
}

// fieldIssue turns one field.Error into an Issue with the API server's text.
func fieldIssue(e *field.Error) Issue {
	rule, ok := ruleByType[e.Type]
	if !ok {
		rule = RuleInternal
	}
	f := e.Field
	if f == "<nil>" {
		f = ""
	}
	return Issue{Rule: rule, Field: f, Message: e.Error()}
}

// generateName mirrors names.SimpleNameGenerator (k8s.io/apiserver/pkg/storage/names)
// with a fixed suffix in place of its five random characters, so that output
// is deterministic: the base is cut to 58 characters, as upstream cuts it.
func generateName(base string) string {
	const maxGeneratedNameLength = 63 - 5
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	return base + "xxxxx"
}

var (
	strictFieldRe = regexp.MustCompile(`^(?:unknown|duplicate) field "([^"]*)"`)
	decodeFieldRe = regexp.MustCompile(`cannot unmarshal (\w+).* into Go struct field [A-Za-z0-9_]+\.(\S+) of type`)
	warningRe     = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.\[\]/-]*): `)
)

// withoutDuplicateFields drops the "duplicate field" errors from a strict
// decoding error, and returns nil when no other is left. The API server
// never sees a duplicate key from kubectl: kubectl decodes each document
// into an unstructured object (for JSON input too: the resource builder's
// StreamVisitor, then unstructured.UnstructuredJSONScheme, which keeps the
// last value) and sends that object encoded again, and its own client-side
// NoDoubleKeySchema runs only against a server without field validation.
// So a duplicate key in a manifest is input/duplicate-key, found on the
// document, not a strict decoding error of the server.
func withoutDuplicateFields(err error) error {
	strict, ok := runtime.AsStrictDecodingError(err)
	if !ok {
		return err
	}
	var kept []error
	for _, e := range strict.Errors() {
		if !strings.HasPrefix(e.Error(), "duplicate field ") {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return runtime.NewStrictDecodingError(kept)
}

// strictField extracts the path from a strict decoding error such as
// `unknown field "spec.replcias"`.
func strictField(msg string) string {
	if m := strictFieldRe.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

// decodeField extracts the path and the JSON value's type from a JSON type
// error such as "json: cannot unmarshal string into Go struct field
// DeploymentSpec.spec.replicas of type int32".
func decodeField(msg string) (path, valueType string) {
	if m := decodeFieldRe.FindStringSubmatch(msg); m != nil {
		return m[2], m[1]
	}
	return "", ""
}

// warningField extracts the leading field path of a warning such as
// "spec.template.spec.containers[0].ports[0]: hostPort ...".
func warningField(msg string) string {
	m := warningRe.FindStringSubmatch(msg)
	if m == nil || !strings.ContainsAny(m[1], ".[") {
		return ""
	}
	return m[1]
}
