// Package live reads workloads from a running cluster for lint and predict,
// with get and list requests only: it never writes, and never watches.
//
// A Client is built from the plugin's one genericclioptions.RESTClientGetter
// (--kubeconfig, --context, -n, ... and the client-go auth plugins), so it
// talks to the cluster exactly as kubectl would. Every error it returns is
// one line that names the kubeconfig context, and the object or resource
// when there is one; none carries credentials.
package live

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/pager"

	// The client-go credential plugins (OIDC; exec is built in), as kubectl
	// links them.
	_ "k8s.io/client-go/plugin/pkg/client/auth"
)

// Kind is one resource the live mode reads.
type Kind struct {
	// GVR is what the requests address; GVK what the objects are.
	GVR schema.GroupVersionResource
	GVK schema.GroupVersionKind
}

func kind(group, version, res, k string) Kind {
	return Kind{GVR: schema.GroupVersionResource{Group: group, Version: version, Resource: res},
		GVK: schema.GroupVersionKind{Group: group, Version: version, Kind: k}}
}

// Workloads are the kinds lint validates, in the versions v1.37 serves.
var Workloads = []Kind{
	kind("apps", "v1", "deployments", "Deployment"),
	kind("apps", "v1", "replicasets", "ReplicaSet"),
	kind("apps", "v1", "statefulsets", "StatefulSet"),
	kind("apps", "v1", "daemonsets", "DaemonSet"),
	kind("batch", "v1", "jobs", "Job"),
	kind("batch", "v1", "cronjobs", "CronJob"),
	kind("", "v1", "replicationcontrollers", "ReplicationController"),
	kind("", "v1", "pods", "Pod"),
	kind("", "v1", "podtemplates", "PodTemplate"),
}

// Related are the kinds the cross-resource rules read beside workloads.
var Related = []Kind{
	kind("", "v1", "services", "Service"),
	kind("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget"),
	kind("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler"),
}

// ContextOnly reports whether lint reads kind k only as context for the
// cross-resource rules, so that a run can go on without it when the user
// may not list it: PodTemplates (which run no pod, and which Kubernetes'
// built-in view role does not grant), Services, PodDisruptionBudgets and
// HorizontalPodAutoscalers. Objects the user names are required whatever
// their kind.
func ContextOnly(k Kind) bool {
	switch k.GVK.GroupKind() {
	case schema.GroupKind{Kind: "PodTemplate"}, schema.GroupKind{Kind: "Service"},
		schema.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"},
		schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:
		return true
	}
	return false
}

// AllKinds returns Workloads then Related: every kind lint reads, and so
// every resource the read-only RBAC role must allow get and list on.
func AllKinds() []Kind {
	return append(append([]Kind{}, Workloads...), Related...)
}

// KindFor returns the Kind of a group and kind name, among AllKinds.
func KindFor(group, kindName string) (Kind, bool) {
	for _, k := range AllKinds() {
		if k.GVK.Group == group && k.GVK.Kind == kindName {
			return k, true
		}
	}
	return Kind{}, false
}

// Client reads a cluster with get and list requests.
type Client struct {
	getter genericclioptions.RESTClientGetter
	// bounded is getter with the bounds of bounds.go; cfg its REST
	// configuration.
	bounded *boundedGetter
	cfg     *rest.Config
	dynamic dynamic.Interface
	// secrets are the credentials of the kubeconfig user, scrubbed from
	// every message in case a library quotes them.
	secrets []string

	// Context is the kubeconfig context in use (--context, else the current
	// one), as messages and source names give it.
	Context string
	// Namespace is the namespace commands use when given none: -n, else the
	// context's, else "default", as kubectl takes it.
	Namespace string
	// Server is the API server's URL.
	Server string
	// Progress, when set, is told what List is about to list ("deployments in shop"), so
	// that a run reading a dozen kinds shows it is alive (see package progress).
	Progress func(listing string)
}

