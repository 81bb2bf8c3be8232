package deployment

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
	labelsutil "k8s.io/kubernetes/pkg/util/labels"
)

// maxRevHistoryLengthInChars caps the revision-history annotation, as upstream does.
const maxRevHistoryLengthInChars = 2000

// deploymentController is the simulated Deployment controller. Its API writes go straight to
// the objects it is handed (the world owns them); creations and deletions of ReplicaSets and
// events go through hooks, and time comes from now.
type deploymentController struct {
	now    func() time.Time
	logger klog.Logger
	// createRS stores a new ReplicaSet in the world and returns it with its creation timestamp
	// and UID set.
	createRS func(rs *apps.ReplicaSet) *apps.ReplicaSet
	// deleteRS removes a ReplicaSet from the world.
	deleteRS func(rs *apps.ReplicaSet)
	// event records a controller event on the Deployment.
	event func(reason, message string)
	// wrote is set whenever a sync changes a ReplicaSet (size, annotations) or creates or
	// deletes one: the informers would then trigger another sync.
	wrote bool
	// templateMatch, when set, memoizes EqualIgnoreHash(rs template, Deployment template) by
	// ReplicaSet UID. The world sets it because neither template changes during a simulation;
	// without it, a 10,000-replica rollout spends 80% of its time deep-copying templates.
	templateMatch map[types.UID]bool
	// requeue collects the times at which syncs asked to be run again (enqueueAfter).
	requeue []time.Time
}

// newFixedClockController returns a controller whose clock stands still at now, whose created
// ReplicaSets get now as creation time and their name as UID, whose deletions are no-ops, and
// which appends event messages to events when it is not nil. startFromOld and the unit tests
// use it.
func newFixedClockController(now time.Time, events *[]string) *deploymentController {
	return &deploymentController{
		now:    func() time.Time { return now },
		logger: klog.Background(),
		createRS: func(rs *apps.ReplicaSet) *apps.ReplicaSet {
			rs.CreationTimestamp = metav1.NewTime(now)
			rs.UID = types.UID(rs.Name)
			return rs
		},
		deleteRS: func(*apps.ReplicaSet) {},
		event: func(_, message string) {
			if events != nil {
				*events = append(*events, message)
			}
		},
	}
}

// newCondition mirrors deploymentutil.NewDeploymentCondition with the injected clock instead of
// metav1.Now, truncated to whole seconds: the API server stores metav1.Time with second
// precision (RFC 3339 in JSON; protobuf drops the nanoseconds), and every later sync reads
// the condition back from the informer, so the progress deadline counts from the truncated
// time. Nothing in the sync that creates a condition compares its time.
//
// Example: progress at 12:00:00.7 with a 10s deadline is stored as 12:00:00, times out once
// now is after 12:00:10, and the controller re-checks at 12:00:10 + 1s = 12:00:11, 10.3s after
// the progress rather than 11s.
func (dc *deploymentController) newCondition(condType apps.DeploymentConditionType, status v1.ConditionStatus, reason, message string) *apps.DeploymentCondition {
	now := metav1.NewTime(dc.now().Truncate(time.Second))
	return &apps.DeploymentCondition{
		Type:               condType,
		Status:             status,
		LastUpdateTime:     now,
		LastTransitionTime: now,
		Reason:             reason,
		Message:            message,
	}
}

