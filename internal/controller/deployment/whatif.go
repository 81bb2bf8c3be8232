package deployment

import (
	"errors"
	"fmt"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	kubectldeploymentutil "k8s.io/kubectl/pkg/util/deployment"
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
	if err := w.SetImages(d); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ref, err)
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

// rollback mirrors kubectl's DeploymentRollbacker.Rollback (k8s.io/kubectl/pkg/polymorphichelpers/rollback.go)
// without writing anything, in its order of checks: the ReplicaSet of toRevision is found
// first (deploymentRevision, mirrored by revisionReplicaSet), then a paused Deployment is
// refused, then a template that already matches is skipped with kubectl's message, which,
// as kubectl's, names the revision asked for (0 when none was). Otherwise the ReplicaSet's
// template, without the pod-template-hash label, and its annotations (but
// rollbackSkippedAnnotations, kubectl's annotationsToSkip) replace d's, as kubectl's JSON
// patch does.
func rollback(d *apps.Deployment, rsList []*apps.ReplicaSet, toRevision int64) (string, error) {
	if toRevision < 0 {
		return "", fmt.Errorf("unable to find specified revision %v in history", toRevision)
	}
	rs, err := revisionReplicaSet(d, rsList, toRevision)
	if err != nil {
		return "", err
	}
	if d.Spec.Paused {
		return "", errors.New("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")
	}
	if deploymentutil.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
		return fmt.Sprintf("skipped rollback (current template already matches revision %d)", toRevision), nil
	}
	tpl := rs.Spec.Template.DeepCopy()
	delete(tpl.Labels, apps.DefaultDeploymentUniqueLabelKey)
	d.Spec.Template = *tpl
	// kubectl's JSON patch replaces metadata.annotations: the Deployment keeps only its
	// annotationsToSkip, and takes the ReplicaSet's others.
	annotations := map[string]string{}
	for k := range rollbackSkippedAnnotations {
		if v, ok := d.Annotations[k]; ok {
			annotations[k] = v
		}
	}
	for k, v := range rs.Annotations {
		if !rollbackSkippedAnnotations[k] {
			annotations[k] = v
		}
	}
	d.Annotations = annotations
	return "", nil
}

// revisionReplicaSet mirrors kubectl's unexported deploymentRevision
// (k8s.io/kubectl/pkg/polymorphichelpers/rollback.go): among d's ReplicaSets with a revision
// (kubectl's own deploymentutil.Revision reads the annotation), toRevision's, or for 0 the
// second newest. Example: revisions 3, 5 and 4 with toRevision 0 give 4; toRevision 2 is
// "unable to find specified revision 2 in history".
func revisionReplicaSet(d *apps.Deployment, rsList []*apps.ReplicaSet, toRevision int64) (*apps.ReplicaSet, error) {
	var latest, previous *apps.ReplicaSet
	latestRevision, previousRevision := int64(-1), int64(-1)
	for _, rs := range rsList {
		v, err := kubectldeploymentutil.Revision(rs)
		if err != nil {
			continue
		}
		switch {
		case toRevision == 0 && latestRevision < v:
			previousRevision, previous = latestRevision, latest
			latestRevision, latest = v, rs
		case toRevision == 0 && previousRevision < v:
			previousRevision, previous = v, rs
		case toRevision != 0 && toRevision == v:
			return rs, nil
		}
	}
	if toRevision > 0 {
		return nil, fmt.Errorf("unable to find specified revision %v in history", toRevision)
	}
	if previous == nil {
		return nil, fmt.Errorf("no rollout history found for deployment %q", d.Name)
	}
	return previous, nil
}
