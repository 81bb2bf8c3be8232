package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// resourcesCpuLimitMissingRule is resources/cpu-limit-missing.
var resourcesCpuLimitMissingRule = BuiltinRule{
	Meta: Rule{
		ID:       "resources/cpu-limit-missing",
		Title:    "Container without a CPU limit (opt-in)",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		OptIn:    true,
		File:     "object_resources_cpu_limit_missing.go",
		Description: `Without resources.limits.cpu a container may use every idle CPU of its
node. That is often what a team wants (CPU limits throttle a container
even when the node is idle, which hurts latency), so this rule is off by
default; teams that require CPU limits, for predictable performance or
for the Guaranteed QoS class, enable it with rules.enable.`,
		Remediation: "Set resources.limits.cpu, or leave it unset on purpose and keep this rule off.",
	},
	Check: checkCPULimitMissing,
}

// checkCPULimitMissing reports each container without a CPU limit.
func checkCPULimitMissing(c *ObjectContext) []Finding {
	return eachContainer(c, func(pc podContainer, _ []string) *Finding {
		if hasQuantity(pc.c.Resources.Limits, corev1.ResourceCPU) {
			return nil
		}
		return &Finding{Path: pc.path + ".resources",
			Message: fmt.Sprintf("%s %q has no CPU limit: it may use every idle CPU of its node", containerLabel[pc.field], pc.c.Name)}
	})
}
