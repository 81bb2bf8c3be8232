package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/podorder"
)

var stateTime = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func controlledBy(kind, name, uid string) []metav1.OwnerReference {
	yes := true
	return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID(uid), Controller: &yes}}
}

func readyPod(name, node, rs, rsUID string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(stateTime.Add(-10 * time.Hour)), OwnerReferences: controlledBy("ReplicaSet", rs, rsUID)},
		Spec: v1.PodSpec{NodeName: node},
		Status: v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{
			{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(stateTime.Add(-10 * time.Hour))}}},
	}
}

func replicaSet(name, uid string, replicas int32) *apps.ReplicaSet {
	return &apps.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(uid), OwnerReferences: controlledBy("Deployment", "web", "uid-web")},
		Spec:       apps.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "rev": name}}},
	}
}

// TestScaleDownCountsTheDeploymentsPods: the pods of a Deployment's other ReplicaSets count
// toward colocation (getIndirectlyRelatedPods), so of two otherwise equal pods the one beside
// the old ReplicaSet's pods goes first, although its name sorts last.
func TestScaleDownCountsTheDeploymentsPods(t *testing.T) {
	state := &kernel.State{
		ReplicaSets: []*apps.ReplicaSet{replicaSet("web-old", "uid-old", 2), replicaSet("web-new", "uid-new", 2)},
		Pods: []*v1.Pod{
			readyPod("web-old-1", "n1", "web-old", "uid-old"), readyPod("web-old-2", "n1", "web-old", "uid-old"),
			readyPod("web-new-a", "n2", "web-new", "uid-new"), readyPod("web-new-b", "n1", "web-new", "uid-new"),
		},
		Now: stateTime, Source: "state.yaml",
	}
	one := int32(1)
	res, err := Run(context.Background(), Request{State: state, Targets: []Target{{Kind: kernel.KindReplicaSet, Namespace: "default", Name: "web-new"}},
		WhatIf: kernel.WhatIf{Replicas: &one}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Predictions) != 1 || res.Predictions[0].ScaleDown == nil {
		t.Fatalf("Run(replicaset/web-new --replicas 1) = %+v, want one scale-down", res.Predictions)
	}
	sd := res.Predictions[0].ScaleDown
	if strings.Join(sd.Deleted, ",") != "web-new-b" || sd.Order[0].Rule != podorder.RuleColocated || sd.Related != 4 || sd.Deletes != 1 {
		t.Errorf("scale-down = deleted %v, first rule %q, related %d, deletes %d; want web-new-b by %q, 4 related, 1 delete",
			sd.Deleted, sd.Order[0].Rule, sd.Related, sd.Deletes, podorder.RuleColocated)
	}
	if !sd.Order[0].Deleted || sd.Order[1].Deleted || sd.Order[0].Colocated != 3 || sd.Order[1].Colocated != 1 {
		t.Errorf("order = %+v, want web-new-b (3 on n1) deleted, web-new-a (1 on n2) kept", sd.Order)
	}
	if !strings.Contains(strings.Join(sd.Notes, "\n"), "controlled by Deployment web") {
		t.Errorf("notes = %q, want the Deployment's ownership of spec.replicas", sd.Notes)
	}
	if !sd.At.Equal(stateTime) {
		t.Errorf("ranked at %s, want the state's time %s", sd.At, stateTime)
	}
}

// TestScaleDownUp: more replicas than active pods deletes nothing.
func TestScaleDownUp(t *testing.T) {
	state := &kernel.State{ReplicaSets: []*apps.ReplicaSet{replicaSet("web-new", "uid-new", 1)},
		Pods: []*v1.Pod{readyPod("web-new-a", "n1", "web-new", "uid-new")}, Now: stateTime, Source: "state.yaml"}
	three := int32(3)
	res, err := Run(context.Background(), Request{State: state, Targets: []Target{{Kind: kernel.KindReplicaSet, Name: "web-new"}},
		WhatIf: kernel.WhatIf{Replicas: &three}})
	if err != nil {
		t.Fatal(err)
	}
	sd := res.Predictions[0].ScaleDown
	if sd.Deletes != 0 || len(sd.Deleted) != 0 || !strings.Contains(strings.Join(sd.Notes, "\n"), "creates 2 and deletes none") {
		t.Errorf("scale 1 → 3 = %d deletes %v, notes %q; want none, and a note that 2 are created", sd.Deletes, sd.Deleted, sd.Notes)
	}
}
