package deployment

import (
	"testing"

	apps "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestReconcileNewReplicaSet holds upstream's TestDeploymentController_reconcileNewReplicaSet
// table (maxUnavailable 0, 10 replicas).
func TestReconcileNewReplicaSet(t *testing.T) {
	tests := []struct {
		name        string
		maxSurge    int32
		oldReplicas int32
		newReplicas int32
		wantScaled  bool
		wantNew     int32
	}{
		{name: "surge 0 cannot create room", maxSurge: 0, oldReplicas: 10, newReplicas: 0, wantScaled: false, wantNew: 0},
		{name: "surge 2 grows new by 2", maxSurge: 2, oldReplicas: 10, newReplicas: 0, wantScaled: true, wantNew: 2},
		{name: "surge 2 with old at 5 grows new to 7", maxSurge: 2, oldReplicas: 5, newReplicas: 0, wantScaled: true, wantNew: 7},
		{name: "already at 10+2 total", maxSurge: 2, oldReplicas: 10, newReplicas: 2, wantScaled: false, wantNew: 2},
		{name: "new above replicas scales down to 10", maxSurge: 2, oldReplicas: 2, newReplicas: 11, wantScaled: true, wantNew: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fixtureDeployment(10, intOrStr(intstr.FromInt32(tt.maxSurge)), intOrStr(intstr.FromInt32(0)))
			newRS := fixtureRS("foo-new", tt.newReplicas, newTimestamp)
			oldRS := fixtureRS("foo-old", tt.oldReplicas, oldTimestamp)
			dc := newFixedClockController(newTimestamp.Time, nil)
			got := dc.reconcileNewReplicaSet([]*apps.ReplicaSet{oldRS, newRS}, newRS, d)
			if got != tt.wantScaled || *newRS.Spec.Replicas != tt.wantNew {
				t.Errorf("reconcileNewReplicaSet() = %v, new %d; want %v, new %d", got, *newRS.Spec.Replicas, tt.wantScaled, tt.wantNew)
			}
		})
	}
}

// TestReconcileOldReplicaSets holds upstream's TestDeploymentController_reconcileOldReplicaSets
// table (maxSurge 0, 10 replicas); upstream checks only whether it scaled, the sizes are the
// ones its comments give.
func TestReconcileOldReplicaSets(t *testing.T) {
	tests := []struct {
		name           string
		maxUnavailable int32
		oldReplicas    int32
		newReplicas    int32
		oldAvailable   int32
		newAvailable   int32
		wantScaled     bool
		wantOld        int32
	}{
		{name: "0/0 forced to 1 unavailable", maxUnavailable: 0, oldReplicas: 10, oldAvailable: 10, wantScaled: true, wantOld: 9},
		{name: "maxUnavailable 2", maxUnavailable: 2, oldReplicas: 10, oldAvailable: 10, wantScaled: true, wantOld: 8},
		{name: "unhealthy old pods cleaned up", maxUnavailable: 2, oldReplicas: 10, oldAvailable: 8, wantScaled: true, wantOld: 8},
		{name: "one cleaned up and one scaled down", maxUnavailable: 2, oldReplicas: 10, oldAvailable: 9, wantScaled: true, wantOld: 8},
		{name: "unavailable new pods block scale-down", maxUnavailable: 2, oldReplicas: 8, newReplicas: 2, oldAvailable: 8, wantScaled: false, wantOld: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fixtureDeployment(10, intOrStr(intstr.FromInt32(0)), intOrStr(intstr.FromInt32(tt.maxUnavailable)))
			newRS := fixtureRS("foo-new", tt.newReplicas, newTimestamp)
			newRS.Status.AvailableReplicas = tt.newAvailable
			oldRS := fixtureRS("foo-old", tt.oldReplicas, oldTimestamp)
			oldRS.Status.AvailableReplicas = tt.oldAvailable
			dc := newFixedClockController(newTimestamp.Time, nil)
			got := dc.reconcileOldReplicaSets([]*apps.ReplicaSet{oldRS, newRS}, []*apps.ReplicaSet{oldRS}, newRS, d)
			if got != tt.wantScaled || *oldRS.Spec.Replicas != tt.wantOld {
				t.Errorf("reconcileOldReplicaSets() = %v, old %d; want %v, old %d", got, *oldRS.Spec.Replicas, tt.wantScaled, tt.wantOld)
			}
		})
	}
}

// TestCleanupUnhealthyReplicas holds upstream's TestDeploymentController_cleanupUnhealthyReplicas
// table (old RS of 10).
func TestCleanupUnhealthyReplicas(t *testing.T) {
	tests := []struct {
		name            string
		available       int32
		maxCleanupCount int32
		want            int32
	}{
		{name: "8 available, max 1", available: 8, maxCleanupCount: 1, want: 1},
		{name: "8 available, max 3", available: 8, maxCleanupCount: 3, want: 2},
		{name: "8 available, max 0", available: 8, maxCleanupCount: 0, want: 0},
		{name: "all available", available: 10, maxCleanupCount: 3, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldRS := fixtureRS("foo-old", 10, oldTimestamp)
			oldRS.Status.AvailableReplicas = tt.available
			d := fixtureDeployment(10, intOrStr(intstr.FromInt32(2)), intOrStr(intstr.FromInt32(2)))
			dc := newFixedClockController(newTimestamp.Time, nil)
			_, got := dc.cleanupUnhealthyReplicas([]*apps.ReplicaSet{oldRS}, d, tt.maxCleanupCount)
			if got != tt.want || *oldRS.Spec.Replicas != 10-tt.want {
				t.Errorf("cleanupUnhealthyReplicas(max %d) = %d, old %d; want %d, old %d", tt.maxCleanupCount, got, *oldRS.Spec.Replicas, tt.want, 10-tt.want)
			}
		})
	}
}

// TestScaleDownOldReplicaSetsForRollingUpdate holds upstream's
// TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate table (10 replicas, surge 0).
func TestScaleDownOldReplicaSetsForRollingUpdate(t *testing.T) {
	tests := []struct {
		name           string
		maxUnavailable int32
		available      int32
		oldReplicas    int32
		want           int32
	}{
		{name: "0/0 forced to 1 unavailable", maxUnavailable: 0, available: 10, oldReplicas: 10, want: 9},
		{name: "maxUnavailable 2", maxUnavailable: 2, available: 10, oldReplicas: 10, want: 8},
		{name: "at minAvailable already", maxUnavailable: 2, available: 8, oldReplicas: 10, want: 10},
		{name: "old RS at 0", maxUnavailable: 2, available: 10, oldReplicas: 0, want: 0},
		{name: "below minAvailable", maxUnavailable: 2, available: 1, oldReplicas: 10, want: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fixtureDeployment(10, intOrStr(intstr.FromInt32(0)), intOrStr(intstr.FromInt32(tt.maxUnavailable)))
			oldRS := fixtureRS("foo-old", tt.oldReplicas, oldTimestamp)
			oldRS.Status.AvailableReplicas = tt.available
			dc := newFixedClockController(newTimestamp.Time, nil)
			dc.scaleDownOldReplicaSetsForRollingUpdate([]*apps.ReplicaSet{oldRS}, []*apps.ReplicaSet{oldRS}, d)
			if *oldRS.Spec.Replicas != tt.want {
				t.Errorf("scaleDownOldReplicaSetsForRollingUpdate() left old at %d, want %d", *oldRS.Spec.Replicas, tt.want)
			}
		})
	}
}
