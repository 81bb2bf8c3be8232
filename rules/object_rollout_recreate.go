package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// rolloutRecreateRule is rollout/recreate.
var rolloutRecreateRule = BuiltinRule{
	Meta: Rule{
		ID:       "rollout/recreate",
		Title:    "Deployment uses the Recreate strategy",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment"},
		File:     "object_rollout_recreate.go",
		OptIn:    true,
		Measured: "0 of 10 true on 10 inputs: deliberate for single-writer controllers and stores",
		Description: `With strategy Recreate, every rollout first scales all old ReplicaSets to 0
(rolloutRecreate, scaleDownOldReplicaSetsForRecreate) and creates or scales
up the new ReplicaSet only once no old pod is left outside the Succeeded and
Failed phases (oldPodsRunning). No pod serves in between: each rollout is
downtime that lasts at least as long as the old pods take to terminate, which
the kubelet bounds by the pod template's terminationGracePeriodSeconds (30
when not set), plus the time the new pods take to start and become ready.
Recreate is the right choice when two versions must never run at the same
time (a ReadWriteOnce volume, an exclusive lock, an incompatible schema),
so the finding is informational. Deployments with 0 replicas are left out.`,
		Remediation: "Use the RollingUpdate strategy unless old and new pods must never run together; if they must not, keep Recreate and keep terminationGracePeriodSeconds as short as a clean shutdown allows.",
	},
	Check: checkRecreate,
}

// checkRecreate reports a Deployment of one replica or more with the
// Recreate strategy.
func checkRecreate(c *ObjectContext) []Finding {
	d, ok := c.Object.(*appsv1.Deployment)
	if !ok || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		return nil
	}
	replicas := ptrOr(d.Spec.Replicas, 1)
	if replicas <= 0 {
		return nil
	}
	grace := ptrOr(d.Spec.Template.Spec.TerminationGracePeriodSeconds, 30)
	graceNote := ", the default"
	// terminationGracePeriodSeconds is defaulted to 30, and strategy.type
	// to RollingUpdate: the message and the field follow what was written.
	path := "spec"
	if written, ok := c.Written().(*appsv1.Deployment); ok {
		if written.Spec.Template.Spec.TerminationGracePeriodSeconds != nil {
			graceNote = ""
		}
		if written.Spec.Strategy.Type != "" {
			path = "spec.strategy.type"
		}
	}
	pods := fmt.Sprintf("all %d pods", replicas)
	if replicas == 1 {
		pods = "the only pod"
	}
	return []Finding{{Path: path,
		Message: fmt.Sprintf("strategy Recreate stops %s before any new pod starts: the controller scales every old ReplicaSet to 0 and creates new pods only once no old pod is running, so each rollout is downtime lasting at least as long as the old pods take to terminate (up to terminationGracePeriodSeconds %d%s) plus the new pods' startup",
			pods, grace, graceNote)}}
}