// syncDeployment mirrors DeploymentController.syncDeployment: a select-everything selector is
// refused; a deleting Deployment only syncs status; a paused one runs sync (scale only); a
// scaling event runs sync (proportional scaling); otherwise the strategy runs. Rollback via the
// deprecated rollbackTo annotation is not modelled.
func (dc *deploymentController) syncDeployment(d *apps.Deployment, rsList []*apps.ReplicaSet, podMap map[types.UID][]*v1.Pod) error {
	everything := metav1.LabelSelector{}
	if reflect.DeepEqual(d.Spec.Selector, &everything) {
		dc.event("SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		return nil
	}
	if d.DeletionTimestamp != nil {
		return dc.syncStatusOnly(d, rsList)
	}
	dc.checkPausedConditions(d)
	if d.Spec.Paused {
		return dc.sync(d, rsList)
	}
	if dc.isScalingEvent(d, rsList) {
		return dc.sync(d, rsList)
	}
	switch d.Spec.Strategy.Type {
	case apps.RecreateDeploymentStrategyType:
		return dc.rolloutRecreate(d, rsList, podMap)
	case apps.RollingUpdateDeploymentStrategyType:
		return dc.rolloutRolling(d, rsList)
	}
	return fmt.Errorf("deployment %s: unexpected deployment strategy type: %s", d.Name, d.Spec.Strategy.Type)
}

// syncStatusOnly mirrors DeploymentController.syncStatusOnly.
func (dc *deploymentController) syncStatusOnly(d *apps.Deployment, rsList []*apps.ReplicaSet) error {
	newRS, oldRSs := dc.getAllReplicaSetsAndSyncRevision(d, rsList, false)
	dc.syncDeploymentStatus(append(oldRSs, newRS), newRS, d)
	return nil
}

// sync mirrors DeploymentController.sync: scale, then clean up when paused.
func (dc *deploymentController) sync(d *apps.Deployment, rsList []*apps.ReplicaSet) error {
	newRS, oldRSs := dc.getAllReplicaSetsAndSyncRevision(d, rsList, false)
	dc.scale(d, newRS, oldRSs)
	if d.Spec.Paused {
		dc.cleanupDeployment(oldRSs, d)
	}
	dc.syncDeploymentStatus(append(oldRSs, newRS), newRS, d)
	return nil
}

// checkPausedConditions mirrors DeploymentController.checkPausedConditions: pausing sets
// Progressing=Unknown DeploymentPaused, resuming sets Progressing=Unknown DeploymentResumed (whose
// lastUpdateTime restarts the progress deadline), and a timed-out condition is never overwritten.
func (dc *deploymentController) checkPausedConditions(d *apps.Deployment) {
	if !deploymentutil.HasProgressDeadline(d) {
		return
	}
	cond := deploymentutil.GetDeploymentCondition(d.Status, apps.DeploymentProgressing)
	if cond != nil && cond.Reason == deploymentutil.TimedOutReason {
		return
	}
	pausedCondExists := cond != nil && cond.Reason == deploymentutil.PausedDeployReason
	if d.Spec.Paused && !pausedCondExists {
		deploymentutil.SetDeploymentCondition(&d.Status, *dc.newCondition(apps.DeploymentProgressing, v1.ConditionUnknown, deploymentutil.PausedDeployReason, "Deployment is paused"))
	} else if !d.Spec.Paused && pausedCondExists {
		deploymentutil.SetDeploymentCondition(&d.Status, *dc.newCondition(apps.DeploymentProgressing, v1.ConditionUnknown, deploymentutil.ResumedDeployReason, "Deployment is resumed"))
	}
}

// isScalingEvent mirrors DeploymentController.isScalingEvent: some active ReplicaSet's
// desired-replicas annotation differs from spec.replicas.
//
// Example: the only active ReplicaSet says desired-replicas "10" and the Deployment now asks for
// 15, so 10 ≠ 15 is a scaling event.
func (dc *deploymentController) isScalingEvent(d *apps.Deployment, rsList []*apps.ReplicaSet) bool {
	newRS, oldRSs := dc.getAllReplicaSetsAndSyncRevision(d, rsList, false)
	for _, rs := range controller.FilterActiveReplicaSets(append(oldRSs, newRS)) {
		desired, ok := deploymentutil.GetDesiredReplicasAnnotation(dc.logger, rs)
		if !ok {
			continue
		}
		if desired != *d.Spec.Replicas {
			return true
		}
	}
	return false
}

// getAllReplicaSetsAndSyncRevision mirrors DeploymentController.getAllReplicaSetsAndSyncRevision.
// The new ReplicaSet may be nil when createIfNotExisted is false.
func (dc *deploymentController) getAllReplicaSetsAndSyncRevision(d *apps.Deployment, rsList []*apps.ReplicaSet, createIfNotExisted bool) (*apps.ReplicaSet, []*apps.ReplicaSet) {
	// FindNewReplicaSet sorts its argument; keep the caller's order.
	rsList = append([]*apps.ReplicaSet(nil), rsList...)
	_, allOldRSs := dc.findOldReplicaSets(d, rsList)
	return dc.getNewReplicaSet(d, rsList, allOldRSs, createIfNotExisted), allOldRSs
}

// getNewReplicaSet mirrors DeploymentController.getNewReplicaSet. An existing new ReplicaSet
// gets its annotations and minReadySeconds synced (and, on a later sync, the Deployment its
// revision). A missing one is created, if asked, named d.Name + "-" + ComputeHash(template,
// collisionCount), sized by NewRSNewReplicas, with revision maxOldRevision+1.
//
// Example: old ReplicaSets at revisions 1 and 3 give the new one revision 3+1 = 4.
func (dc *deploymentController) getNewReplicaSet(d *apps.Deployment, rsList, oldRSs []*apps.ReplicaSet, createIfNotExisted bool) *apps.ReplicaSet {
	ctx := klog.NewContext(context.Background(), dc.logger)
	existingNewRS := dc.findNewReplicaSet(d, rsList)
	maxOldRevision := deploymentutil.MaxRevision(dc.logger, oldRSs)
	newRevision := strconv.FormatInt(maxOldRevision+1, 10)

	if existingNewRS != nil {
		annotationsUpdated := deploymentutil.SetNewReplicaSetAnnotations(ctx, d, existingNewRS, newRevision, true, maxRevHistoryLengthInChars)
		minReadySecondsNeedsUpdate := existingNewRS.Spec.MinReadySeconds != d.Spec.MinReadySeconds
		if annotationsUpdated || minReadySecondsNeedsUpdate {
			existingNewRS.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			dc.wrote = true
			return existingNewRS
		}
		deploymentutil.SetDeploymentRevision(d, existingNewRS.Annotations[deploymentutil.RevisionAnnotation])
		cond := deploymentutil.GetDeploymentCondition(d.Status, apps.DeploymentProgressing)
		if deploymentutil.HasProgressDeadline(d) && cond == nil {
			msg := fmt.Sprintf("Found new replica set %q", existingNewRS.Name)
			deploymentutil.SetDeploymentCondition(&d.Status, *dc.newCondition(apps.DeploymentProgressing, v1.ConditionTrue, deploymentutil.FoundNewRSReason, msg))
		}
		return existingNewRS
	}
	if !createIfNotExisted {
		return nil
	}

	newRSTemplate := *d.Spec.Template.DeepCopy()
	podTemplateSpecHash := controller.ComputeHash(&newRSTemplate, d.Status.CollisionCount)
	newRSTemplate.Labels = labelsutil.CloneAndAddLabel(d.Spec.Template.Labels, apps.DefaultDeploymentUniqueLabelKey, podTemplateSpecHash)
	newRSSelector := labelsutil.CloneSelectorAndAddLabel(d.Spec.Selector, apps.DefaultDeploymentUniqueLabelKey, podTemplateSpecHash)
	newRS := &apps.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            generateReplicaSetName(d.Name, podTemplateSpecHash),
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, apps.SchemeGroupVersion.WithKind("Deployment"))},
			Labels:          newRSTemplate.Labels,
		},
		Spec: apps.ReplicaSetSpec{
			Replicas:        new(int32),
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        newRSSelector,
			Template:        newRSTemplate,
		},
	}
	newReplicasCount, err := deploymentutil.NewRSNewReplicas(d, append(oldRSs, newRS), newRS)
	if err != nil {
		// Only an unknown strategy type errs; validation rejects it before we get here.
		return nil
	}
	*newRS.Spec.Replicas = newReplicasCount
	deploymentutil.SetNewReplicaSetAnnotations(ctx, d, newRS, newRevision, false, maxRevHistoryLengthInChars)
	createdRS := dc.createRS(newRS)
	dc.wrote = true
	if newReplicasCount > 0 {
		dc.event(ReasonScaling, fmt.Sprintf("Scaled up replica set %s from 0 to %d", createdRS.Name, newReplicasCount))
	}
	deploymentutil.SetDeploymentRevision(d, newRevision)
	if deploymentutil.HasProgressDeadline(d) {
		msg := fmt.Sprintf("Created new replica set %q", createdRS.Name)
		deploymentutil.SetDeploymentCondition(&d.Status, *dc.newCondition(apps.DeploymentProgressing, v1.ConditionTrue, deploymentutil.NewReplicaSetReason, msg))
	}
	return createdRS
}

