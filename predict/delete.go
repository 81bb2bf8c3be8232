package predict

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/garbagecollector"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// DeleteRequest is what a delete prediction needs, as plain values.
type DeleteRequest struct {
	// Files are the objects: manifests or dumps ("-" is Stdin). Without files, the cluster is
	// read through the client Delete is given (list requests in the namespace only).
	Files []string
	Stdin io.Reader
	// Targets are the objects deleted (ParseDeleteTargets), each predicted from the objects
	// as they are before the command.
	Targets []DeleteTarget
	// Cascade is kubectl delete's --cascade: background (when empty), foreground or orphan.
	Cascade string
	// Namespace is -n; empty: the client's namespace live, default from files.
	Namespace string
}

// DeleteTarget is an object named to delete.
type DeleteTarget struct {
	GVK  schema.GroupVersionKind
	Name string
}

// DeletePlan is a delete prediction: one garbage collector plan per target, and what the
// prediction went on without.
type DeletePlan struct {
	Plans    []*garbagecollector.Plan
	Warnings []string
}

// deleteKinds are the kinds a delete prediction reads, by the names kubectl accepts.
var deleteKinds = map[string]schema.GroupVersionKind{
	"deployment": {Group: "apps", Version: "v1", Kind: "Deployment"}, "deploy": {Group: "apps", Version: "v1", Kind: "Deployment"},
	"replicaset": {Group: "apps", Version: "v1", Kind: "ReplicaSet"}, "rs": {Group: "apps", Version: "v1", Kind: "ReplicaSet"},
	"statefulset": {Group: "apps", Version: "v1", Kind: "StatefulSet"}, "sts": {Group: "apps", Version: "v1", Kind: "StatefulSet"},
	"daemonset": {Group: "apps", Version: "v1", Kind: "DaemonSet"}, "ds": {Group: "apps", Version: "v1", Kind: "DaemonSet"},
	"job":     {Group: "batch", Version: "v1", Kind: "Job"},
	"cronjob": {Group: "batch", Version: "v1", Kind: "CronJob"}, "cj": {Group: "batch", Version: "v1", Kind: "CronJob"},
	"replicationcontroller": {Version: "v1", Kind: "ReplicationController"}, "rc": {Version: "v1", Kind: "ReplicationController"},
	"pod": {Version: "v1", Kind: "Pod"}, "po": {Version: "v1", Kind: "Pod"},
	"persistentvolumeclaim": {Version: "v1", Kind: "PersistentVolumeClaim"}, "pvc": {Version: "v1", Kind: "PersistentVolumeClaim"},
}

// deleteResources are the resources of the kinds in deleteKinds.
var deleteResources = map[string]string{"Deployment": "deployments", "ReplicaSet": "replicasets", "StatefulSet": "statefulsets",
	"DaemonSet": "daemonsets", "Job": "jobs", "CronJob": "cronjobs", "ReplicationController": "replicationcontrollers",
	"Pod": "pods", "PersistentVolumeClaim": "persistentvolumeclaims"}

// ParseDeleteTargets reads kubectl delete's forms: TYPE/NAME..., or TYPE NAME... (one type,
// several names).
func ParseDeleteTargets(args []string) ([]DeleteTarget, error) {
	kinds, names, err := deleteTargets(args)
	targets := make([]DeleteTarget, len(kinds))
	for i := range kinds {
		targets[i] = DeleteTarget{GVK: kinds[i], Name: names[i]}
	}
	return targets, err
}

// deleteTargets reads ParseDeleteTargets' forms into kinds and names.
func deleteTargets(args []string) ([]schema.GroupVersionKind, []string, error) {
	if len(args) == 0 {
		return nil, nil, errors.New("name an object: TYPE/NAME, TYPE NAME, or several names")
	}
	kindOf := func(typ string) (schema.GroupVersionKind, bool) {
		gvk, ok := deleteKinds[strings.ToLower(strings.TrimSuffix(strings.SplitN(typ, ".", 2)[0], "s"))]
		if !ok {
			gvk, ok = deleteKinds[strings.ToLower(strings.SplitN(typ, ".", 2)[0])]
		}
		return gvk, ok
	}
	const want = "want deployment, replicaset, statefulset, daemonset, job, cronjob, replicationcontroller, pod or persistentvolumeclaim and a name"
	var kinds []schema.GroupVersionKind
	var names []string
	if !strings.Contains(args[0], "/") {
		// TYPE NAME...: every other argument a name, as kubectl takes them.
		gvk, ok := kindOf(args[0])
		if !ok {
			return nil, nil, fmt.Errorf("%s: %s", args[0], want)
		}
		if len(args) == 1 {
			return nil, nil, fmt.Errorf("%s: name the object: TYPE NAME or TYPE/NAME", args[0])
		}
		for _, n := range args[1:] {
			if n == "" || strings.Contains(n, "/") {
				return nil, nil, fmt.Errorf("%s: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form", n)
			}
			kinds, names = append(kinds, gvk), append(names, n)
		}
		return kinds, names, nil
	}
	for _, a := range args {
		typ, name, slash := strings.Cut(a, "/")
		gvk, ok := kindOf(typ)
		if !slash || !ok || name == "" {
			return nil, nil, fmt.Errorf("%s: %s (TYPE/NAME)", a, want)
		}
		kinds, names = append(kinds, gvk), append(names, name)
	}
	return kinds, names, nil
}

