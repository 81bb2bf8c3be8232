package apicheck

import (
	// CronJob timeZone validation loads zones; kube-apiserver embeds the
	// database the same way, so results do not depend on the host.
	_ "time/tzdata"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"

	// The API groups' types, defaults and conversions, registered in
	// legacyscheme.Scheme as the API server registers them.
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
)

// kind is one workload kind the API tier validates.
type kind struct {
	// resource is the REST resource, as the request info names it.
	resource string
	strategy rest.RESTCreateStrategy
	internal func() runtime.Object
}

// kinds are the workload kinds whose create path is run, by the versions the
// v1.37 API server serves for them.
var kinds = map[schema.GroupVersionKind]kind{
	{Group: "apps", Version: "v1", Kind: "Deployment"}:  {"deployments", deployment.Strategy, func() runtime.Object { return &apps.Deployment{} }},
	{Group: "apps", Version: "v1", Kind: "ReplicaSet"}:  {"replicasets", replicaset.Strategy, func() runtime.Object { return &apps.ReplicaSet{} }},
	{Group: "apps", Version: "v1", Kind: "StatefulSet"}: {"statefulsets", statefulset.Strategy, func() runtime.Object { return &apps.StatefulSet{} }},
	{Group: "apps", Version: "v1", Kind: "DaemonSet"}:   {"daemonsets", daemonset.Strategy, func() runtime.Object { return &apps.DaemonSet{} }},
	{Group: "batch", Version: "v1", Kind: "Job"}:        {"jobs", job.Strategy, func() runtime.Object { return &batch.Job{} }},
	{Group: "batch", Version: "v1", Kind: "CronJob"}:    {"cronjobs", cronjob.Strategy, func() runtime.Object { return &batch.CronJob{} }},
	{Group: "", Version: "v1", Kind: "ReplicationController"}: {"replicationcontrollers", replicationcontroller.Strategy,
		func() runtime.Object { return &api.ReplicationController{} }},
	{Group: "", Version: "v1", Kind: "Pod"}:         {"pods", pod.Strategy, func() runtime.Object { return &api.Pod{} }},
	{Group: "", Version: "v1", Kind: "PodTemplate"}: {"podtemplates", podtemplate.Strategy, func() runtime.Object { return &api.PodTemplate{} }},
}

// Validated reports whether the API tier runs the API server's create path for
// objects of this apiVersion and kind.
func Validated(apiVersion, kindName string) bool {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return false
	}
	_, ok := kinds[gv.WithKind(kindName)]
	return ok
}

// removal says when an apiVersion stopped being served and what replaces it.
type removal struct {
	removedIn   string
	replacement string // an apiVersion, or advice when there is none
}

