package live

import (
	"context"
	"fmt"
	"strings"
	"time"

	apps "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// Kinds predict reads from a cluster.
var (
	deploymentsKind, _ = KindFor("apps", "Deployment")
	replicaSetsKind, _ = KindFor("apps", "ReplicaSet")
	podsKind, _        = KindFor("", "Pod")
)

// StateReader reads predict's starting states from the cluster of a Client, with get and list
// requests only (kernel.StateReader). For a Deployment: one get for the Deployment, one list
// of the ReplicaSets, one of the pods its selector matches and one of the namespace's
// HorizontalPodAutoscalers, so four requests (more only when a list has over 500 items). For a StatefulSet or DaemonSet: the object, its
// ControllerRevisions and its pods, for a StatefulSet the namespace's autoscalers, and for a
// DaemonSet the nodes. For a ReplicaSet or
// ReplicationController: see readScaleDown. A state's time is the clock's at the read.
type StateReader struct {
	c   *Client
	now func() time.Time
}

// NewStateReader reads states from c's cluster; now is the clock that dates them.
func NewStateReader(c *Client, now func() time.Time) *StateReader {
	return &StateReader{c: c, now: now}
}

// Source names the cluster: its kubeconfig context.
func (r *StateReader) Source() string { return fmt.Sprintf("context %q", r.c.Context) }

// ReadState reads the state of kind namespace/name; nil without an error when it does not
// exist.
func (r *StateReader) ReadState(ctx context.Context, kind kernel.Kind, namespace, name string) (*kernel.State, error) {
	c, now := r.c, r.now
	switch kind {
	case kernel.KindDeployment:
	case kernel.KindReplicaSet, kernel.KindReplicationController:
		return r.readScaleDown(ctx, kind, namespace, name)
	default:
		return r.readSet(ctx, kind, namespace, name)
	}
	d, err := getAs[apps.Deployment](ctx, c, deploymentsKind, namespace, name)
	if d == nil || err != nil {
		return nil, err
	}
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("context %q: deployment %s/%s: selector: %w", c.Context, namespace, name, err)
	}
	state := &kernel.State{Deployments: []*apps.Deployment{d}, Now: now(), Source: r.Source()}
	if state.ReplicaSets, err = listSelected[apps.ReplicaSet](ctx, c, replicaSetsKind, namespace, selector.String()); err != nil {
		return nil, err
	}
	if state.Pods, err = listSelected[v1.Pod](ctx, c, podsKind, namespace, selector.String()); err != nil {
		return nil, err
	}
	if err := withAutoscalers(ctx, c, state, namespace); err != nil {
		return nil, err
	}
	return state, nil
}

// autoscalersKind addresses autoscaling/v2 HorizontalPodAutoscalers.
var autoscalersKind, _ = KindFor("autoscaling", "HorizontalPodAutoscaler")

// withAutoscalers adds to state the HorizontalPodAutoscalers of namespace (one list request),
// which say whether an autoscaler owns a workload's replica count. A user who may not list
// them gets the state without, and state.AutoscalersUnread says so.
func withAutoscalers(ctx context.Context, c *Client, state *kernel.State, namespace string) error {
	us, skip, err := c.ListOptional(ctx, namespace, autoscalersKind, "predict cannot tell whether a HorizontalPodAutoscaler owns the replica count")
	if err != nil {
		return err
	}
	if skip != nil {
		state.AutoscalersUnread = skip.Message
		return nil
	}
	for _, u := range us {
		hpa := new(autoscalingv2.HorizontalPodAutoscaler)
		if err := fromUnstructured(u, hpa); err != nil {
			return fmt.Errorf("context %q: HorizontalPodAutoscaler %s/%s: %w", c.Context, u.GetNamespace(), u.GetName(), err)
		}
		state.Autoscalers = append(state.Autoscalers, hpa)
	}
	return nil
}

func fromUnstructured(u *unstructured.Unstructured, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
}

// listSelected lists the objects of kind k in namespace that selector matches (namespace ""
// and selector "" for every node) and decodes them as T.
func listSelected[T any](ctx context.Context, c *Client, k Kind, namespace, selector string) ([]*T, error) {
	var us []*unstructured.Unstructured
	var err error
	if namespace == "" {
		us, err = c.List(ctx, "", []Kind{k})
	} else {
		us, err = c.ListSelected(ctx, k, namespace, selector)
	}
	if err != nil {
		return nil, err
	}
	out := make([]*T, 0, len(us))
	for _, u := range us {
		obj := new(T)
		if err := fromUnstructured(u, obj); err != nil {
			return nil, fmt.Errorf("context %q: %s %s: %w", c.Context, k.GVK.Kind, u.GetNamespace()+"/"+u.GetName(), err)
		}
		out = append(out, obj)
	}
	return out, nil
}

// controllerRevisionsKind addresses apps/v1 ControllerRevisions, the history of StatefulSets
// and DaemonSets.
var controllerRevisionsKind = Kind{
	GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "controllerrevisions"},
	GVK: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ControllerRevision"},
}

