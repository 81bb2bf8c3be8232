package kernel

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubectl/pkg/polymorphichelpers"
)

// RestartedAtAnnotation is the pod-template annotation `kubectl rollout restart` sets.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// ImageChange is one NAME=IMAGE of `kubectl set image`; Container "*" means every container.
type ImageChange struct {
	Container string
	Image     string
}

// WhatIf is a change made the way kubectl would make it (set image, scale, rollout undo,
// resume, restart), on top of the current workload instead of a new manifest.
type WhatIf struct {
	Images   []ImageChange
	Replicas *int32
	// Undo rolls back to ToRevision, or to the previous revision when ToRevision is 0.
	Undo       bool
	ToRevision int64
	Resume     bool
	// Restart sets RestartedAtAnnotation to RestartAt, formatted as kubectl formats it.
	Restart   bool
	RestartAt time.Time
}

// Empty reports whether w changes nothing.
func (w WhatIf) Empty() bool {
	return len(w.Images) == 0 && w.Replicas == nil && !w.Undo && !w.Resume && !w.Restart
}

// SetImage mirrors `kubectl set image` on one pod spec (SetImageOptions.Run's function over
// the pod spec, k8s.io/kubectl/pkg/cmd/set/set_image.go, with its unexported setImage): NAME
// matches an init container or container by name, "*" every one of them; a name that matches
// nothing is kubectl's error, followed by the containers there are.
func SetImage(spec *v1.PodSpec, ic ImageChange) error {
	found := false
	var names []string
	for _, list := range [][]v1.Container{spec.InitContainers, spec.Containers} {
		for i := range list {
			names = append(names, list[i].Name)
			if ic.Container == "*" || list[i].Name == ic.Container {
				list[i].Image = ic.Image
				found = true
			}
		}
	}
	if !found {
		return fmt.Errorf("unable to find container named %q (its containers: %s)", ic.Container, strings.Join(names, ", "))
	}
	return nil
}

// SetImages applies w's --image changes to the workload obj as `kubectl set image` does:
// kubectl's own polymorphichelpers.UpdatePodSpecForObjectFn finds the pod spec of each kind it
// knows (Deployments, StatefulSets, DaemonSets, ReplicaSets, ...), and SetImage changes its
// containers, in the order given.
func (w WhatIf) SetImages(obj runtime.Object) error {
	for _, ic := range w.Images {
		ok, err := polymorphichelpers.UpdatePodSpecForObjectFn(obj, func(spec *v1.PodSpec) error { return SetImage(spec, ic) })
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%T has no pod template to set an image in", obj)
		}
	}
	return nil
}
