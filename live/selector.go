package live

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"
)

// NodesKind is the cluster's nodes, which a DaemonSet prediction reads.
var NodesKind = kind("", "v1", "nodes", "Node")

// ListSelected lists the objects of kind k in namespace whose labels match selector (a label
// selector in its string form), with one list request per 500 objects, sorted by name. It is
// how predict reads a Deployment's ReplicaSets and pods without listing the whole namespace.
func (c *Client) ListSelected(ctx context.Context, k Kind, namespace, selector string) ([]*unstructured.Unstructured, error) {
	ri := c.dynamic.Resource(k.GVR).Namespace(namespace)
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return ri.List(ctx, opts)
	})
	var items []*unstructured.Unstructured
	err := p.EachListItem(ctx, metav1.ListOptions{LabelSelector: selector}, func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("unexpected %T in a list of %s", obj, k.GVR.Resource)
		}
		u.SetAPIVersion(k.GVK.GroupVersion().String())
		u.SetKind(k.GVK.Kind)
		items = append(items, u)
		return nil
	})
	if err != nil {
		return nil, c.Explain(err, fmt.Sprintf("list %s matching %q%s", resourceName(k.GVR), selector, inNamespace(namespace)))
	}
	return items, nil
}
