package live

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// NodesKind is the cluster's nodes, which a DaemonSet prediction reads.
var NodesKind = kind("", "v1", "nodes", "Node")

// ListSelected lists the objects of kind k in namespace whose labels match selector (a label
// selector in its string form), with one list request per 500 objects, in the API server's
// order (by name within a namespace). It is
// how predict reads a Deployment's ReplicaSets and pods without listing the whole namespace.
func (c *Client) ListSelected(ctx context.Context, k Kind, namespace, selector string) ([]*unstructured.Unstructured, error) {
	items, err := listPaged(ctx, c.dynamic.Resource(k.GVR).Namespace(namespace), k, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, c.Explain(err, fmt.Sprintf("list %s matching %q%s", resourceName(k.GVR), selector, inNamespace(namespace)))
	}
	return items, nil
}