// Delete predicts kubectl delete of req.Targets: one plan per target, each from the objects
// as they are before the command. Without req.Files it reads the cluster through c (list
// requests only). With an error, the DeletePlan, when not nil, holds the warnings taken
// before it.
func Delete(ctx context.Context, req DeleteRequest, c *live.Client) (*DeletePlan, error) {
	cascade := req.Cascade
	if cascade == "" {
		cascade = garbagecollector.Background
	}
	var objs []*unstructured.Unstructured
	ns := req.Namespace
	res := &DeletePlan{}
	if len(req.Files) == 0 {
		if c == nil {
			return nil, errors.New("a live delete prediction needs the cluster")
		}
		if ns == "" {
			ns = c.Namespace
		}
		var kinds []live.Kind
		for _, k := range []string{"deployment", "replicaset", "statefulset", "daemonset", "job", "cronjob", "replicationcontroller", "pod"} {
			gvk := deleteKinds[k]
			kinds = append(kinds, live.Kind{GVK: gvk, GVR: gvk.GroupVersion().WithResource(deleteResources[gvk.Kind])})
		}
		var err error
		if objs, err = c.List(ctx, ns, kinds); err != nil {
			return nil, err
		}
		// Claims are not among the kinds lint's read-only role grants: without them the
		// StatefulSets' claims are derived from their templates.
		pvc := deleteKinds["pvc"]
		claims, err := c.List(ctx, ns, []live.Kind{{GVK: pvc, GVR: pvc.GroupVersion().WithResource("persistentvolumeclaims")}})
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("claims not read, derived from the StatefulSets' templates: %v", err))
		}
		objs = append(objs, claims...)
	} else {
		if ns == "" {
			ns = "default"
		}
		set := manifest.Load(req.Files, req.Stdin)
		if err := problemsError(set); err != nil {
			return nil, err
		}
		for _, obj := range set.Objects {
			u := &unstructured.Unstructured{}
			if err := json.Unmarshal(obj.JSON, &u.Object); err != nil {
				return nil, fmt.Errorf("%s: document %d: decode %s %s: %w", obj.File, obj.Document, obj.Kind, obj.Name, err)
			}
			if _, known := deleteResources[u.GetKind()]; !known {
				continue
			}
			if u.GetNamespace() == "" {
				u.SetNamespace("default")
			}
			objs = append(objs, u)
		}
	}
	for _, t := range req.Targets {
		plan, err := garbagecollector.Delete(objs, t.GVK.Kind+"/"+ns+"/"+t.Name, cascade)
		if err != nil {
			return res, withNamespaceHint(err, objs, t.GVK.Kind, ns, t.Name)
		}
		res.Plans = append(res.Plans, plan)
	}
	return res, nil
}

// withNamespaceHint adds to a not-found error the namespaces of the input that hold an object
// of that kind and name: without -n, kubectl looks in one namespace only.
func withNamespaceHint(err error, objs []*unstructured.Unstructured, kind, ns, name string) error {
	var others []string
	for _, u := range objs {
		if u.GetKind() == kind && u.GetName() == name && u.GetNamespace() != ns && !slices.Contains(others, u.GetNamespace()) {
			others = append(others, u.GetNamespace())
		}
	}
	if len(others) == 0 {
		return err
	}
	sort.Strings(others)
	return fmt.Errorf("%w in namespace %s; the input has %s %s in namespace %s: add -n %s", err, ns, strings.ToLower(kind), name, strings.Join(others, ", "), others[0])
}
