package deployment

import (
	"sort"

	apps "k8s.io/api/apps/v1"
	"k8s.io/kubernetes/pkg/controller"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// rolloutRolling mirrors DeploymentController.rolloutRolling: find or create the new ReplicaSet
// (created already sized by NewRSNewReplicas), then one action per sync: scale the new one up if
// it can, else scale old ones down if it can, else clean up history when complete; the rollout
// status is synced in every case.
func (dc *deploymentController) rolloutRolling(d *apps.Deployment, rsList []*apps.ReplicaSet) error {
	newRS, oldRSs := dc.getAllReplicaSetsAndSyncRevision(d, rsList, true)
	if newRS == nil {
		return nil
	}
	allRSs := append(append([]*apps.ReplicaSet(nil), oldRSs...), newRS)
	if dc.reconcileNewReplicaSet(allRSs, newRS, d) {
		dc.syncRolloutStatus(allRSs, newRS, d)
		return nil
	}
	if dc.reconcileOldReplicaSets(allRSs, controller.FilterActiveReplicaSets(oldRSs), newRS, d) {
		dc.syncRolloutStatus(allRSs, newRS, d)
		return nil
	}
	if deploymentutil.DeploymentComplete(d, &d.Status) {
		dc.cleanupDeployment(oldRSs, d)
	}
	dc.syncRolloutStatus(allRSs, newRS, d)
	return nil
}

// reconcileNewReplicaSet mirrors DeploymentController.reconcileNewReplicaSet: a new ReplicaSet
// above spec.replicas is scaled down to it; below, it grows to NewRSNewReplicas.
//
// Example: 10 replicas, maxSurge 2, old RS 5, new RS 0: maxTotal 10+2 = 12, current 5, so the new
// RS grows by min(12−5, 10−0) = 7 to 7.
func (dc *deploymentController) reconcileNewReplicaSet(allRSs []*apps.ReplicaSet, newRS *apps.ReplicaSet, d *apps.Deployment) bool {
	if *newRS.Spec.Replicas == *d.Spec.Replicas {
		return false
	}
	if *newRS.Spec.Replicas > *d.Spec.Replicas {
		return dc.scaleReplicaSet(newRS, *d.Spec.Replicas, d, false)
	}
	newReplicasCount, err := deploymentutil.NewRSNewReplicas(d, allRSs, newRS)
	if err != nil {
		return false
	}
	return dc.scaleReplicaSet(newRS, newReplicasCount, d, false)
}

// reconcileOldReplicaSets mirrors DeploymentController.reconcileOldReplicaSets: old ReplicaSets
// may lose maxScaledDown = allPods − minAvailable − newRSUnavailable pods, first unhealthy ones
// (cleanupUnhealthyReplicas), then available ones down to minAvailable
// (scaleDownOldReplicaSetsForRollingUpdate).
//
// Example: 10 replicas, maxSurge 3, maxUnavailable 2, new RS created at 3 (none available), old
// RS 10: maxScaledDown = 13 − (10−2) − 3 = 2, so the old RS goes 10 → 8.
func (dc *deploymentController) reconcileOldReplicaSets(allRSs []*apps.ReplicaSet, oldRSs []*apps.ReplicaSet, newRS *apps.ReplicaSet, d *apps.Deployment) bool {
	oldPodsCount := deploymentutil.GetReplicaCountForReplicaSets(oldRSs)
	if oldPodsCount == 0 {
		return false
	}
	allPodsCount := deploymentutil.GetReplicaCountForReplicaSets(allRSs)
	maxUnavailable := deploymentutil.MaxUnavailable(*d)
	minAvailable := *d.Spec.Replicas - maxUnavailable
	newRSUnavailablePodCount := *newRS.Spec.Replicas - newRS.Status.AvailableReplicas
	maxScaledDown := allPodsCount - minAvailable - newRSUnavailablePodCount
	if maxScaledDown <= 0 {
		return false
	}
	oldRSs, cleanupCount := dc.cleanupUnhealthyReplicas(oldRSs, d, maxScaledDown)
	allRSs = append(append([]*apps.ReplicaSet(nil), oldRSs...), newRS)
	scaledDownCount := dc.scaleDownOldReplicaSetsForRollingUpdate(allRSs, oldRSs, d)
	return cleanupCount+scaledDownCount > 0
}

// cleanupUnhealthyReplicas mirrors DeploymentController.cleanupUnhealthyReplicas: oldest first,
// each old ReplicaSet loses its unavailable pods, at most maxCleanupCount in all. It returns the
// old ReplicaSets sorted oldest first and the number removed.
//
// Example: old RS 10 with 8 available and maxCleanupCount 3 loses min(3−0, 10−8) = 2, to 8.
func (dc *deploymentController) cleanupUnhealthyReplicas(oldRSs []*apps.ReplicaSet, d *apps.Deployment, maxCleanupCount int32) ([]*apps.ReplicaSet, int32) {
	sort.Sort(controller.ReplicaSetsByCreationTimestamp(oldRSs))
	totalScaledDown := int32(0)
	for _, targetRS := range oldRSs {
		if totalScaledDown >= maxCleanupCount {
			break
		}
		if *targetRS.Spec.Replicas == 0 {
			continue
		}
		if *targetRS.Spec.Replicas == targetRS.Status.AvailableReplicas {
			continue
		}
		scaledDownCount := min(maxCleanupCount-totalScaledDown, *targetRS.Spec.Replicas-targetRS.Status.AvailableReplicas)
		newReplicasCount := *targetRS.Spec.Replicas - scaledDownCount
		if newReplicasCount > *targetRS.Spec.Replicas {
			// More available than desired: upstream refuses with an error, which
			// reconcileOldReplicaSets turns into "no scaling".
			return oldRSs, totalScaledDown
		}
		dc.scaleReplicaSet(targetRS, newReplicasCount, d, false)
		totalScaledDown += scaledDownCount
	}
	return oldRSs, totalScaledDown
}

// scaleDownOldReplicaSetsForRollingUpdate mirrors
// DeploymentController.scaleDownOldReplicaSetsForRollingUpdate: with available pods (all
// ReplicaSets) above minAvailable, the surplus is taken from old ReplicaSets, oldest first.
//
// Example: 10 replicas, maxUnavailable 2, 10 available: 10 − (10−2) = 2 come off the oldest old
// RS, 10 → 8.
func (dc *deploymentController) scaleDownOldReplicaSetsForRollingUpdate(allRSs []*apps.ReplicaSet, oldRSs []*apps.ReplicaSet, d *apps.Deployment) int32 {
	maxUnavailable := deploymentutil.MaxUnavailable(*d)
	minAvailable := *d.Spec.Replicas - maxUnavailable
	availablePodCount := deploymentutil.GetAvailableReplicaCountForReplicaSets(allRSs)
	if availablePodCount <= minAvailable {
		return 0
	}
	sort.Sort(controller.ReplicaSetsByCreationTimestamp(oldRSs))
	totalScaledDown := int32(0)
	totalScaleDownCount := availablePodCount - minAvailable
	for _, targetRS := range oldRSs {
		if totalScaledDown >= totalScaleDownCount {
			break
		}
		if *targetRS.Spec.Replicas == 0 {
			continue
		}
		scaleDownCount := min(*targetRS.Spec.Replicas, totalScaleDownCount-totalScaledDown)
		dc.scaleReplicaSet(targetRS, *targetRS.Spec.Replicas-scaleDownCount, d, false)
		totalScaledDown += scaleDownCount
	}
	return totalScaledDown
}
