package deployment

import (
	"testing"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestOldPodsRunning holds upstream's TestOldPodsRunning table.
func TestOldPodsRunning(t *testing.T) {
	pod := func(phase v1.PodPhase) *v1.Pod { return &v1.Pod{Status: v1.PodStatus{Phase: phase}} }
	withStatus := func(spec, status int32) *apps.ReplicaSet {
		rs := fixtureRS("foo-old", spec, oldTimestamp)
		rs.Status.Replicas = status
		return rs
	}
	newRS := fixtureRS("foo-new", 1, newTimestamp)
	tests := []struct {
		name   string
		oldRSs []*apps.ReplicaSet
		podMap map[types.UID][]*v1.Pod
		want   bool
	}{
		{name: "no old replica sets", want: false},
		{name: "old replica set with pods", oldRSs: []*apps.ReplicaSet{withStatus(1, 1)}, want: true},
		{name: "spec 0 but status 1", oldRSs: []*apps.ReplicaSet{withStatus(0, 1)}, want: true},
		{name: "status 0 and no pods", oldRSs: []*apps.ReplicaSet{withStatus(0, 0)}, want: false},
		{name: "only failed and succeeded pods", oldRSs: []*apps.ReplicaSet{withStatus(0, 0)},
			podMap: map[types.UID][]*v1.Pod{"foo-old": {pod(v1.PodFailed), pod(v1.PodSucceeded)}}, want: false},
		{name: "a running pod", oldRSs: []*apps.ReplicaSet{withStatus(0, 0)},
			podMap: map[types.UID][]*v1.Pod{"foo-old": {pod(v1.PodRunning)}}, want: true},
		{name: "failed, succeeded and pending pods", oldRSs: []*apps.ReplicaSet{withStatus(0, 0)},
			podMap: map[types.UID][]*v1.Pod{"foo-old": {pod(v1.PodFailed), pod(v1.PodSucceeded), pod(v1.PodPending)}}, want: true},
		{name: "pods of the new replica set do not count", oldRSs: []*apps.ReplicaSet{withStatus(0, 0)},
			podMap: map[types.UID][]*v1.Pod{"foo-new": {pod(v1.PodRunning)}}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := oldPodsRunning(newRS, tt.oldRSs, tt.podMap); got != tt.want {
				t.Errorf("oldPodsRunning() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestScaleDownOldReplicaSetsForRecreate holds upstream's TestScaleDownOldReplicaSets: every old
// ReplicaSet ends at 0.
func TestScaleDownOldReplicaSetsForRecreate(t *testing.T) {
	d := fixtureDeployment(3, nil, nil)
	d.Spec.Strategy = apps.DeploymentStrategy{Type: apps.RecreateDeploymentStrategyType}
	olds := []*apps.ReplicaSet{fixtureRS("foo-v1", 3, olderTimestamp), fixtureRS("foo-v2", 1, oldTimestamp), fixtureRS("foo-v3", 0, newTimestamp)}
	dc := newFixedClockController(newTimestamp.Time, nil)
	if got := dc.scaleDownOldReplicaSetsForRecreate(olds, d); !got {
		t.Errorf("scaleDownOldReplicaSetsForRecreate() = false, want true")
	}
	for _, rs := range olds {
		if *rs.Spec.Replicas != 0 {
			t.Errorf("scaleDownOldReplicaSetsForRecreate() left %s at %d, want 0", rs.Name, *rs.Spec.Replicas)
		}
	}
}