// New builds a Client. It reads the kubeconfig but sends no request.
func New(getter genericclioptions.RESTClientGetter) (*Client, error) {
	loader := getter.ToRawKubeConfigLoader()
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig: %w", err)
	}
	c := &Client{getter: getter, Context: raw.CurrentContext}
	if cf, ok := getter.(*genericclioptions.ConfigFlags); ok && cf.Context != nil && *cf.Context != "" {
		c.Context = *cf.Context
	}
	ns, _, err := loader.Namespace()
	if err != nil {
		return nil, fmt.Errorf("context %q: namespace: %w", c.Context, err)
	}
	c.Namespace = ns
	cfg, err := getter.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("context %q: %s", c.Context, oneLine(err.Error()))
	}
	c.Server = cfg.Host
	bound(cfg)
	c.cfg = cfg
	if c.bounded, err = newBoundedGetter(getter, cfg); err != nil {
		return nil, fmt.Errorf("context %q: client: %s", c.Context, oneLine(err.Error()))
	}
	for _, s := range []string{cfg.BearerToken, cfg.Password, string(cfg.KeyData)} {
		if s != "" {
			c.secrets = append(c.secrets, s)
		}
	}
	if c.dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("context %q: client: %s", c.Context, oneLine(err.Error()))
	}
	return c, nil
}

// Getter returns the RESTClientGetter the Client was built from, for
// callers that need other clients (predict's watches).
func (c *Client) Getter() genericclioptions.RESTClientGetter { return c.getter }

// List lists every object of the given kinds in namespace ("" for all
// namespaces), with list requests only (chunked, 500 per page), and returns
// them sorted by kind order, namespace and name.
func (c *Client) List(ctx context.Context, namespace string, kinds []Kind) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, k := range kinds {
		var ri dynamic.ResourceInterface = c.dynamic.Resource(k.GVR)
		if namespace != "" {
			ri = c.dynamic.Resource(k.GVR).Namespace(namespace)
		}
		if c.Progress != nil {
			c.Progress(resourceName(k.GVR) + inNamespace(namespace))
		}
		var items []*unstructured.Unstructured
		err := c.within(func() (err error) {
			items, err = listPaged(ctx, ri, k, metav1.ListOptions{})
			return err
		})
		if err != nil {
			return nil, c.Explain(err, "list "+resourceName(k.GVR)+inNamespace(namespace))
		}
		sort.SliceStable(items, func(i, j int) bool {
			if items[i].GetNamespace() != items[j].GetNamespace() {
				return items[i].GetNamespace() < items[j].GetNamespace()
			}
			return items[i].GetName() < items[j].GetName()
		})
		out = append(out, items...)
	}
	return out, nil
}

// Skip is a kind a run went on without, because the user may not list it.
type Skip struct {
	Kind Kind
	// Message is one line naming the context, the kind and the permission
	// missing, for standard error.
	Message string
}

// ListContext is List for a run that reads kinds as context: a kind that
// ContextOnly reports and that the server forbids the user to list is
// left out, and returned among the skips, once per kind (later namespaces
// are not asked again). Any other error stops the list, as in List.
// Objects come namespace by namespace, each namespace in List's order.
func (c *Client) ListContext(ctx context.Context, namespaces []string, kinds []Kind) ([]*unstructured.Unstructured, []Skip, error) {
	var out []*unstructured.Unstructured
	var skips []Skip
	forbidden := map[schema.GroupVersionResource]bool{}
	for _, ns := range namespaces {
		for _, k := range kinds {
			if forbidden[k.GVR] {
				continue
			}
			objs, err := c.List(ctx, ns, []Kind{k})
			var le *Error
			if err != nil && ContextOnly(k) && errors.As(err, &le) && le.Reason == Forbidden {
				forbidden[k.GVR] = true
				skips = append(skips, Skip{Kind: k, Message: fmt.Sprintf(
					"context %q: %ss skipped: the user may not list %s%s (forbidden), so the cross-resource rules run without them",
					c.Context, k.GVK.Kind, resourceName(k.GVR), inNamespace(ns))})
				continue
			}
			if err != nil {
				return nil, nil, err
			}
			out = append(out, objs...)
		}
	}
	return out, skips, nil
}

// listPaged lists every item of kind k through ri, 500 per page (the pager's default chunk),
// with opts (a label selector), and sets each item's apiVersion and kind, which list items
// lack.
func listPaged(ctx context.Context, ri dynamic.ResourceInterface, k Kind, opts metav1.ListOptions) ([]*unstructured.Unstructured, error) {
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		list, err := ri.List(ctx, opts)
		if err == nil && opts.Limit > 0 && int64(len(list.Items)) > maxPageFactor*opts.Limit {
			return nil, fmt.Errorf("list %s: the server sent a page of %d items where %d were asked for", k.GVR.Resource, len(list.Items), opts.Limit)
		}
		return list, err
	})
	var items []*unstructured.Unstructured
	err := p.EachListItem(ctx, opts, func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("unexpected %T in a list of %s", obj, k.GVR.Resource)
		}
		u.SetAPIVersion(k.GVK.GroupVersion().String())
		u.SetKind(k.GVK.Kind)
		items = append(items, u)
		return nil
	})
	return items, err
}

