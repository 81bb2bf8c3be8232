package deployment

import (
	"math"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// TestDeploymentTimedOut holds upstream's TestDeploymentTimedOut facts, on the injected clock.
func TestDeploymentTimedOut(t *testing.T) {
	now := newTimestamp.Time
	tests := []struct {
		name     string
		deadline *int32
		elapsed  time.Duration
		reason   string
		want     bool
	}{
		{name: "no deadline", deadline: nil, elapsed: time.Hour, reason: deploymentutil.ReplicaSetUpdatedReason, want: false},
		{name: "MaxInt32 deadline", deadline: int32Ptr(math.MaxInt32), elapsed: time.Hour, reason: deploymentutil.ReplicaSetUpdatedReason, want: false},
		{name: "10s deadline, 11s elapsed", deadline: int32Ptr(10), elapsed: 11 * time.Second, reason: deploymentutil.ReplicaSetUpdatedReason, want: true},
		{name: "10s deadline, 9s elapsed", deadline: int32Ptr(10), elapsed: 9 * time.Second, reason: deploymentutil.ReplicaSetUpdatedReason, want: false},
		{name: "10s deadline, exactly 10s elapsed", deadline: int32Ptr(10), elapsed: 10 * time.Second, reason: deploymentutil.ReplicaSetUpdatedReason, want: false},
		{name: "previous rollout complete", deadline: int32Ptr(10), elapsed: 11 * time.Second, reason: deploymentutil.NewRSAvailableReason, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fixtureDeployment(1, nil, nil)
			d.Spec.ProgressDeadlineSeconds = tt.deadline
			last := metav1.NewTime(now.Add(-tt.elapsed))
			status := apps.DeploymentStatus{Conditions: []apps.DeploymentCondition{{
				Type: apps.DeploymentProgressing, Status: v1.ConditionTrue, Reason: tt.reason, LastUpdateTime: last, LastTransitionTime: last}}}
			dc := newFixedClockController(now, nil)
			if got := dc.deploymentTimedOut(d, &status); got != tt.want {
				t.Errorf("deploymentTimedOut(%s elapsed) = %v, want %v", tt.elapsed, got, tt.want)
			}
		})
	}
}

// TestRequeueStuckDeployment: the deadline check is queued at lastUpdateTime + deadline + 1s.
func TestRequeueStuckDeployment(t *testing.T) {
	now := newTimestamp.Time
	d := fixtureDeployment(3, nil, nil)
	d.Spec.ProgressDeadlineSeconds = int32Ptr(600)
	last := metav1.NewTime(now.Add(-3 * time.Minute))
	d.Status = apps.DeploymentStatus{Replicas: 3, UpdatedReplicas: 1, Conditions: []apps.DeploymentCondition{{
		Type: apps.DeploymentProgressing, Status: v1.ConditionTrue, Reason: deploymentutil.ReplicaSetUpdatedReason, LastUpdateTime: last}}}
	dc := newFixedClockController(now, nil)
	at, ok := dc.requeueStuckDeployment(d)
	if want := now.Add(7*time.Minute + time.Second); !ok || !at.Equal(want) {
		t.Errorf("requeueStuckDeployment() = %s, %v; want %s, true", at, ok, want)
	}
}

// TestCleanupDeployment: with more old ReplicaSets than revisionHistoryLimit, the lowest
// revisions that are scaled to 0 go; one that still has replicas stays.
func TestCleanupDeployment(t *testing.T) {
	d := fixtureDeployment(1, nil, nil)
	d.Spec.RevisionHistoryLimit = int32Ptr(1)
	var olds []*apps.ReplicaSet
	for i, replicas := range []int32{0, 1, 0, 0} {
		rs := fixtureRS("foo-v"+itoa(int32(i+1)), replicas, metav1.NewTime(olderTimestamp.Add(hours(i))))
		rs.Annotations = map[string]string{deploymentutil.RevisionAnnotation: itoa(int32(i + 1))}
		olds = append(olds, rs)
	}
	var deleted []string
	dc := newFixedClockController(newTimestamp.Time, nil)
	dc.deleteRS = func(rs *apps.ReplicaSet) { deleted = append(deleted, rs.Name) }
	dc.cleanupDeployment(olds, d)
	// 4 − 1 = 3 candidates, lowest revisions first: v1, v2 (has replicas, kept), v3.
	if want := []string{"foo-v1", "foo-v3"}; !equal(deleted, want) {
		t.Errorf("cleanupDeployment() deleted %q, want %q", deleted, want)
	}
}
