package deployment

import (
	"fmt"
	"sort"

	apps "k8s.io/api/apps/v1"
	"k8s.io/kubernetes/pkg/controller"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// scale mirrors DeploymentController.scale (proportional scaling, on scaling events and while
// paused):
//  1. with at most one active ReplicaSet, that one (or the newest) goes to spec.replicas;
//  2. a saturated new ReplicaSet drains every active old one to 0;
//  3. for RollingUpdate, the difference between replicas+maxSurge and the active sizes is spread
//     over the active ReplicaSets by GetReplicaSetProportion, largest first (newer first when
//     adding, older first when removing), and the leftover goes to the first of them.
//
// Example: 10 replicas (maxSurge 3) scaled to 15, old RS 8, new RS 5: allowed 15+3 = 18,
// toAdd 18−13 = 5; old gets round(8·18/13) − 8 = 11−8 = +3, new gets min(round(5·18/13) − 5,
// 5−3) = min(7−5, 2) = +2. Events: old 8→11, then new 5→7.
func (dc *deploymentController) scale(d *apps.Deployment, newRS *apps.ReplicaSet, oldRSs []*apps.ReplicaSet) {
	oldRSs = append([]*apps.ReplicaSet(nil), oldRSs...)
	if activeOrLatest := deploymentutil.FindActiveOrLatest(newRS, oldRSs); activeOrLatest != nil {
		if *activeOrLatest.Spec.Replicas == *d.Spec.Replicas {
			return
		}
		dc.scaleReplicaSet(activeOrLatest, *d.Spec.Replicas, d, false)
		return
	}
	if deploymentutil.IsSaturated(d, newRS) {
		for _, old := range controller.FilterActiveReplicaSets(oldRSs) {
			dc.scaleReplicaSet(old, 0, d, false)
		}
		return
	}
	if !deploymentutil.IsRollingUpdate(d) {
		return
	}
	allRSs := controller.FilterActiveReplicaSets(append(oldRSs, newRS))
	allRSsReplicas := deploymentutil.GetReplicaCountForReplicaSets(allRSs)
	allowedSize := int32(0)
	if *d.Spec.Replicas > 0 {
		allowedSize = *d.Spec.Replicas + deploymentutil.MaxSurge(*d)
	}
	deploymentReplicasToAdd := allowedSize - allRSsReplicas
	switch {
	case deploymentReplicasToAdd > 0:
		sort.Sort(controller.ReplicaSetsBySizeNewer(allRSs))
	case deploymentReplicasToAdd < 0:
		sort.Sort(controller.ReplicaSetsBySizeOlder(allRSs))
	}
	deploymentReplicasAdded := int32(0)
	nameToSize := make(map[string]int32, len(allRSs))
	for _, rs := range allRSs {
		if deploymentReplicasToAdd != 0 {
			proportion := deploymentutil.GetReplicaSetProportion(dc.logger, rs, *d, deploymentReplicasToAdd, deploymentReplicasAdded)
			nameToSize[rs.Name] = *rs.Spec.Replicas + proportion
			deploymentReplicasAdded += proportion
		} else {
			nameToSize[rs.Name] = *rs.Spec.Replicas
		}
	}
	for i, rs := range allRSs {
		// Example: 3 → 4 with three ReplicaSets of 1 adds round(1·5/4)−1 = 0 to each (max
		// replicas 4 → 5 with surge 1), so the leftover 1 goes to allRSs[0], the newest.
		if i == 0 && deploymentReplicasToAdd != 0 {
			leftover := deploymentReplicasToAdd - deploymentReplicasAdded
			nameToSize[rs.Name] = max(nameToSize[rs.Name]+leftover, 0)
		}
		dc.scaleReplicaSet(rs, nameToSize[rs.Name], d, true)
	}
}

// scaleReplicaSet mirrors DeploymentController.scaleReplicaSet: unless forced, it acts only when
// the size differs; it writes the size and the desired-replicas / max-replicas annotations
// (max = replicas + MaxSurge), and emits "Scaled up|down replica set NAME from OLD to NEW" when
// the size changed. It reports whether the size changed.
//
// Example: 10 replicas at 25% surge write desired-replicas "10" and max-replicas 10+3 = "13".
func (dc *deploymentController) scaleReplicaSet(rs *apps.ReplicaSet, newScale int32, d *apps.Deployment, forceUpdate bool) bool {
	if !forceUpdate && *rs.Spec.Replicas == newScale {
		return false
	}
	maxReplicas := *d.Spec.Replicas + deploymentutil.MaxSurge(*d)
	sizeNeedsUpdate := *rs.Spec.Replicas != newScale
	annotationsNeedUpdate := deploymentutil.ReplicasAnnotationsNeedUpdate(rs, *d.Spec.Replicas, maxReplicas)
	if !sizeNeedsUpdate && !annotationsNeedUpdate {
		return false
	}
	oldScale := *rs.Spec.Replicas
	*rs.Spec.Replicas = newScale
	deploymentutil.SetReplicasAnnotations(rs, *d.Spec.Replicas, maxReplicas)
	dc.wrote = true
	if !sizeNeedsUpdate {
		return false
	}
	scalingOperation := "down"
	if oldScale < newScale {
		scalingOperation = "up"
	}
	dc.event(ReasonScaling, fmt.Sprintf("Scaled %s replica set %s from %d to %d", scalingOperation, rs.Name, oldScale, newScale))
	return true
}