// Get reads one object. A missing object is an error for which IsNotFound
// is true; its message names the context and the object.
func (c *Client) Get(ctx context.Context, k Kind, namespace, name string) (*unstructured.Unstructured, error) {
	var u *unstructured.Unstructured
	err := c.within(func() (err error) {
		u, err = c.dynamic.Resource(k.GVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		return err
	})
	if err != nil {
		return nil, c.Explain(err, fmt.Sprintf("get %s %q%s", resourceName(k.GVR), name, inNamespace(namespace)))
	}
	u.SetAPIVersion(k.GVK.GroupVersion().String())
	u.SetKind(k.GVK.Kind)
	return u, nil
}

// Resolve reads the objects named by kubectl-style arguments (TYPE/NAME,
// TYPE NAME..., or TYPE alone for every object of that type) through
// cli-runtime's resource builder, as kubectl get resolves them: a name is a
// get, a type a list. namespace "" means the Client's; allNamespaces lists
// across namespaces.
func (c *Client) Resolve(ctx context.Context, namespace string, allNamespaces bool, args []string) ([]*unstructured.Unstructured, error) {
	if namespace == "" {
		namespace = c.Namespace
	}
	var infos []*resource.Info
	err := c.within(func() error {
		r := resource.NewBuilder(c.bounded).
			Unstructured().
			NamespaceParam(namespace).DefaultNamespace().AllNamespaces(allNamespaces).
			ResourceTypeOrNameArgs(true, args...).
			RequestChunksOf(500).
			Flatten().
			Do()
		if err := r.Err(); err != nil {
			return c.Explain(err, "resolve "+strings.Join(args, " "))
		}
		var err error
		if infos, err = r.Infos(); err != nil {
			return c.Explain(err, "get "+strings.Join(args, " ")+inNamespace(namespace))
		}
		return nil
	})
	if err != nil {
		return nil, c.Explain(err, "get "+strings.Join(args, " ")+inNamespace(namespace))
	}
	var out []*unstructured.Unstructured
	for _, info := range infos {
		u, ok := info.Object.(*unstructured.Unstructured)
		if !ok {
			return nil, fmt.Errorf("context %q: %s %s: unexpected %T", c.Context, info.Mapping.Resource.Resource, info.Name, info.Object)
		}
		out = append(out, u)
	}
	return out, nil
}

func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}

func inNamespace(ns string) string {
	if ns == "" {
		return " in all namespaces"
	}
	return fmt.Sprintf(" in namespace %q", ns)
}

// namespaces is the Kind of Namespaces, read only for their labels.
var namespaceKind = kind("", "v1", "namespaces", "Namespace")

// NamespaceLabels reads the labels of the named Namespaces (get requests
// only; a Namespace is cluster-scoped, but the API server authorizes a get
// of namespaces/NAME in namespace NAME, so a RoleBinding of view in that
// namespace allows it). A Namespace that does not exist is left out. One the
// user may not get is left out too, and returned among the skips: lint then
// applies no Pod Security labels to its pods. Any other error stops the
// reads.
func (c *Client) NamespaceLabels(ctx context.Context, names []string) (map[string]map[string]string, []Skip, error) {
	out := map[string]map[string]string{}
	var skips []Skip
	for _, name := range names {
		u, err := c.dynamic.Resource(namespaceKind.GVR).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			err = c.Explain(err, fmt.Sprintf("get namespaces %q", name))
			var le *Error
			switch {
			case errors.As(err, &le) && le.Reason == NotFound:
				continue
			case errors.As(err, &le) && le.Reason == Forbidden:
				skips = append(skips, Skip{Kind: namespaceKind, Message: fmt.Sprintf(
					"context %q: the Pod Security labels of namespace %q skipped: the user may not get namespaces %q (forbidden), so its pods are checked as if it had none",
					c.Context, name, name)})
				continue
			}
			return nil, nil, err
		}
		out[name] = u.GetLabels()
	}
	return out, skips, nil
}
