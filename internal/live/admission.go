package live

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The cluster-scoped kinds lint --against-live reads to check the files as
// the API server would: the CustomResourceDefinitions of the files' custom
// resources, and the ValidatingAdmissionPolicies and their bindings.
var (
	CRDKind     = kind("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition")
	PolicyKind  = kind("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", "ValidatingAdmissionPolicy")
	BindingKind = kind("admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding")
)

// CustomKind is the Kind of a custom resource, from its CRD's group,
// version, plural and kind.
func CustomKind(group, version, plural, kindName string) Kind {
	return kind(group, version, plural, kindName)
}

// ListOptional lists every object of kind k in namespace ("" for all, or
// for a cluster-scoped kind). When the user may not list it (forbidden:
// Kubernetes' view role grants neither CRDs nor admission policies), it
// returns no object and a Skip whose message says what the run goes on
// without; any other error stops the run.
func (c *Client) ListOptional(ctx context.Context, namespace string, k Kind, without string) ([]*unstructured.Unstructured, *Skip, error) {
	objs, err := c.List(ctx, namespace, []Kind{k})
	var le *Error
	if err != nil && errors.As(err, &le) && le.Reason == Forbidden {
		where := ""
		if namespace != "" {
			where = inNamespace(namespace)
		}
		return nil, &Skip{Kind: k, Message: fmt.Sprintf("context %q: the user may not list %s%s (forbidden), so %s",
			c.Context, resourceName(k.GVR), where, without)}, nil
	}
	return objs, nil, err
}

// KindOf returns the Kind the cluster serves gvk as (its resource, by
// discovery, as the API server's admission finds a policy's paramKind),
// and whether it is namespaced.
func (c *Client) KindOf(gvk schema.GroupVersionKind) (Kind, bool, error) {
	var mapping *meta.RESTMapping
	err := c.within(func() error {
		m, err := c.bounded.ToRESTMapper()
		if err != nil {
			return err
		}
		mapping, err = m.RESTMapping(gvk.GroupKind(), gvk.Version)
		return err
	})
	if err != nil {
		return Kind{}, false, c.Explain(err, "find the resource of "+gvk.String())
	}
	return Kind{GVR: mapping.Resource, GVK: gvk}, mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}
