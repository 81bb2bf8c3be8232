package deployment

import (
	"testing"

	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// TestUpdated: an update replaces the spec (bumping the generation only when it changes),
// the labels and the annotations, but the revision annotations stay the stored object's, and
// the new manifest cannot set them.
func TestUpdated(t *testing.T) {
	stored := webDeployment(t, 3, "nginx:1.0", defaultStrategy)
	stored.Generation = 4
	stored.Annotations = map[string]string{deploymentutil.RevisionAnnotation: "2", "team": "a"}
	stored.Status.ObservedGeneration = 4

	next := webDeployment(t, 3, "nginx:2.0", defaultStrategy)
	next.Labels = map[string]string{"app": "web", "tier": "front"}
	next.Annotations = map[string]string{"team": "b", deploymentutil.RevisionHistoryAnnotation: "1,2"}

	got := Updated(stored, next)
	if got.Generation != 5 || got.Status.ObservedGeneration != 4 {
		t.Errorf("generation %d, observed %d; want 5 (the spec changed), 4 (status is the stored one)", got.Generation, got.Status.ObservedGeneration)
	}
	if got.Spec.Template.Spec.Containers[0].Image != "nginx:2.0" || got.Labels["tier"] != "front" {
		t.Errorf("spec image %s, labels %v; want the new manifest's", got.Spec.Template.Spec.Containers[0].Image, got.Labels)
	}
	want := map[string]string{deploymentutil.RevisionAnnotation: "2", "team": "b"}
	if len(got.Annotations) != len(want) || got.Annotations["team"] != "b" || got.Annotations[deploymentutil.RevisionAnnotation] != "2" {
		t.Errorf("annotations %v, want %v (the revision kept, the manifest's revision history dropped)", got.Annotations, want)
	}
	if stored.Annotations["team"] != "a" || stored.Generation != 4 {
		t.Errorf("Updated modified its argument: %v, generation %d", stored.Annotations, stored.Generation)
	}
	if same := Updated(stored, stored); same.Generation != 4 {
		t.Errorf("an update with the same spec: generation %d, want 4", same.Generation)
	}
}