// equalIgnoreHash is deploymentutil.EqualIgnoreHash of rs's and d's templates, memoized when
// templateMatch is set.
func (dc *deploymentController) equalIgnoreHash(rs *apps.ReplicaSet, d *apps.Deployment) bool {
	if dc.templateMatch == nil || rs.UID == "" {
		return deploymentutil.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template)
	}
	eq, ok := dc.templateMatch[rs.UID]
	if !ok {
		eq = deploymentutil.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template)
		dc.templateMatch[rs.UID] = eq
	}
	return eq
}

// findNewReplicaSet mirrors deploymentutil.FindNewReplicaSet with the memoized equality: the
// oldest ReplicaSet (creation time, then name) whose template equals d's, ignoring the hash
// label.
func (dc *deploymentController) findNewReplicaSet(d *apps.Deployment, rsList []*apps.ReplicaSet) *apps.ReplicaSet {
	sort.Sort(controller.ReplicaSetsByCreationTimestamp(rsList))
	for _, rs := range rsList {
		if dc.equalIgnoreHash(rs, d) {
			return rs
		}
	}
	return nil
}

// findOldReplicaSets mirrors deploymentutil.FindOldReplicaSets with the memoized equality: every
// ReplicaSet but the new one (by UID), and those of them with spec.replicas ≠ 0.
func (dc *deploymentController) findOldReplicaSets(d *apps.Deployment, rsList []*apps.ReplicaSet) ([]*apps.ReplicaSet, []*apps.ReplicaSet) {
	var requiredRSs, allRSs []*apps.ReplicaSet
	newRS := dc.findNewReplicaSet(d, rsList)
	for _, rs := range rsList {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		allRSs = append(allRSs, rs)
		if *rs.Spec.Replicas != 0 {
			requiredRSs = append(requiredRSs, rs)
		}
	}
	return requiredRSs, allRSs
}

