package plugin

import (
	"context"
	"fmt"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-workload/kubectl-workload/live"
	"github.com/kubectl-workload/kubectl-workload/predict"
)

// Kinds predict reads from a cluster.
var (
	deploymentsKind, _ = live.KindFor("apps", "Deployment")
	replicaSetsKind, _ = live.KindFor("apps", "ReplicaSet")
	podsKind, _        = live.KindFor("", "Pod")
)

// liveFetcher returns predict's Fetch for the cluster of c: one get for the Deployment, one
// list of the ReplicaSets and one of the pods its selector matches, so three requests (more
// only when a list has over 500 items). The state's time is the local clock at the read.
func liveFetcher(c *live.Client, now func() time.Time) func(ctx context.Context, namespace, name string) (*predict.State, error) {
	return func(ctx context.Context, namespace, name string) (*predict.State, error) {
		u, err := c.Get(ctx, deploymentsKind, namespace, name)
		if live.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		d := &apps.Deployment{}
		if err := fromUnstructured(u, d); err != nil {
			return nil, fmt.Errorf("context %q: deployment %s/%s: %w", c.Context, namespace, name, err)
		}
		selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			return nil, fmt.Errorf("context %q: deployment %s/%s: selector: %w", c.Context, namespace, name, err)
		}
		state := &predict.State{Deployments: []*apps.Deployment{d}, Now: now(),
			Source: fmt.Sprintf("context %q", c.Context)}
		rsList, err := c.ListSelected(ctx, replicaSetsKind, namespace, selector.String())
		if err != nil {
			return nil, err
		}
		for _, u := range rsList {
			rs := &apps.ReplicaSet{}
			if err := fromUnstructured(u, rs); err != nil {
				return nil, fmt.Errorf("context %q: replica set %s/%s: %w", c.Context, namespace, u.GetName(), err)
			}
			state.ReplicaSets = append(state.ReplicaSets, rs)
		}
		pods, err := c.ListSelected(ctx, podsKind, namespace, selector.String())
		if err != nil {
			return nil, err
		}
		for _, u := range pods {
			p := &v1.Pod{}
			if err := fromUnstructured(u, p); err != nil {
				return nil, fmt.Errorf("context %q: pod %s/%s: %w", c.Context, namespace, u.GetName(), err)
			}
			state.Pods = append(state.Pods, p)
		}
		return state, nil
	}
}

func fromUnstructured(u *unstructured.Unstructured, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
}
