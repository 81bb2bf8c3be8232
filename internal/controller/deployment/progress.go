package deployment

import (
	"fmt"
	"reflect"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// syncRolloutStatus mirrors DeploymentController.syncRolloutStatus: unless the rollout already
// completed, Progressing becomes NewReplicaSetAvailable when complete, is refreshed
// (ReplicaSetUpdated, lastUpdateTime bumped, lastTransitionTime kept) on progress, and flips to
// ProgressDeadlineExceeded when timed out. ReplicaFailure conditions are not modelled (the
// simulated ReplicaSet controller never fails to create pods).
func (dc *deploymentController) syncRolloutStatus(allRSs []*apps.ReplicaSet, newRS *apps.ReplicaSet, d *apps.Deployment) {
	newStatus := dc.calculateStatus(allRSs, newRS, d)
	if !deploymentutil.HasProgressDeadline(d) {
		deploymentutil.RemoveDeploymentCondition(&newStatus, apps.DeploymentProgressing)
	}
	currentCond := deploymentutil.GetDeploymentCondition(d.Status, apps.DeploymentProgressing)
	isCompleteDeployment := newStatus.Replicas == newStatus.UpdatedReplicas && currentCond != nil && currentCond.Reason == deploymentutil.NewRSAvailableReason
	if deploymentutil.HasProgressDeadline(d) && !isCompleteDeployment {
		switch {
		case deploymentutil.DeploymentComplete(d, &newStatus):
			msg := fmt.Sprintf("Deployment %q has successfully progressed.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has successfully progressed.", newRS.Name)
			}
			deploymentutil.SetDeploymentCondition(&newStatus, *dc.newCondition(apps.DeploymentProgressing, v1.ConditionTrue, deploymentutil.NewRSAvailableReason, msg))
		case deploymentutil.DeploymentProgressing(d, &newStatus):
			msg := fmt.Sprintf("Deployment %q is progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q is progressing.", newRS.Name)
			}
			condition := dc.newCondition(apps.DeploymentProgressing, v1.ConditionTrue, deploymentutil.ReplicaSetUpdatedReason, msg)
			if currentCond != nil {
				if currentCond.Status == v1.ConditionTrue {
					condition.LastTransitionTime = currentCond.LastTransitionTime
				}
				deploymentutil.RemoveDeploymentCondition(&newStatus, apps.DeploymentProgressing)
			}
			deploymentutil.SetDeploymentCondition(&newStatus, *condition)
		case dc.deploymentTimedOut(d, &newStatus):
			msg := fmt.Sprintf("Deployment %q has timed out progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has timed out progressing.", newRS.Name)
			}
			deploymentutil.SetDeploymentCondition(&newStatus, *dc.newCondition(apps.DeploymentProgressing, v1.ConditionFalse, deploymentutil.TimedOutReason, msg))
			if currentCond == nil || currentCond.Reason != deploymentutil.TimedOutReason {
				dc.event(ReasonDeadlineExceeded, msg)
			}
		}
	}
	// Upstream requeues only when the status did not change; a changed status is written,
	// and the resulting update event syncs again, which then requeues.
	if reflect.DeepEqual(d.Status, newStatus) {
		if at, ok := dc.requeueStuckDeployment(d); ok {
			dc.requeue = append(dc.requeue, at)
		}
	}
	d.Status = newStatus
}

// deploymentTimedOut mirrors deploymentutil.DeploymentTimedOut with the injected clock (the
// upstream function reads time.Now): timed out once lastUpdateTime + progressDeadlineSeconds is
// strictly before now.
//
// Example: lastUpdateTime 00:00:00 and a 600 s deadline time out at any now after 00:10:00,
// not at 00:10:00 itself.
func (dc *deploymentController) deploymentTimedOut(d *apps.Deployment, newStatus *apps.DeploymentStatus) bool {
	if !deploymentutil.HasProgressDeadline(d) {
		return false
	}
	condition := deploymentutil.GetDeploymentCondition(*newStatus, apps.DeploymentProgressing)
	if condition == nil {
		return false
	}
	if condition.Reason == deploymentutil.NewRSAvailableReason {
		return false
	}
	if condition.Reason == deploymentutil.TimedOutReason {
		return true
	}
	delta := time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second
	return condition.LastUpdateTime.Add(delta).Before(dc.now())
}

// requeueStuckDeployment mirrors DeploymentController.requeueStuckDeployment: it returns when
// the controller will sync again to check the deadline, and false when it will not.
//
// Example: lastUpdateTime 00:00:00, now 00:03:00, deadline 600 s: after = 10:00 − 3:00 = 7:00,
// and upstream adds a second against clock skew, so the check runs at 00:10:01.
func (dc *deploymentController) requeueStuckDeployment(d *apps.Deployment) (time.Time, bool) {
	currentCond := deploymentutil.GetDeploymentCondition(d.Status, apps.DeploymentProgressing)
	if !deploymentutil.HasProgressDeadline(d) || currentCond == nil {
		return time.Time{}, false
	}
	if deploymentutil.DeploymentComplete(d, &d.Status) || currentCond.Reason == deploymentutil.TimedOutReason {
		return time.Time{}, false
	}
	after := currentCond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(dc.now())
	if after < time.Second {
		// Upstream requeues rate-limited (5 ms, then doubling); the first retry is enough to
		// pass a strict Before.
		return dc.now().Add(5 * time.Millisecond), true
	}
	return dc.now().Add(after + time.Second), true
}
