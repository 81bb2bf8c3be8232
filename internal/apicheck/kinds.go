package apicheck

import (
	"fmt"
	"sort"
	"strings"

	// CronJob timeZone validation loads zones; kube-apiserver embeds the
	// database the same way, so results do not depend on the host.
	_ "time/tzdata"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	apiservice "k8s.io/kubernetes/pkg/api/service"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/apis/autoscaling"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/networking"
	"k8s.io/kubernetes/pkg/apis/policy"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/service/portallocator"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"

	// The API groups' types, defaults and conversions, registered in
	// legacyscheme.Scheme as the API server registers them.
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
)

// kind is one kind the API tier validates.
type kind struct {
	// resource is the REST resource, as the request info names it.
	resource string
	strategy rest.RESTCreateStrategy
	internal func() runtime.Object
}

// beginCreate is, by kind, what the kind's REST storage does to a new object
// before rest.BeforeCreate (its BeginCreate hook), where lint can do it. What
// it refuses is reported as the server reports it, before validation runs.
var beginCreate = map[schema.GroupKind]func(obj runtime.Object) field.ErrorList{
	{Group: "", Kind: "Service"}: beginServiceCreate,
}

// kinds are the kinds whose create path is run, by the versions the v1.37 API
// server serves for them: the workloads, and the objects that come with them.
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

	{Group: "", Version: "v1", Kind: "Service"}:        {"services", service.Strategy, func() runtime.Object { return &api.Service{} }},
	{Group: "", Version: "v1", Kind: "ConfigMap"}:      {"configmaps", configmap.Strategy, func() runtime.Object { return &api.ConfigMap{} }},
	{Group: "", Version: "v1", Kind: "Secret"}:         {"secrets", secret.Strategy, func() runtime.Object { return &api.Secret{} }},
	{Group: "", Version: "v1", Kind: "ServiceAccount"}: {"serviceaccounts", serviceaccount.Strategy, func() runtime.Object { return &api.ServiceAccount{} }},
	{Group: "", Version: "v1", Kind: "Namespace"}:      {"namespaces", namespace.Strategy, func() runtime.Object { return &api.Namespace{} }},
	{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"}: {"poddisruptionbudgets", poddisruptionbudget.Strategy,
		func() runtime.Object { return &policy.PodDisruptionBudget{} }},
	{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}: {"horizontalpodautoscalers", horizontalpodautoscaler.Strategy,
		func() runtime.Object { return &autoscaling.HorizontalPodAutoscaler{} }},
	{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}: {"horizontalpodautoscalers", horizontalpodautoscaler.Strategy,
		func() runtime.Object { return &autoscaling.HorizontalPodAutoscaler{} }},
	{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}: {"ingresses", ingress.Strategy,
		func() runtime.Object { return &networking.Ingress{} }},
	{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"}: {"networkpolicies", networkpolicy.Strategy,
		func() runtime.Object { return &networking.NetworkPolicy{} }},
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

// NamespaceScoped reports whether objects of apiVersion/kind live in a
// namespace; known is false for kinds the API tier does not validate.
func NamespaceScoped(apiVersion, kindName string) (scoped, known bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return false, false
	}
	k, ok := kinds[gv.WithKind(kindName)]
	if !ok {
		return false, false
	}
	return k.strategy.NamespaceScoped(), true
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

// servedVersion returns the apiVersion v1.37 serves for a validated kind, when
// kindName is one of them; the latest when it serves several
// (autoscaling/v2).
func servedVersion(kindName string) (string, bool) {
	served := ""
	for gvk := range kinds {
		if v := gvk.GroupVersion().String(); gvk.Kind == kindName && v > served {
			served = v
		}
	}
	return served, served != ""
}

// namespace is the request's namespace for an object of k written with ns:
// its own, else the one kubectl takes from -n or the context, else
// "default"; none for a cluster-scoped kind (a Namespace).
func (k kind) namespace(ns string, opts Options) string {
	if !k.strategy.NamespaceScoped() {
		return metav1.NamespaceNone
	}
	return requestNamespace(ns, opts)
}

