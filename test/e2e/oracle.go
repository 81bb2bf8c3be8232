package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"
)

// Cause is one reason the API server gave for rejecting an object.
type Cause struct {
	Type    string `json:"type,omitempty"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Verdict is the API server's answer to a dry-run create of one object.
type Verdict struct {
	// Rejected is true when the server (or kubectl, before sending) refused the object.
	Rejected bool `json:"rejected"`
	// Fields are the rejected field paths, sorted and unique. A rejection that names no
	// field (a decode error, for example) contributes "".
	Fields []string `json:"fields"`
	// Causes are the server's causes as given, or one synthesized cause for a rejection
	// that carries none.
	Causes []Cause `json:"causes,omitempty"`
	// Code and Reason are the HTTP status code and metav1.StatusReason of a rejection.
	Code   int32  `json:"code,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Message is the server's message for a rejection.
	Message string `json:"message,omitempty"`
	// Warnings are the server's Warning headers, accepted or not.
	Warnings []string `json:"warnings,omitempty"`
}

// ReasonClientSide marks a Verdict for an object kubectl itself would refuse to send (no
// kind, a kind the server does not serve, or a document that is not YAML).
const ReasonClientSide = "ClientSide"

// Oracle asks a real API server whether it would accept an object, the way
// `kubectl apply --dry-run=server` asks for an object that does not exist yet: a POST with
// dryRun=All and fieldValidation=Strict whose body is the document converted to JSON.
type Oracle struct {
	config *rest.Config
	mapper meta.RESTMapper
}

// NewOracle discovers the cluster's resources and returns an Oracle for it.
func (c *Cluster) NewOracle(ctx context.Context) (*Oracle, error) {
	cfg := c.RESTConfig()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("oracle: discovery client: %w", err)
	}
	groups, err := restmapper.GetAPIGroupResourcesWithContext(ctx, dc)
	if err != nil {
		return nil, fmt.Errorf("oracle: discover API resources: %w", err)
	}
	return &Oracle{config: cfg, mapper: restmapper.NewDiscoveryRESTMapper(groups)}, nil
}

// strictFieldRE matches the paths in a strict-decoding error, for example
// `strict decoding error: unknown field "spec.replcias", duplicate field "metadata.name"`.
var strictFieldRE = regexp.MustCompile(`(?:unknown|duplicate) field "([^"]*)"`)

// DryRunCreate sends one YAML document to the API server as a dry-run create in the
// object's namespace (or "default") and returns the server's verdict. An error means the
// question could not be asked (connection, client setup), not that the object is invalid.
func (o *Oracle) DryRunCreate(ctx context.Context, doc []byte) (Verdict, error) {
	body, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return clientSide("error converting YAML to JSON: " + err.Error()), nil
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		// kubectl decodes the type metadata loosely; a document whose apiVersion, kind or
		// namespace is not a string never reaches the server.
		return clientSide("error decoding object type: " + err.Error()), nil
	}
	if head.APIVersion == "" || head.Kind == "" {
		return clientSide("Object 'Kind' or 'apiVersion' is missing"), nil
	}
	gv, err := schema.ParseGroupVersion(head.APIVersion)
	if err != nil {
		return clientSide(err.Error()), nil
	}
	gvk := gv.WithKind(head.Kind)
	mapping, err := o.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return clientSide(fmt.Sprintf("no matches for kind %q in version %q", gvk.Kind, gv.String())), nil
	}

	cfg := rest.CopyConfig(o.config)
	mappedGV := mapping.GroupVersionKind.GroupVersion()
	cfg.GroupVersion = &mappedGV
	cfg.APIPath = "/apis"
	if cfg.GroupVersion.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	client, err := rest.RESTClientFor(cfg)
	if err != nil {
		return Verdict{}, fmt.Errorf("oracle: REST client for %s: %w", cfg.GroupVersion, err)
	}
	req := client.Post().Resource(mapping.Resource.Resource).
		Param("dryRun", metav1.DryRunAll).
		Param("fieldValidation", metav1.FieldValidationStrict).
		Param("fieldManager", "kubectl-client-side-apply").
		SetHeader("Content-Type", "application/json").
		Body(body)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := head.Metadata.Namespace
		if ns == "" {
			ns = "default"
		}
		req = req.Namespace(ns)
	}
	res := req.Do(ctx)
	var v Verdict
	for _, w := range res.Warnings() {
		v.Warnings = append(v.Warnings, w.Text)
	}
	err = res.Error()
	if err == nil {
		v.Fields = []string{}
		return v, nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return Verdict{}, fmt.Errorf("oracle: dry-run create %s: %w", gvk, err)
	}
	st := status.Status()
	v.Rejected = true
	v.Code = st.Code
	v.Reason = string(st.Reason)
	v.Message = st.Message
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			v.Causes = append(v.Causes, Cause{Type: string(c.Type), Field: c.Field, Message: c.Message})
		}
	}
	if len(v.Causes) == 0 {
		if st.Reason == metav1.StatusReasonBadRequest && strings.Contains(st.Message, "strict decoding error") {
			for _, m := range strictFieldRE.FindAllStringSubmatch(st.Message, -1) {
				v.Causes = append(v.Causes, Cause{Type: "FieldValueUnknown", Field: m[1], Message: m[0]})
			}
		}
		if len(v.Causes) == 0 {
			v.Causes = []Cause{{Type: string(st.Reason), Field: "", Message: st.Message}}
		}
	}
	v.Fields = causeFields(v.Causes)
	return v, nil
}

func clientSide(msg string) Verdict {
	return Verdict{
		Rejected: true,
		Fields:   []string{""},
		Causes:   []Cause{{Type: ReasonClientSide, Field: "", Message: msg}},
		Reason:   ReasonClientSide,
		Message:  msg,
	}
}

// causeFields returns the sorted, unique field paths of causes.
func causeFields(causes []Cause) []string {
	fields := make([]string, 0, len(causes))
	for _, c := range causes {
		fields = append(fields, c.Field)
	}
	slices.Sort(fields)
	return slices.Compact(fields)
}