// removed lists apiVersions that Kubernetes once served and v1.37 does not,
// by group/version and kind. An empty kind stands for every kind of that
// version not listed on its own.
var removed = map[schema.GroupVersionKind]removal{
	{Group: "extensions", Version: "v1beta1", Kind: "Deployment"}:             {"v1.16", "apps/v1"},
	{Group: "extensions", Version: "v1beta1", Kind: "DaemonSet"}:              {"v1.16", "apps/v1"},
	{Group: "extensions", Version: "v1beta1", Kind: "ReplicaSet"}:             {"v1.16", "apps/v1"},
	{Group: "extensions", Version: "v1beta1", Kind: "NetworkPolicy"}:          {"v1.16", "networking.k8s.io/v1"},
	{Group: "extensions", Version: "v1beta1", Kind: "PodSecurityPolicy"}:      {"v1.16", "nothing: PodSecurityPolicy was removed in v1.25; use Pod Security Admission"},
	{Group: "extensions", Version: "v1beta1", Kind: "Ingress"}:                {"v1.22", "networking.k8s.io/v1"},
	{Group: "apps", Version: "v1beta1"}:                                       {"v1.16", "apps/v1"},
	{Group: "apps", Version: "v1beta2"}:                                       {"v1.16", "apps/v1"},
	{Group: "batch", Version: "v1beta1", Kind: "CronJob"}:                     {"v1.25", "batch/v1"},
	{Group: "batch", Version: "v2alpha1", Kind: "CronJob"}:                    {"v1.21", "batch/v1"},
	{Group: "networking.k8s.io", Version: "v1beta1"}:                          {"v1.22", "networking.k8s.io/v1"},
	{Group: "policy", Version: "v1beta1", Kind: "PodDisruptionBudget"}:        {"v1.25", "policy/v1"},
	{Group: "policy", Version: "v1beta1", Kind: "PodSecurityPolicy"}:          {"v1.25", "nothing: use Pod Security Admission"},
	{Group: "autoscaling", Version: "v2beta1"}:                                {"v1.25", "autoscaling/v2"},
	{Group: "autoscaling", Version: "v2beta2"}:                                {"v1.26", "autoscaling/v2"},
	{Group: "discovery.k8s.io", Version: "v1beta1"}:                           {"v1.25", "discovery.k8s.io/v1"},
	{Group: "events.k8s.io", Version: "v1beta1"}:                              {"v1.25", "events.k8s.io/v1"},
	{Group: "node.k8s.io", Version: "v1beta1"}:                                {"v1.25", "node.k8s.io/v1"},
	{Group: "rbac.authorization.k8s.io", Version: "v1beta1"}:                  {"v1.22", "rbac.authorization.k8s.io/v1"},
	{Group: "rbac.authorization.k8s.io", Version: "v1alpha1"}:                 {"v1.22", "rbac.authorization.k8s.io/v1"},
	{Group: "scheduling.k8s.io", Version: "v1beta1"}:                          {"v1.22", "scheduling.k8s.io/v1"},
	{Group: "storage.k8s.io", Version: "v1beta1", Kind: "CSIStorageCapacity"}: {"v1.27", "storage.k8s.io/v1"},
	{Group: "storage.k8s.io", Version: "v1beta1"}:                             {"v1.22", "storage.k8s.io/v1"},
	{Group: "apiextensions.k8s.io", Version: "v1beta1"}:                       {"v1.22", "apiextensions.k8s.io/v1"},
	{Group: "admissionregistration.k8s.io", Version: "v1beta1"}:               {"v1.22", "admissionregistration.k8s.io/v1"},
	{Group: "apiregistration.k8s.io", Version: "v1beta1"}:                     {"v1.22", "apiregistration.k8s.io/v1"},
	{Group: "certificates.k8s.io", Version: "v1beta1"}:                        {"v1.22", "certificates.k8s.io/v1"},
	{Group: "coordination.k8s.io", Version: "v1beta1"}:                        {"v1.22", "coordination.k8s.io/v1"},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta1"}:               {"v1.26", "flowcontrol.apiserver.k8s.io/v1"},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta2"}:               {"v1.29", "flowcontrol.apiserver.k8s.io/v1"},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta3"}:               {"v1.32", "flowcontrol.apiserver.k8s.io/v1"},
}

// Removed reports whether apiVersion/kind names a version v1.37 no longer
// serves, with the release that removed it and its replacement.
func Removed(apiVersion, kindName string) (removedIn, replacement string, ok bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return "", "", false
	}
	if r, ok := removed[gv.WithKind(kindName)]; ok {
		return r.removedIn, r.replacement, true
	}
	if r, ok := removed[gv.WithKind("")]; ok {
		return r.removedIn, r.replacement, true
	}
	return "", "", false
}

// servedVersion returns the apiVersion v1.37 serves for a workload kind, when
// kindName is one of the validated kinds.
func servedVersion(kindName string) (string, bool) {
	for gvk := range kinds {
		if gvk.Kind == kindName {
			return gvk.GroupVersion().String(), true
		}
	}
	return "", false
}

// unknownKind reports whether gvk is in an API group that Kubernetes itself
// serves (one client-go's scheme registers: core, apps, batch, policy, ...)
// while no version of that group registers the kind, as for "Deploymnet" in
// apps/v1 or "service" in v1. Groups the scheme does not know (CRDs,
// aggregated APIs) are never unknown: lint cannot see what they serve.
func unknownKind(gvk schema.GroupVersionKind) bool {
	if !clientscheme.Scheme.IsGroupRegistered(gvk.Group) {
		return false
	}
	for _, gv := range clientscheme.Scheme.PrioritizedVersionsForGroup(gvk.Group) {
		if clientscheme.Scheme.Recognizes(gv.WithKind(gvk.Kind)) {
			return false
		}
	}
	return !clientscheme.Scheme.Recognizes(gvk)
}