// unknownKind returns what kubectl or the API server says about an object
// of kind gvk, when gvk is in an API group that Kubernetes itself serves
// (one client-go's scheme registers: core, apps, batch, policy, ...) and no
// version of that group registers the kind: kubectl's "no matches for kind
// "Deploymnet" in version "apps/v1"". A kind that is a served kind in lower
// case ("service") gets past kubectl, whose discovery RESTMapper also maps
// lower-case kinds (meta.NewDiscoveryRESTMapper), and the API server's
// decoder refuses it: "service in version "v1" cannot be handled as a
// Service: no kind "service" is registered ...". Groups the scheme does not
// know (CRDs, aggregated APIs) are never unknown: lint cannot see what they
// serve.
func unknownKind(gvk schema.GroupVersionKind) (string, bool) {
	sch := clientscheme.Scheme
	if !sch.IsGroupRegistered(gvk.Group) {
		return "", false
	}
	for _, gv := range sch.PrioritizedVersionsForGroup(gvk.Group) {
		if sch.Recognizes(gv.WithKind(gvk.Kind)) {
			return "", false
		}
	}
	if sch.Recognizes(gvk) {
		return "", false
	}
	if lower := strings.ToLower(gvk.Kind); lower == gvk.Kind {
		for served := range sch.KnownTypes(gvk.GroupVersion()) {
			if strings.ToLower(served) == lower {
				return fmt.Sprintf("%s in version %q cannot be handled as a %s: no kind %q is registered for version %q in scheme %q",
					gvk.Kind, gvk.Version, served, gvk.Kind, gvk.GroupVersion().String(), legacyscheme.Scheme.Name()), true
			}
		}
	}
	return fmt.Sprintf("no matches for kind %q in version %q", gvk.Kind, gvk.GroupVersion().String()), true
}

// normalizeClusterIPs mirrors the create half of normalizeClusterIPs
// (k8s.io/kubernetes/pkg/registry/core/service/storage), which the Service
// REST storage's beginCreate runs before validation: a Service that gives
// clusterIP alone (an older client, or "None" for a headless Service) gets
// it as clusterIPs too. The allocation that follows it needs the cluster's
// IP ranges, which lint does not know: an address outside them is not found.
func normalizeClusterIPs(svc *api.Service) {
	if len(svc.Spec.ClusterIP) > 0 && len(svc.Spec.ClusterIPs) == 0 {
		svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
	}
}

// beginServiceCreate is what the Service REST storage's beginCreate
// (k8s.io/kubernetes/pkg/registry/core/service/storage, REST.beginCreate)
// does before validation that lint can do: normalizeClusterIPs, then the
// node port half of Allocators.allocateCreate, as a dry run asks for it.
func beginServiceCreate(obj runtime.Object) field.ErrorList {
	svc, ok := obj.(*api.Service)
	if !ok {
		return nil
	}
	normalizeClusterIPs(svc)
	return allocNodePorts(svc)
}

// defaultNodePortRange is kube-apiserver's --service-node-port-range default.
var defaultNodePortRange = utilnet.PortRange{Base: 30000, Size: 2768}

