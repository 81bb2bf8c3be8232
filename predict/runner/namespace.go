package runner

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// namespacesOf lists the namespaces in which the state holds a kind/name: a Deployment,
// StatefulSet, DaemonSet or ReplicaSet by its own name, a ReplicationController by the
// controller references of its pods (dumps of pods only). An object without a namespace is
// listed as "".
func namespacesOf(st *kernel.State, kind, name string) []string {
	seen := map[string]bool{}
	see := func(m metav1.Object) {
		if m.GetName() == name {
			seen[m.GetNamespace()] = true
		}
	}
	switch kind {
	case "Deployment":
		for _, o := range st.Deployments {
			see(o)
		}
	case "StatefulSet":
		for _, o := range st.StatefulSets {
			see(o)
		}
	case "DaemonSet":
		for _, o := range st.DaemonSets {
			see(o)
		}
	case KindReplicaSet:
		for _, o := range st.ReplicaSets {
			see(o)
		}
	}
	if kind == KindReplicaSet || kind == KindReplicationController {
		for _, p := range st.Pods {
			if ref := metav1.GetControllerOf(p); ref != nil && ref.Kind == kind && ref.Name == name {
				seen[p.Namespace] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

// resolveNamespace decides in which namespace of the state kind/name is looked up, as kubectl
// resolves a namespace: ns is the manifest's own, else -n, else the kubeconfig context's (else
// "default"). When the state holds no kind/name in ns and ns was not named explicitly (by the
// manifest or -n), the state's only namespace holding one is used, and note says so; several
// such namespaces are an error naming them and -n. Without a match anywhere, ns is kept.
//
// Example: web.yaml without a namespace, a dump taken with kubectl get -n shop, no -n and a
// context whose namespace is default: the Deployment web is found in shop, and the baseline
// line says so.
func resolveNamespace(st *kernel.State, kind, ns, name string, explicit bool) (resolved, note string, err error) {
	if st == nil {
		return ns, "", nil
	}
	found := namespacesOf(st, kind, name)
	for _, f := range found {
		if f == ns || f == "" {
			return ns, "", nil
		}
	}
	if explicit || len(found) == 0 {
		return ns, "", nil
	}
	ref := strings.ToLower(kind) + "/" + name
	if len(found) > 1 {
		return "", "", fmt.Errorf("%s: not in namespace %s of %s, but in namespaces %s: name one with -n", ref, ns, st.Source, strings.Join(found, ", "))
	}
	return found[0], fmt.Sprintf("%s is in namespace %s there, the only one holding it (none was named, and %s holds none)", ref, found[0], ns), nil
}