// readSet reads a StatefulSet or DaemonSet, its ControllerRevisions, the pods its selector
// matches, and for a DaemonSet every node.
func (r *StateReader) readSet(ctx context.Context, kind kernel.Kind, namespace, name string) (*kernel.State, error) {
	c := r.c
	k, ok := KindFor("apps", string(kind))
	if !ok {
		return nil, fmt.Errorf("predict reads Deployments, StatefulSets and DaemonSets, not %s", kind)
	}
	state := &kernel.State{Now: r.now(), Source: r.Source()}
	var selector *metav1.LabelSelector
	switch kind {
	case kernel.KindStatefulSet:
		ss, err := getAs[apps.StatefulSet](ctx, c, k, namespace, name)
		if ss == nil || err != nil {
			return nil, err
		}
		state.StatefulSets, selector = append(state.StatefulSets, ss), ss.Spec.Selector
		if err := withAutoscalers(ctx, c, state, namespace); err != nil {
			return nil, err
		}
	case kernel.KindDaemonSet:
		ds, err := getAs[apps.DaemonSet](ctx, c, k, namespace, name)
		if ds == nil || err != nil {
			return nil, err
		}
		state.DaemonSets, selector = append(state.DaemonSets, ds), ds.Spec.Selector
		if state.Nodes, err = listSelected[v1.Node](ctx, c, NodesKind, "", ""); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("predict reads Deployments, StatefulSets and DaemonSets, not %s", kind)
	}
	// The history --undo rolls back to: the controller labels its revisions with the selector's
	// labels.
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return nil, fmt.Errorf("context %q: %s %s/%s: selector: %w", c.Context, strings.ToLower(string(kind)), namespace, name, err)
	}
	if state.ControllerRevisions, err = listSelected[apps.ControllerRevision](ctx, c, controllerRevisionsKind, namespace, sel.String()); err != nil {
		return nil, err
	}
	return withPods(ctx, c, state, kind, namespace, name, selector)
}

// getAs reads one object of kind k and decodes it as T; nil without an error when it does not
// exist.
func getAs[T any](ctx context.Context, c *Client, k Kind, namespace, name string) (*T, error) {
	u, err := c.Get(ctx, k, namespace, name)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	obj := new(T)
	if err := fromUnstructured(u, obj); err != nil {
		return nil, fmt.Errorf("context %q: %s %s/%s: %w", c.Context, k.GVK.Kind, namespace, name, err)
	}
	return obj, nil
}

// withPods adds to state the pods of namespace that the selector of the kind/name object
// matches: one list request.
func withPods(ctx context.Context, c *Client, state *kernel.State, kind kernel.Kind, namespace, name string, selector *metav1.LabelSelector) (*kernel.State, error) {
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return nil, fmt.Errorf("context %q: %s %s/%s: selector: %w", c.Context, kind, namespace, name, err)
	}
	if state.Pods, err = listSelected[v1.Pod](ctx, c, podsKind, namespace, sel.String()); err != nil {
		return nil, err
	}
	return state, nil
}

// readScaleDown reads a ReplicaSet or ReplicationController and the pods its selector
// matches: one get and one list. A ReplicaSet controlled by a Deployment is read with that
// Deployment, its ReplicaSets and their pods instead (one get more), because the pods of every
// ReplicaSet of the Deployment count toward colocation in the deletion order.
func (r *StateReader) readScaleDown(ctx context.Context, kind kernel.Kind, namespace, name string) (*kernel.State, error) {
	c := r.c
	group := "apps"
	if kind == kernel.KindReplicationController {
		group = ""
	}
	k, ok := KindFor(group, string(kind))
	if !ok {
		return nil, fmt.Errorf("predict reads ReplicaSets and ReplicationControllers, not %s", kind)
	}
	state := &kernel.State{Now: r.now(), Source: r.Source()}
	var selector *metav1.LabelSelector
	switch kind {
	case kernel.KindReplicaSet:
		rs, err := getAs[apps.ReplicaSet](ctx, c, k, namespace, name)
		if rs == nil || err != nil {
			return nil, err
		}
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" {
			withDeployment, err := r.ReadState(ctx, kernel.KindDeployment, namespace, ref.Name)
			if err != nil {
				return nil, err
			}
			if withDeployment != nil {
				for _, o := range withDeployment.ReplicaSets {
					if o.Name == rs.Name {
						return withDeployment, nil
					}
				}
			}
		}
		state.ReplicaSets, selector = append(state.ReplicaSets, rs), rs.Spec.Selector
	default:
		rc, err := getAs[v1.ReplicationController](ctx, c, k, namespace, name)
		if rc == nil || err != nil {
			return nil, err
		}
		selector = &metav1.LabelSelector{MatchLabels: rc.Spec.Selector}
	}
	return withPods(ctx, c, state, kind, namespace, name, selector)
}
