package deployment

import (
	"strings"
	"testing"

	apps "k8s.io/api/apps/v1"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

func TestWhatIfUndo(t *testing.T) {
	v1d := webDeployment(t, 3, "nginx:1.0", defaultStrategy)
	v2d := webDeployment(t, 3, "nginx:2.0", defaultStrategy)
	v3d := webDeployment(t, 3, "nginx:3.0", defaultStrategy)
	rs := func(d *apps.Deployment, rev string) *apps.ReplicaSet {
		r := stateRS(rsName(d), d, 0, rev, kernel.Epoch)
		r.Spec.Template.Labels = map[string]string{"app": "web", apps.DefaultDeploymentUniqueLabelKey: "hash"}
		for k, v := range d.Spec.Template.Labels {
			r.Spec.Template.Labels[k] = v
		}
		return r
	}
	rsList := []*apps.ReplicaSet{rs(v1d, "1"), rs(v2d, "2"), rs(v3d, "3")}
	tests := []struct {
		name       string
		toRevision int64
		wantImage  string
		wantErr    string
	}{
		{name: "previous revision", wantImage: "nginx:2.0"},
		{name: "to revision 1", toRevision: 1, wantImage: "nginx:1.0"},
		{name: "unknown revision", toRevision: 7, wantErr: "unable to find specified revision 7 in history"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _, err := ApplyWhatIf(kernel.WhatIf{Undo: true, ToRevision: tt.toRevision}, v3d, rsList)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Apply() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply() error: %v", err)
			}
			if got := d.Spec.Template.Spec.Containers[0].Image; got != tt.wantImage {
				t.Errorf("image after undo = %s, want %s", got, tt.wantImage)
			}
			if _, ok := d.Spec.Template.Labels[apps.DefaultDeploymentUniqueLabelKey]; ok {
				t.Errorf("undo kept the pod-template-hash label: %v", d.Spec.Template.Labels)
			}
			if _, ok := d.Annotations[deploymentutil.RevisionAnnotation]; ok && d.Annotations[deploymentutil.RevisionAnnotation] != v3d.Annotations[deploymentutil.RevisionAnnotation] {
				t.Errorf("undo copied the ReplicaSet's revision annotation: %v", d.Annotations)
			}
		})
	}
	paused := v3d.DeepCopy()
	paused.Spec.Paused = true
	if _, _, err := ApplyWhatIf(kernel.WhatIf{Undo: true}, paused, rsList); err == nil || !strings.Contains(err.Error(), "cannot rollback a paused deployment") {
		t.Errorf("Apply(undo, paused) error = %v, want kubectl's refusal", err)
	}
	if _, notes, err := ApplyWhatIf(kernel.WhatIf{Undo: true, ToRevision: 3}, v3d, rsList); err != nil || len(notes) != 1 || !strings.Contains(notes[0], "skipped rollback") {
		t.Errorf("Apply(undo to current) = %v, %v; want kubectl's skipped-rollback note", notes, err)
	}
}

func TestWhatIfImageAndRestart(t *testing.T) {
	d := webDeployment(t, 3, "nginx:1.0", defaultStrategy)
	got, _, err := ApplyWhatIf(kernel.WhatIf{Images: []kernel.ImageChange{{Container: "*", Image: "nginx:9"}}, Restart: true, RestartAt: kernel.Epoch}, d, nil)
	if err != nil {
		t.Fatalf("Apply() error: %v", err)
	}
	if got.Spec.Template.Spec.Containers[0].Image != "nginx:9" || got.Spec.Template.Annotations[kernel.RestartedAtAnnotation] != "2026-01-01T00:00:00Z" {
		t.Errorf("Apply() template = %+v, want image nginx:9 and restartedAt 2026-01-01T00:00:00Z", got.Spec.Template)
	}
	if d.Spec.Template.Spec.Containers[0].Image != "nginx:1.0" {
		t.Errorf("Apply() changed its input")
	}
}

// TestWhatIfUndoAsKubectl: rollout undo's choices as kubectl's DeploymentRollbacker makes
// them: the revision is looked up before a paused Deployment is refused, the ReplicaSets come
// in any order, the skipped-rollback message names the revision asked for (0 when none was),
// and the Deployment's annotations are replaced by the ReplicaSet's (but annotationsToSkip).
func TestWhatIfUndoAsKubectl(t *testing.T) {
	v3d := webDeployment(t, 3, "nginx:3.0", defaultStrategy)
	rs := func(image, rev string) *apps.ReplicaSet {
		d := webDeployment(t, 3, image, defaultStrategy)
		r := stateRS(rsName(d), d, 0, rev, kernel.Epoch)
		if r.Annotations == nil {
			r.Annotations = map[string]string{}
		}
		r.Annotations["note"] = "of " + image
		return r
	}
	// Out of revision order, as a list returns them.
	rsList := []*apps.ReplicaSet{rs("nginx:2.0", "2"), rs("nginx:3.0", "3"), rs("nginx:1.0", "1")}
	cur := v3d.DeepCopy()
	if cur.Annotations == nil {
		cur.Annotations = map[string]string{}
	}
	cur.Annotations["deploymentOnly"] = "x"
	cur.Annotations[deploymentutil.RevisionAnnotation] = "3"
	got, _, err := ApplyWhatIf(kernel.WhatIf{Undo: true}, cur, rsList)
	if err != nil {
		t.Fatalf("ApplyWhatIf(undo) error: %v", err)
	}
	if img := got.Spec.Template.Spec.Containers[0].Image; img != "nginx:2.0" {
		t.Errorf("ApplyWhatIf(undo) image = %s, want nginx:2.0 (the second newest revision)", img)
	}
	if _, ok := got.Annotations["deploymentOnly"]; ok || got.Annotations["note"] != "of nginx:2.0" || got.Annotations[deploymentutil.RevisionAnnotation] != "3" {
		t.Errorf("ApplyWhatIf(undo) annotations = %v, want the ReplicaSet's note, the Deployment's revision 3 and no deploymentOnly", got.Annotations)
	}
	paused := cur.DeepCopy()
	paused.Spec.Paused = true
	if _, _, err := ApplyWhatIf(kernel.WhatIf{Undo: true, ToRevision: 9}, paused, rsList); err == nil || err.Error() != "deployment default/web: unable to find specified revision 9 in history" {
		t.Errorf("ApplyWhatIf(undo to 9, paused) error = %v, want the missing revision first, as kubectl", err)
	}
	one := []*apps.ReplicaSet{rs("nginx:3.0", "3")}
	if _, _, err := ApplyWhatIf(kernel.WhatIf{Undo: true}, cur, one); err == nil || !strings.HasSuffix(err.Error(), `no rollout history found for deployment "web"`) {
		t.Errorf("ApplyWhatIf(undo, one revision) error = %v, want kubectl's no rollout history", err)
	}
	// The previous revision's template is the current one (the Deployment was changed back and
	// not synced yet): kubectl names the revision asked for, 0.
	back := webDeployment(t, 3, "nginx:2.0", defaultStrategy)
	if _, notes, err := ApplyWhatIf(kernel.WhatIf{Undo: true}, back, rsList); err != nil || len(notes) != 1 || notes[0] != "skipped rollback (current template already matches revision 0)" {
		t.Errorf("ApplyWhatIf(undo to the current template) = %v, %v; want kubectl's message naming revision 0", notes, err)
	}
}
