package deployment

import (
	"strconv"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

// Timestamps for fixtures, oldest first.
var (
	olderTimestamp = metav1.Date(2016, 5, 20, 0, 0, 0, 0, time.UTC)
	oldTimestamp   = metav1.Date(2016, 5, 20, 1, 0, 0, 0, time.UTC)
	newTimestamp   = metav1.Date(2016, 5, 20, 2, 0, 0, 0, time.UTC)
)

// fixtureRS is upstream's rs() test fixture: an empty template, a name and a creation time.
func fixtureRS(name string, replicas int32, ts metav1.Time) *apps.ReplicaSet {
	return &apps.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name), CreationTimestamp: ts, Namespace: metav1.NamespaceDefault},
		Spec:       apps.ReplicaSetSpec{Replicas: int32Ptr(replicas), Selector: &metav1.LabelSelector{}},
	}
}

// fixtureDeployment is upstream's newDeployment() test fixture: nil surge or unavailable mean 0.
func fixtureDeployment(replicas int32, maxSurge, maxUnavailable *intstr.IntOrString) *apps.Deployment {
	d := &apps.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "foo", UID: "foo", Namespace: metav1.NamespaceDefault, Annotations: map[string]string{}},
		Spec: apps.DeploymentSpec{
			Strategy: apps.DeploymentStrategy{
				Type: apps.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &apps.RollingUpdateDeployment{
					MaxUnavailable: intOrStr(intstr.FromInt32(0)),
					MaxSurge:       intOrStr(intstr.FromInt32(0)),
				},
			},
			Replicas: int32Ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"foo": "bar"}},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Image: "foo/bar"}}},
			},
		},
	}
	if maxSurge != nil {
		d.Spec.Strategy.RollingUpdate.MaxSurge = maxSurge
	}
	if maxUnavailable != nil {
		d.Spec.Strategy.RollingUpdate.MaxUnavailable = maxUnavailable
	}
	return d
}

// decodeDeployment decodes an apps/v1 Deployment manifest and defaults it as the API server does.
func decodeDeployment(t testing.TB, manifest string) *apps.Deployment {
	t.Helper()
	d := &apps.Deployment{}
	testkit.Decode(t, manifest, d)
	return d
}

// webManifest is a Deployment named web with the given replicas, image and strategy block
// (indented under spec:).
func webDeployment(t testing.TB, replicas int32, image, strategy string) *apps.Deployment {
	t.Helper()
	m := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: ` + itoa(replicas) + `
  selector:
    matchLabels:
      app: web
` + strategy + `
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: ` + image + `
`
	return decodeDeployment(t, m)
}

func itoa(i int32) string {
	return strconv.Itoa(int(i))
}

func int32Ptr(i int32) *int32 { return &i }

func intOrStr(v intstr.IntOrString) *intstr.IntOrString { return &v }

func hours(n int) time.Duration { return time.Duration(n) * time.Hour }

func metaTime(t time.Time) metav1.Time { return metav1.NewTime(t) }
