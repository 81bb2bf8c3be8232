package testkit

import (
	"fmt"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The objects of a drain's tests (internal/kubectl/drain, internal/registry/eviction,
// internal/scheduler): Ready pods of a Deployment on named nodes, and budgets that select them.

// Node is a node named name, with nothing else set.
func Node(name string) *v1.Node { return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}} }

// Deployment returns a Deployment of n replicas, its ReplicaSet and its Ready pods, placed on
// the nodes in turn.
func Deployment(name string, n int32, nodes ...string) (*apps.Deployment, *apps.ReplicaSet, []*v1.Pod) {
	d := &apps.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: "d-" + "uid"}, Spec: apps.DeploymentSpec{Replicas: &n}}
	rs := &apps.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name + "-abc", Namespace: "default", UID: "rs-uid",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: d.UID, Controller: Ptr(true)}}},
		Spec: apps.ReplicaSetSpec{Replicas: &n}}
	var pods []*v1.Pod
	for i := range int(n) {
		pods = append(pods, ReadyPod(fmt.Sprintf("%s-abc-%d", name, i), nodes[i%len(nodes)], map[string]string{"app": name},
			&metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: Ptr(true)}))
	}
	return d, rs, pods
}

// ReadyPod is a Running, Ready pod of the default namespace on nodeName, labelled lbls and
// owned by owner when it is not nil.
func ReadyPod(name, nodeName string, lbls map[string]string, owner *metav1.OwnerReference) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: lbls},
		Spec:   v1.PodSpec{NodeName: nodeName, Containers: []v1.Container{{Name: "c", Image: "nginx"}}},
		Status: v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}}}
	if owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	return p
}

// Budget is a PodDisruptionBudget of the default namespace selecting app=app.
func Budget(name string, minAvailable, maxUnavailable *intstr.IntOrString, app string) *policy.PodDisruptionBudget {
	return &policy.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: policy.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
}

// Ptr is a pointer to v.
func Ptr[T any](v T) *T { return &v }

// Template is a pod template labelled app=app, its one container requesting cpu (none when
// cpu is "").
func Template(app string, cpu string) v1.PodTemplateSpec {
	c := v1.Container{Name: "c", Image: "nginx"}
	if cpu != "" {
		c.Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}
	}
	return v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}}, Spec: v1.PodSpec{Containers: []v1.Container{c}}}
}

// ManifestDeployment is a Deployment of n replicas as a manifest holds it: no ReplicaSet, no
// pods.
func ManifestDeployment(name string, n int32, cpu string) *apps.Deployment {
	return &apps.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: apps.DeploymentSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}, Template: Template(name, cpu)}}
}
