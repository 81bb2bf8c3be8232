package deployment

import (
	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/controller"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// rolloutRecreate mirrors DeploymentController.rolloutRecreate: scale every active old
// ReplicaSet to 0, wait until no old pod runs (terminating pods included), then create the new
// ReplicaSet and scale it to spec.replicas.
func (dc *deploymentController) rolloutRecreate(d *apps.Deployment, rsList []*apps.ReplicaSet, podMap map[types.UID][]*v1.Pod) error {
	newRS, oldRSs := dc.getAllReplicaSetsAndSyncRevision(d, rsList, false)
	allRSs := append(append([]*apps.ReplicaSet(nil), oldRSs...), newRS)
	if dc.scaleDownOldReplicaSetsForRecreate(controller.FilterActiveReplicaSets(oldRSs), d) {
		dc.syncRolloutStatus(allRSs, newRS, d)
		return nil
	}
	if oldPodsRunning(newRS, oldRSs, podMap) {
		dc.syncRolloutStatus(allRSs, newRS, d)
		return nil
	}
	if newRS == nil {
		newRS, oldRSs = dc.getAllReplicaSetsAndSyncRevision(d, rsList, true)
		if newRS == nil {
			return nil
		}
		allRSs = append(append([]*apps.ReplicaSet(nil), oldRSs...), newRS)
	}
	dc.scaleReplicaSet(newRS, *d.Spec.Replicas, d, false)
	if deploymentutil.DeploymentComplete(d, &d.Status) {
		dc.cleanupDeployment(oldRSs, d)
	}
	dc.syncRolloutStatus(allRSs, newRS, d)
	return nil
}

// scaleDownOldReplicaSetsForRecreate mirrors
// DeploymentController.scaleDownOldReplicaSetsForRecreate: every old ReplicaSet goes to 0.
func (dc *deploymentController) scaleDownOldReplicaSetsForRecreate(oldRSs []*apps.ReplicaSet, d *apps.Deployment) bool {
	scaled := false
	for _, rs := range oldRSs {
		if *rs.Spec.Replicas == 0 {
			continue
		}
		if dc.scaleReplicaSet(rs, 0, d, false) {
			scaled = true
		}
	}
	return scaled
}

// oldPodsRunning mirrors oldPodsRunning: true while an old ReplicaSet reports pods in its status,
// or any pod not of the new ReplicaSet is in a phase other than Failed or Succeeded (Unknown
// counts as running).
//
// Example: old RS at spec 0 and status 0 with one terminating pod still Running: true.
func oldPodsRunning(newRS *apps.ReplicaSet, oldRSs []*apps.ReplicaSet, podMap map[types.UID][]*v1.Pod) bool {
	if oldPods := deploymentutil.GetActualReplicaCountForReplicaSets(oldRSs); oldPods > 0 {
		return true
	}
	for rsUID, podList := range podMap {
		if newRS != nil && newRS.UID == rsUID {
			continue
		}
		for _, pod := range podList {
			switch pod.Status.Phase {
			case v1.PodFailed, v1.PodSucceeded:
				continue
			default:
				return true
			}
		}
	}
	return false
}
