package drain

import (
	"context"
	"sort"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// stateClient answers the two reads kubectl drain's GetPodsForDeletion makes (a pod list by
// node and label selector, a DaemonSet get for the DaemonSet filter) from the simulated
// cluster, so that upstream's filters and their messages decide what a drain evicts. Every
// other method is the nil interface's: calling one panics, which a test would show.
type stateClient struct {
	kubernetes.Interface
	// pods lists the pods not removed on a node, or on every node when all.
	pods       func(node string, all bool) []*v1.Pod
	daemonSets []*apps.DaemonSet
}

func (c stateClient) CoreV1() corev1client.CoreV1Interface { return coreClient{c: c} }
func (c stateClient) AppsV1() appsv1client.AppsV1Interface { return appsClient{c: c} }

type coreClient struct {
	corev1client.CoreV1Interface
	c stateClient
}

func (c coreClient) Pods(namespace string) corev1client.PodInterface {
	return podClient{c: c.c, namespace: namespace}
}

type podClient struct {
	corev1client.PodInterface
	c         stateClient
	namespace string
}

// List filters by namespace, label selector and field selector (spec.nodeName), in the API
// server's order: namespace, then name.
func (p podClient) List(_ context.Context, opts metav1.ListOptions) (*v1.PodList, error) {
	ls, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, err
	}
	fs, err := fields.ParseSelector(opts.FieldSelector)
	if err != nil {
		return nil, err
	}
	list := &v1.PodList{}
	node, one := fs.RequiresExactMatch("spec.nodeName")
	for _, pod := range p.c.pods(node, !one) {
		if p.namespace != "" && pod.Namespace != p.namespace {
			continue
		}
		if !ls.Matches(labels.Set(pod.Labels)) || !fs.Matches(fields.Set{"spec.nodeName": pod.Spec.NodeName}) {
			continue
		}
		list.Items = append(list.Items, *pod.DeepCopy())
	}
	sort.SliceStable(list.Items, func(i, j int) bool {
		if list.Items[i].Namespace != list.Items[j].Namespace {
			return list.Items[i].Namespace < list.Items[j].Namespace
		}
		return list.Items[i].Name < list.Items[j].Name
	})
	return list, nil
}

type appsClient struct {
	appsv1client.AppsV1Interface
	c stateClient
}

func (a appsClient) DaemonSets(namespace string) appsv1client.DaemonSetInterface {
	return dsClient{c: a.c, namespace: namespace}
}

type dsClient struct {
	appsv1client.DaemonSetInterface
	c         stateClient
	namespace string
}

// Get returns the DaemonSet, or the API server's NotFound error.
func (d dsClient) Get(_ context.Context, name string, _ metav1.GetOptions) (*apps.DaemonSet, error) {
	for _, ds := range d.c.daemonSets {
		if ds.Namespace == d.namespace && ds.Name == name {
			return ds.DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(apps.Resource("daemonsets"), name)
}
