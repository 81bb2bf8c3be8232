package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// resourcesEphemeralStorageMissingRule is resources/ephemeral-storage-missing.
var resourcesEphemeralStorageMissingRule = BuiltinRule{
	Meta: Rule{
		ID:       "resources/ephemeral-storage-missing",
		Title:    "Container without an ephemeral-storage limit (opt-in)",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		OptIn:    true,
		File:     "object_resources_ephemeral_storage_missing.go",
		Description: `A container writes its logs, its writable layer and its emptyDir volumes
(those without a medium) to the node's ephemeral storage. The scheduler
places a pod by its containers' ephemeral-storage requests, and the
kubelet evicts a pod whose container exceeds its ephemeral-storage limit;
without either, a container may fill its node's disk, and under disk
pressure the kubelet evicts pods of the node by their usage above their
requests, whichever pod grew. When a limit is set and the request is not,
the API server defaults the request to the limit, so a container is
reported when it sets no ephemeral-storage limit. Many clusters never see
disk pressure, so this rule is off by default; teams that share nodes
between tenants enable it with rules.enable. Reported for every container
and init container of Pods, pod templates and workloads; objects owned by
a controller are left to their owner.`,
		Remediation: "Set resources.limits.ephemeral-storage (and resources.requests.ephemeral-storage, if lower) to what the container writes to its node's disk.",
	},
	Check: checkEphemeralStorageMissing,
}

// checkEphemeralStorageMissing reports each container without an ephemeral-
// storage limit, quoting the request as written when there is one.
func checkEphemeralStorageMissing(c *ObjectContext) []Finding {
	// Quantities are quoted as written (1024Mi, not 1Gi).
	raw := newRawJSON(c.JSON)
	return eachContainer(c, func(pc podContainer, specPath []string) *Finding {
		if hasQuantity(pc.c.Resources.Limits, corev1.ResourceEphemeralStorage) {
			return nil
		}
		what := "requests no ephemeral storage and sets no ephemeral-storage limit"
		if req, ok := writtenResource(raw, specPath, pc, "requests", corev1.ResourceEphemeralStorage); ok {
			what = fmt.Sprintf("requests ephemeral-storage %s but sets no ephemeral-storage limit", writtenText(req))
		}
		return &Finding{Path: pc.path + ".resources",
			Message: fmt.Sprintf("%s %q %s: it may fill its node's disk with logs, its writable layer and emptyDir volumes, and the kubelet then evicts pods of the node under disk pressure", containerLabel[pc.field], pc.c.Name, what)}
	})
}
