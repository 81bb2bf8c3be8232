package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// kindBarePodRule is kind/bare-pod.
var kindBarePodRule = BuiltinRule{
	Meta: Rule{
		ID:       "kind/bare-pod",
		Title:    "Bare Pod without a controller",
		Severity: SeverityInfo,
		Kinds:    []string{"Pod"},
		File:     "object_kind_bare_pod.go",
		Description: `A Pod without ownerReferences has no controller to recreate it. A pod is bound
to one node for its whole life: if the node fails, the pod is evicted (by
default after the 300 s not-ready or unreachable toleration the API server adds)
and deleted, and nothing replaces it; the same holds after a drain, a preemption
or a kubectl delete. Its spec is also mostly immutable, so a new image or
configuration means deleting and recreating it by hand. Pods that carry
ownerReferences (created by a controller, or adopted) are not reported.`,
		Remediation: "Run the pod from a controller, such as a Deployment (or a StatefulSet for stable identity and storage, a DaemonSet for one per node), or a Job for a task that runs to completion.",
	},
	Check: checkBarePod,
}

// checkBarePod reports a Pod without ownerReferences.
func checkBarePod(c *ObjectContext) []Finding {
	pod, ok := c.Object.(*corev1.Pod)
	if !ok || len(pod.OwnerReferences) > 0 {
		return nil
	}
	suggestion := "Deployment, StatefulSet or DaemonSet"
	if p := pod.Spec.RestartPolicy; p == corev1.RestartPolicyNever || p == corev1.RestartPolicyOnFailure {
		suggestion = "Job"
	}
	return []Finding{{Path: "kind",
		Message: fmt.Sprintf("Pod %s has no ownerReferences: no controller replaces it when it is deleted, evicted or its node fails, and it is not rescheduled elsewhere; run it from a %s",
			c.Name, suggestion)}}
}
