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
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/garbagecollector"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/predict/report"
)

// DeleteShort is the one-line help of `kubectl workload predict delete`.
const DeleteShort = "Show what kubectl delete TYPE/NAME --cascade takes with it, in what order, and what comes back"

// DeleteHelp is the long help of `kubectl workload predict delete`.
const DeleteHelp = `Predict kubectl delete TYPE/NAME --cascade=background|foreground|orphan: the
garbage collector's walk over ownerReferences (pkg/controller/garbagecollector).

  background  the object goes at once, then its dependents, level by level
  foreground  the dependents go first; the owner waits with the foregroundDeletion
              finalizer for every dependent whose reference has blockOwnerDeletion
  orphan      the dependents lose their ownerReference to the object and stay

A dependent with another owner still there only loses its reference; an object
with a finalizer of its own waits for it (and, under background, so do its
dependents). What the remaining owners' controllers recreate is listed: a
ReplicaSet deleted under its Deployment comes back under the same name (and
adopts the pods it orphaned), pods deleted under a live ReplicaSet, StatefulSet,
DaemonSet or Job are replaced. A StatefulSet's PersistentVolumeClaims go or stay
as its persistentVolumeClaimRetentionPolicy.whenDeleted says.

The objects come from -f (manifests or a dump: kubectl get
deploy,rs,sts,ds,rc,jobs,cronjobs,pods,pvc -o yaml); without -f, from the
cluster, read-only (list requests in the object's namespace). Only these kinds'
dependents are followed.

Exit status: 0 with a plan; 2 for usage or tool errors.`

// DeleteExample is the example of `kubectl workload predict delete`.
const DeleteExample = `  # What does deleting the Deployment take with it, dependents first?
  kubectl workload predict delete deployment/web --cascade foreground -f plugin/testdata/predict/delete-cluster.yaml

  # The same from the cluster (read-only)
  kubectl workload predict delete replicaset/web-7d4b9c5f6d --cascade orphan`

// DeleteOptions are the flags of `kubectl workload predict delete`.
type DeleteOptions struct {
	// Filenames are -f: files, directories, dumps.
	Filenames []string
	Cascade   string
	Output    string
	// Namespace is -n; empty: the kubeconfig's namespace live, default from files.
	Namespace string
	// Getter reaches the cluster when there are no files (live mode).
	Getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
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

// deleteTargets reads kubectl delete's forms: TYPE/NAME..., or TYPE NAME... (one type, several
// names), into kinds and names.
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

// Delete predicts kubectl delete of the objects named by args (TYPE/NAME..., TYPE NAME...) as
// o asks, reading the cluster (list only) when there are no files, and writes one plan per
// object, each from the objects as they are before the command.
func Delete(ctx context.Context, o DeleteOptions, args []string) error {
	kinds, names, err := deleteTargets(args)
	if err != nil {
		return err
	}
	if o.Output != "text" && o.Output != "json" && o.Output != "" {
		return fmt.Errorf("-o %s: want text or json", o.Output)
	}
	if o.Cascade == "" {
		o.Cascade = garbagecollector.Background
	}
	var objs []*unstructured.Unstructured
	ns := o.Namespace
	if len(o.Filenames) == 0 {
		if o.Getter == nil {
			return errors.New("a live delete prediction needs the cluster")
		}
		c, err := live.Connect(ctx, o.Getter, func(msg string) { fmt.Fprintf(o.ErrOut, "warning: %s\n", msg) })
		if err != nil {
			return err
		}
		if ns == "" {
			ns = c.Namespace
		}
		var kinds []live.Kind
		for _, k := range []string{"deployment", "replicaset", "statefulset", "daemonset", "job", "cronjob", "replicationcontroller", "pod"} {
			gvk := deleteKinds[k]
			kinds = append(kinds, live.Kind{GVK: gvk, GVR: gvk.GroupVersion().WithResource(deleteResources[gvk.Kind])})
		}
		if objs, err = c.List(ctx, ns, kinds); err != nil {
			return err
		}
		// Claims are not among the kinds lint's read-only role grants: without them the
		// StatefulSets' claims are derived from their templates.
		pvc := deleteKinds["pvc"]
		claims, err := c.List(ctx, ns, []live.Kind{{GVK: pvc, GVR: pvc.GroupVersion().WithResource("persistentvolumeclaims")}})
		if err != nil {
			fmt.Fprintf(o.ErrOut, "warning: claims not read, derived from the StatefulSets' templates: %v\n", err)
		}
		objs = append(objs, claims...)
	} else {
		if ns == "" {
			ns = "default"
		}
		set := manifest.Load(o.Filenames, o.In)
		if len(set.Problems) > 0 {
			var errs []error
			for _, p := range set.Problems {
				errs = append(errs, fmt.Errorf("%s:%d:%d: %s", p.File, p.Pos.Line, p.Pos.Column, p.Message))
			}
			return errors.Join(errs...)
		}
		for _, obj := range set.Objects {
			u := &unstructured.Unstructured{}
			if err := json.Unmarshal(obj.JSON, &u.Object); err != nil {
				return fmt.Errorf("%s: document %d: decode %s %s: %w", obj.File, obj.Document, obj.Kind, obj.Name, err)
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
	var plans []*garbagecollector.Plan
	for i, gvk := range kinds {
		target := gvk.Kind + "/" + ns + "/" + names[i]
		plan, err := garbagecollector.Delete(objs, target, o.Cascade)
		if err != nil {
			return withNamespaceHint(err, objs, gvk.Kind, ns, names[i])
		}
		plans = append(plans, plan)
	}
	if o.Output == "json" {
		return report.DeleteJSON(o.Out, plans...)
	}
	for i, plan := range plans {
		if i > 0 {
			if _, err := io.WriteString(o.Out, "\n"); err != nil {
				return err
			}
		}
		if err := report.DeleteText(o.Out, plan); err != nil {
			return err
		}
	}
	return nil
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
