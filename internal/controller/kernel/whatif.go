package kernel

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
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

// SetImage mirrors `kubectl set image`: NAME matches a container or init container by name,
// "*" every one of them; a name that matches nothing is an error.
func SetImage(spec *v1.PodSpec, ic ImageChange) error {
	found := false
	for _, list := range [][]v1.Container{spec.InitContainers, spec.Containers} {
		for i := range list {
			if ic.Container == "*" || list[i].Name == ic.Container {
				list[i].Image = ic.Image
				found = true
			}
		}
	}
	if !found {
		return fmt.Errorf("unable to find container named %q", ic.Container)
	}
	return nil
}