// generateReplicaSetName mirrors generateReplicaSetName: the Deployment name is truncated so
// that name + "-" + hash fits in 253 characters.
//
// Example: a 250-character name with a 10-character hash keeps 253 − 1 − 10 = 242 characters.
func generateReplicaSetName(deploymentName, podTemplateSpecHash string) string {
	maxDeploymentNameLength := validation.DNS1123SubdomainMaxLength - 1 - len(podTemplateSpecHash)
	if len(deploymentName) > maxDeploymentNameLength && maxDeploymentNameLength > 0 {
		return deploymentName[:maxDeploymentNameLength] + "-" + podTemplateSpecHash
	}
	return deploymentName + "-" + podTemplateSpecHash
}

// cleanupDeployment mirrors DeploymentController.cleanupDeployment: with more old ReplicaSets
// than revisionHistoryLimit, the lowest revisions that are scaled to 0 and have no pods are
// deleted.
//
// Example: 12 old ReplicaSets and a limit of 10 delete at most 12 − 10 = 2, oldest revision first.
func (dc *deploymentController) cleanupDeployment(oldRSs []*apps.ReplicaSet, d *apps.Deployment) {
	if !deploymentutil.HasRevisionHistoryLimit(d) {
		return
	}
	cleanable := controller.FilterReplicaSets(oldRSs, func(rs *apps.ReplicaSet) bool {
		return rs != nil && rs.DeletionTimestamp == nil
	})
	diff := int32(len(cleanable)) - *d.Spec.RevisionHistoryLimit
	if diff <= 0 {
		return
	}
	sort.Sort(deploymentutil.ReplicaSetsByRevision(cleanable))
	for i := int32(0); i < diff; i++ {
		rs := cleanable[i]
		if rs.Status.Replicas != 0 || *rs.Spec.Replicas != 0 || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {
			continue
		}
		dc.deleteRS(rs)
		dc.wrote = true
	}
}

// syncDeploymentStatus mirrors DeploymentController.syncDeploymentStatus.
func (dc *deploymentController) syncDeploymentStatus(allRSs []*apps.ReplicaSet, newRS *apps.ReplicaSet, d *apps.Deployment) {
	d.Status = dc.calculateStatus(allRSs, newRS, d)
}

// calculateStatus mirrors calculateStatus. The Available condition is True when
// available ≥ replicas − MaxUnavailable. status.terminatingReplicas (feature
// DeploymentReplicaSetTerminatingReplicas) is not modelled: no scaling decision reads it.
//
// Example: 10 replicas at 25% give MaxUnavailable floor(2.5) = 2, so 8 available pods suffice.
func (dc *deploymentController) calculateStatus(allRSs []*apps.ReplicaSet, newRS *apps.ReplicaSet, d *apps.Deployment) apps.DeploymentStatus {
	availableReplicas := deploymentutil.GetAvailableReplicaCountForReplicaSets(allRSs)
	totalReplicas := deploymentutil.GetReplicaCountForReplicaSets(allRSs)
	unavailableReplicas := max(totalReplicas-availableReplicas, 0)
	status := apps.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            deploymentutil.GetActualReplicaCountForReplicaSets(allRSs),
		UpdatedReplicas:     deploymentutil.GetActualReplicaCountForReplicaSets([]*apps.ReplicaSet{newRS}),
		ReadyReplicas:       deploymentutil.GetReadyReplicaCountForReplicaSets(allRSs),
		AvailableReplicas:   availableReplicas,
		UnavailableReplicas: unavailableReplicas,
		CollisionCount:      d.Status.CollisionCount,
	}
	status.Conditions = append(status.Conditions, d.Status.Conditions...)
	if availableReplicas >= *d.Spec.Replicas-deploymentutil.MaxUnavailable(*d) {
		deploymentutil.SetDeploymentCondition(&status, *dc.newCondition(apps.DeploymentAvailable, v1.ConditionTrue, deploymentutil.MinimumReplicasAvailable, "Deployment has minimum availability."))
	} else {
		deploymentutil.SetDeploymentCondition(&status, *dc.newCondition(apps.DeploymentAvailable, v1.ConditionFalse, deploymentutil.MinimumReplicasUnavailable, "Deployment does not have minimum availability."))
	}
	return status
}
