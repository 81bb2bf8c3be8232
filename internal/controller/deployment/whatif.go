package deployment

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// ApplyWhatIf returns a copy of d with w applied, in kubectl's order of checks, and notes for the
// plan (kubectl's "skipped rollback" message). rsList is d's ReplicaSets, which Undo needs.
func ApplyWhatIf(w kernel.WhatIf, d *apps.Deployment, rsList []*apps.ReplicaSet) (*apps.Deployment, []string, error) {
	d = d.DeepCopy()
	ref := fmt.Sprintf("deployment %s/%s", d.Namespace, d.Name)
	var notes []string
	if w.Undo {
		note, err := rollback(d, rsList, w.ToRevision)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", ref, err)
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	for _, ic := range w.Images {
		if err := kernel.SetImage(&d.Spec.Template.Spec, ic); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", ref, err)
		}
	}
	if w.Replicas != nil {
		if *w.Replicas < 0 {
			return nil, nil, fmt.Errorf("%s: replicas %d: must be non-negative", ref, *w.Replicas)
		}
		d.Spec.Replicas = w.Replicas
	}
	if w.Resume {
		if !d.Spec.Paused {
			return nil, nil, fmt.Errorf("%s: is not paused", ref)
		}
		d.Spec.Paused = false
	}
	if w.Restart {
		// kubectl's objectRestarter refuses a paused Deployment.
		if d.Spec.Paused {
			return nil, nil, fmt.Errorf("%s: can't restart paused deployment (run rollout resume first)", ref)
		}
		if d.Spec.Template.Annotations == nil {
			d.Spec.Template.Annotations = map[string]string{}
		}
		d.Spec.Template.Annotations[kernel.RestartedAtAnnotation] = w.RestartAt.Format(time.RFC3339)
	}
	return d, notes, nil
}

// rollbackSkippedAnnotations are the ReplicaSet annotations a rollback does not copy to the
// Deployment, as kubectl's annotationsToSkip.
var rollbackSkippedAnnotations = map[string]bool{
	v1.LastAppliedConfigAnnotation:           true,
	deploymentutil.RevisionAnnotation:        true,
	deploymentutil.RevisionHistoryAnnotation: true,
	deploymentutil.DesiredReplicasAnnotation: true,
	deploymentutil.MaxReplicasAnnotation:     true,
	apps.DeprecatedRollbackTo:                true,
}

// rollback mirrors kubectl's DeploymentRollbacker.Rollback (k8s.io/kubectl/pkg/polymorphichelpers)
// without writing anything: it finds the ReplicaSet of toRevision (0: the previous revision, the
// second highest), and copies its template, without the pod-template-hash label, and its
// annotations (except rollbackSkippedAnnotations) into d. When d already runs that template it
// changes nothing and returns kubectl's "skipped rollback" message as a note.
func rollback(d *apps.Deployment, rsList []*apps.ReplicaSet, toRevision int64) (string, error) {
	if d.Spec.Paused {
		return "", errors.New("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")
	}
	byRevision := map[int64]*apps.ReplicaSet{}
	var revisions []int64
	for _, rs := range rsList {
		v, err := strconv.ParseInt(rs.Annotations[deploymentutil.RevisionAnnotation], 10, 64)
		if err != nil {
			continue
		}
		byRevision[v] = rs
		revisions = append(revisions, v)
	}
	sort.Slice(revisions, func(i, j int) bool { return revisions[i] > revisions[j] })
	target := toRevision
	if target == 0 {
		if len(revisions) < 2 {
			return "", errors.New("no rollout history found")
		}
		target = revisions[1]
	}
	rs, ok := byRevision[target]
	if !ok {
		return "", fmt.Errorf("unable to find specified revision %d in history", target)
	}
	tpl := rs.Spec.Template.DeepCopy()
	delete(tpl.Labels, apps.DefaultDeploymentUniqueLabelKey)
	if apiequality.Semantic.DeepEqual(tpl, &d.Spec.Template) {
		return fmt.Sprintf("skipped rollback (current template already matches revision %d)", target), nil
	}
	d.Spec.Template = *tpl
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	for k, v := range rs.Annotations {
		if !rollbackSkippedAnnotations[k] {
			d.Annotations[k] = v
		}
	}
	return "", nil
}
