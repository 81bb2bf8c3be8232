package runner

import (
	"encoding/json"
	"fmt"
	"sort"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// multiAttachNotes are the plan's notes for a Deployment whose surge pod
// needs a ReadWriteOnce (or ReadWriteOncePod) claim of the input that the
// old pod holds (rules.MultiAttachRisks, lint's rollout/volume-multi-attach):
// a likely stall, which the timing model does not simulate (it assumes
// every new pod starts).
func multiAttachNotes(objects []*manifest.Object, d *apps.Deployment, namespace string) []string {
	modes := func(claim string) ([]v1.PersistentVolumeAccessMode, bool) {
		for _, o := range objects {
			ns := o.Namespace
			if ns == "" {
				ns = namespace
			}
			if o.Kind != "PersistentVolumeClaim" || o.APIVersion != "v1" || o.Name != claim || ns != namespace {
				continue
			}
			var pvc v1.PersistentVolumeClaim
			if json.Unmarshal(o.JSON, &pvc) != nil {
				return nil, false
			}
			return pvc.Spec.AccessModes, true
		}
		return nil, false
	}
	var notes []string
	for _, r := range rules.MultiAttachRisks(d, modes) {
		notes = append(notes, fmt.Sprintf("likely stall: volume %s mounts PersistentVolumeClaim %s, which is %s; a surge pod on another node waits in ContainerCreating (Multi-Attach error) and the rollout stalls until progressDeadlineSeconds. The steps below assume each new pod starts; use strategy Recreate, or maxSurge 0 with maxUnavailable 1",
			r.Volume, r.Claim, r.Why))
	}
	return notes
}

// addMultiAttachNotes adds multiAttachNotes to a Deployment's plan.
func addMultiAttachNotes(pred *Prediction, objects []*manifest.Object, d *apps.Deployment, namespace string) {
	if pred.Plan == nil {
		return
	}
	if notes := multiAttachNotes(objects, d, namespace); len(notes) > 0 {
		pred.Plan.Notes = append(pred.Plan.Notes, notes...)
		sort.Strings(pred.Plan.Notes)
	}
}