// allocNodePorts mirrors Allocators.txnAllocNodePorts, initNodePorts and
// allocHealthCheckNodePort (k8s.io/kubernetes/pkg/registry/core/service/storage,
// alloc.go) on a dry run: a NodePort or LoadBalancer Service's ports get node
// ports (each port number one, a requested one kept), and a LoadBalancer with
// externalTrafficPolicy Local its healthCheckNodePort, so that validation,
// which requires them, finds them as the server's does. The allocation is
// upstream's PortAllocationOperation in dry-run mode, on an empty range as
// lint knows no other Service: a dry run checks a requested port only against
// the other ports of the same Service (not the range), and hands out 32769 and
// up, as the server's dry run does.
//
// Worked example: type LoadBalancer, ports 80 and 443 with no nodePort,
// externalTrafficPolicy Local: ports get 32769 and 32770, healthCheckNodePort
// 32771; validation then passes where it would say "healthCheckNodePort:
// Required value".
func allocNodePorts(svc *api.Service) field.ErrorList {
	if svc.Spec.Type != api.ServiceTypeNodePort && svc.Spec.Type != api.ServiceTypeLoadBalancer && !apiservice.NeedsHealthCheck(svc) {
		// Nothing to allocate: no allocator is made (seeding its random
		// source was 2% of a run's CPU, for every ClusterIP Service).
		return nil
	}
	pa, err := portallocator.NewInMemory(defaultNodePortRange)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	op := portallocator.StartOperation(pa, true)
	defer op.Finish()
	if svc.Spec.Type == api.ServiceTypeNodePort || svc.Spec.Type == api.ServiceTypeLoadBalancer {
		if errs := initNodePorts(svc, op); len(errs) > 0 {
			return errs
		}
	}
	if apiservice.NeedsHealthCheck(svc) {
		if hc := svc.Spec.HealthCheckNodePort; hc != 0 {
			if err := op.Allocate(int(hc)); err != nil {
				return field.ErrorList{field.InternalError(nil,
					fmt.Errorf("failed to allocate requested HealthCheck NodePort %v: %v", hc, err))}
			}
		} else {
			port, err := op.AllocateNext()
			if err != nil {
				return field.ErrorList{field.InternalError(nil, fmt.Errorf("failed to allocate a HealthCheck NodePort %v: %v", port, err))}
			}
			svc.Spec.HealthCheckNodePort = int32(port)
		}
	}
	return nil
}

// initNodePorts mirrors initNodePorts (k8s.io/kubernetes/pkg/registry/core/service/storage):
// ports with the same port number share a node port; a requested node port
// is allocated, the others get the next free one, unless a LoadBalancer says
// allocateLoadBalancerNodePorts: false (shouldAllocateNodePorts).
func initNodePorts(svc *api.Service, op *portallocator.PortAllocationOperation) field.ErrorList {
	allocate := svc.Spec.Type == api.ServiceTypeNodePort ||
		(svc.Spec.Type == api.ServiceTypeLoadBalancer &&
			(svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts))
	byPort := map[int32]int32{}
	invalid := func(i int, np int32, err error) field.ErrorList {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), np, err.Error())}
	}
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if p.NodePort == 0 && !allocate {
			continue
		}
		have := byPort[p.Port]
		switch {
		case have == 0:
			np := requestedNodePort(p.Port, svc.Spec.Ports)
			if np != 0 {
				if err := op.Allocate(int(np)); err != nil {
					return invalid(i, np, err)
				}
			} else {
				next, err := op.AllocateNext()
				if err != nil {
					return field.ErrorList{field.InternalError(nil, fmt.Errorf("failed to allocate a nodePort: %w", err))}
				}
				np = int32(next)
			}
			p.NodePort = np
			byPort[p.Port] = np
		case p.NodePort == 0:
			p.NodePort = have
		case p.NodePort != have:
			if err := op.Allocate(int(p.NodePort)); err != nil {
				return invalid(i, p.NodePort, err)
			}
		}
	}
	return nil
}

// requestedNodePort mirrors findRequestedNodePort
// (k8s.io/kubernetes/pkg/registry/core/service/storage): the first node port
// requested for port among ports.
func requestedNodePort(port int32, ports []api.ServicePort) int32 {
	for _, p := range ports {
		if p.Port == port && p.NodePort != 0 {
			return p.NodePort
		}
	}
	return 0
}

// KnownKinds returns, sorted, the names of the kinds a configuration's
// exemption can usefully name: every kind of the groups the API tier
// installs (core, apps, batch; lists left out), the kinds the cross-resource
// rules read from other groups, and those named among the removed versions.
func KnownKinds() []string {
	seen := map[string]bool{"PodDisruptionBudget": true, "HorizontalPodAutoscaler": true}
	for gvk := range removed {
		if gvk.Kind != "" {
			seen[gvk.Kind] = true
		}
	}
	for gvk := range legacyscheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		seen[gvk.Kind] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
