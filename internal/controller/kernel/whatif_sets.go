package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ApplyToTemplate applies w to a StatefulSet's or DaemonSet's pod template and replicas, as
// kubectl set image, scale, rollout restart and rollout undo do for them. obj is the
// StatefulSet or DaemonSet, tpl its template and replicas its spec.replicas (nil for a
// DaemonSet, which has none); history is the object's ControllerRevisions, which Undo needs.
// It returns notes for the plan (kubectl's "skipped rollback" message). --resume applies only to
// Deployments.
func (w WhatIf) ApplyToTemplate(ref string, obj runtime.Object, tpl *v1.PodTemplateSpec, replicas **int32, history []*apps.ControllerRevision) ([]string, error) {
	var notes []string
	if w.Resume {
		return nil, fmt.Errorf("%s: --resume applies to Deployments (only they pause)", ref)
	}
	if w.Undo {
		note, err := rollbackRevision(tpl, history, w.ToRevision)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	if err := w.SetImages(obj); err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	if w.Replicas != nil {
		if replicas == nil {
			return nil, fmt.Errorf("%s: --replicas: a DaemonSet runs one pod per eligible node and has no replicas", ref)
		}
		if *w.Replicas < 0 {
			return nil, fmt.Errorf("%s: replicas %d: must be non-negative", ref, *w.Replicas)
		}
		n := *w.Replicas
		*replicas = &n
	}
	if w.Restart {
		if tpl.Annotations == nil {
			tpl.Annotations = map[string]string{}
		}
		tpl.Annotations[RestartedAtAnnotation] = w.RestartAt.Format(time.RFC3339)
	}
	return notes, nil
}

// OwnedRevisions returns the ControllerRevisions of the state that owner controls (by UID, or
// by kind and name in a dump without UIDs), oldest revision first.
func (s *State) OwnedRevisions(owner metav1.Object, kind string) []*apps.ControllerRevision {
	var out []*apps.ControllerRevision
	for _, cr := range s.ControllerRevisions {
		if cr.Namespace != owner.GetNamespace() && cr.Namespace != "" && owner.GetNamespace() != "" {
			continue
		}
		ref := metav1.GetControllerOf(cr)
		if ref == nil {
			continue
		}
		if (owner.GetUID() != "" && ref.UID == owner.GetUID()) || (owner.GetUID() == "" && ref.Kind == kind && ref.Name == owner.GetName()) {
			out = append(out, cr)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Revision < out[j].Revision })
	return out
}

// rollbackRevision mirrors kubectl's StatefulSetRollbacker and DaemonSetRollbacker
// (k8s.io/kubectl/pkg/polymorphichelpers/rollback.go, with its unexported findHistory) without
// writing anything: it finds the ControllerRevision toRevision (0: the previous one, the
// second highest) and puts its pod template, which the revision stores as a patch replacing
// spec.template, into tpl. When tpl already is that template it changes nothing and returns
// kubectl's "skipped rollback" message, which names toRevision as kubectl's does.
func rollbackRevision(tpl *v1.PodTemplateSpec, history []*apps.ControllerRevision, toRevision int64) (string, error) {
	if toRevision < 0 {
		return "", fmt.Errorf("unable to find specified revision %d in history", toRevision)
	}
	if len(history) == 0 {
		return "", errors.New("no rollout history found (a --state dump needs the ControllerRevisions: kubectl get sts,ds,controllerrevisions,pods -o yaml)")
	}
	var target *apps.ControllerRevision
	switch {
	case toRevision == 0 && len(history) < 2:
		return "", errors.New("no last revision to roll back to")
	case toRevision == 0:
		target = history[len(history)-2]
	default:
		for _, cr := range history {
			if cr.Revision == toRevision {
				target = cr
			}
		}
		if target == nil {
			return "", fmt.Errorf("unable to find specified revision %d in history", toRevision)
		}
	}
	var patch struct {
		Spec struct {
			Template json.RawMessage `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(target.Data.Raw, &patch); err != nil {
		return "", fmt.Errorf("controllerrevision %s: decode its data: %w", target.Name, err)
	}
	if len(patch.Spec.Template) == 0 {
		return "", fmt.Errorf("controllerrevision %s: no spec.template in its data", target.Name)
	}
	var next v1.PodTemplateSpec
	if err := json.Unmarshal(patch.Spec.Template, &next); err != nil {
		return "", fmt.Errorf("controllerrevision %s: decode spec.template: %w", target.Name, err)
	}
	if apiequality.Semantic.DeepEqual(&next, tpl) {
		// As kubectl's message, the revision asked for: 0 when none was.
		return fmt.Sprintf("skipped rollback (current template already matches revision %d)", toRevision), nil
	}
	*tpl = next
	return "", nil
}
