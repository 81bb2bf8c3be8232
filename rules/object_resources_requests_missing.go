package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// resourcesRequestsMissingRule is resources/requests-missing.
var resourcesRequestsMissingRule = BuiltinRule{
	Meta: Rule{
		ID:       "resources/requests-missing",
		Title:    "Container without CPU or memory requests",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		File:     "object_resources_requests_missing.go",
		OptIn:    true,
		Measured: "0 of 151 true on 83 inputs: idem",
		Description: `The scheduler places a pod by its containers' requests (the sum of the
containers', or the largest init container's): a container that requests
no CPU or no memory is placed as if it needed none, so nodes are
overcommitted and the pod is among the first the kubelet evicts under
memory pressure (its QoS class is BestEffort or Burstable). When a limit
is set and the request is not, the API server defaults the request to the
limit, so only a resource with neither a request nor a limit is reported.
Reported for every container and init container of Pods, pod templates and
workloads; objects owned by a controller are left to their owner.`,
		Remediation: "Set resources.requests.cpu and resources.requests.memory to what the container needs under normal load.",
	},
	Check: checkRequestsMissing,
}

// checkRequestsMissing reports each container with neither a request nor a
// limit (from which the API server would default the request) for CPU or
// memory.
func checkRequestsMissing(c *ObjectContext) []Finding {
	return eachContainer(c, func(pc podContainer, _ []string) *Finding {
		var missing []string
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if !hasQuantity(pc.c.Resources.Requests, r) && !hasQuantity(pc.c.Resources.Limits, r) {
				missing = append(missing, string(r))
			}
		}
		if len(missing) == 0 {
			return nil
		}
		return &Finding{Path: pc.path + ".resources",
			Message: fmt.Sprintf("%s %q requests no %s (and sets no limit the API server would default it from): the scheduler places it as if it needed none, and the kubelet evicts it first under memory pressure",
				containerLabel[pc.field], pc.c.Name, strings.Join(missing, " and no "))}
	})
}
