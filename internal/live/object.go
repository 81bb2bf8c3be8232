package live

import (
	"fmt"
	"net/url"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// SourceScheme prefixes the synthetic file names of cluster objects.
const SourceScheme = "cluster://"

// SourceName is the file name findings give a cluster object:
// cluster://CONTEXT/NAMESPACE/KIND/NAME. Each part is path-escaped, so a
// context named "a/b" stays one part.
func SourceName(contextName, namespace, kind, name string) string {
	return SourceScheme + url.PathEscape(contextName) + "/" + url.PathEscape(namespace) + "/" + kind + "/" + url.PathEscape(name)
}

// IsSource reports whether a finding's file names a cluster object.
func IsSource(file string) bool { return strings.HasPrefix(file, SourceScheme) }

// Manifest turns a cluster object into the manifest.Object lint checks, as
// if it had been read from a file: the object is rendered as YAML the way
// `kubectl get -o yaml` renders it (metadata.managedFields left out, as
// kubectl leaves it out by default; status and the other fields the server
// fills in kept), so that the line and column of a finding are those of
// `kubectl get KIND NAME -n NAMESPACE -o yaml`. The object is not changed.
func Manifest(contextName string, u *unstructured.Unstructured) (*manifest.Object, error) {
	obj := u.DeepCopy()
	unstructured.RemoveNestedField(obj.Object, "metadata", "managedFields")
	data, err := yaml.Marshal(obj.Object)
	if err != nil {
		return nil, fmt.Errorf("render %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	name := SourceName(contextName, u.GetNamespace(), u.GetKind(), u.GetName())
	set := manifest.Parse(name, data)
	if len(set.Objects) != 1 {
		return nil, fmt.Errorf("render %s %s/%s: %d objects after rendering, want 1", u.GetKind(), u.GetNamespace(), u.GetName(), len(set.Objects))
	}
	return set.Objects[0], nil
}

// Manifests turns cluster objects into manifest objects (see Manifest).
func Manifests(contextName string, us []*unstructured.Unstructured) ([]*manifest.Object, error) {
	out := make([]*manifest.Object, 0, len(us))
	for _, u := range us {
		m, err := Manifest(contextName, u)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Controlled reports whether a controller owns the object (a ReplicaSet of
// a Deployment, a Job of a CronJob, a Pod of any of them): its findings
// belong to its owner, whose template made it.
func Controlled(u *unstructured.Unstructured) bool {
	return metav1.GetControllerOfNoCopy(u) != nil
}

// ContextObject turns a cluster object into a manifest.Object for the
// cross-resource index only: its JSON (managedFields left out) and identity,
// without the YAML rendering and positions Manifest computes, since nothing
// is reported at its lines.
func ContextObject(contextName string, u *unstructured.Unstructured) (*manifest.Object, error) {
	obj := u.DeepCopy()
	unstructured.RemoveNestedField(obj.Object, "metadata", "managedFields")
	js, err := obj.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encode %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return &manifest.Object{
		Source:     manifest.Source{File: SourceName(contextName, u.GetNamespace(), u.GetKind(), u.GetName())},
		Item:       -1,
		APIVersion: u.GetAPIVersion(),
		Kind:       u.GetKind(),
		Namespace:  u.GetNamespace(),
		Name:       u.GetName(),
		JSON:       js,
	}, nil
}
