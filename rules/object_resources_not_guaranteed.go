package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// resourcesNotGuaranteedRule is resources/not-guaranteed.
var resourcesNotGuaranteedRule = BuiltinRule{
	Meta: Rule{
		ID:       "resources/not-guaranteed",
		Title:    "Container whose requests differ from its limits (opt-in, Guaranteed QoS)",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		OptIn:    true,
		File:     "object_resources_not_guaranteed.go",
		Description: `A pod is in the Guaranteed QoS class only when every container and init
container sets CPU and memory limits and its requests equal them (the API
server defaults an unset request to the limit); GetPodQOS in
k8s.io/kubernetes/pkg/apis/core/v1/helper/qos decides it. Guaranteed pods
are the last the kubelet evicts under memory pressure, get exclusive CPUs
from the static CPU manager policy (with an integer CPU count), and the
lowest OOM score. Most workloads are fine as Burstable, so this rule is
off by default; teams that require Guaranteed pods (latency-sensitive
services, databases) enable it with rules.enable. Quantities are compared
by value (1Gi equals 1024Mi, 500m equals 0.5). Reported for every
container and init container of Pods, pod templates and workloads;
objects owned by a controller are left to their owner.`,
		Remediation: "Set resources.limits.cpu and resources.limits.memory, and set the requests equal to them (or leave the requests unset, and the API server copies the limits).",
	},
	Check: checkNotGuaranteed,
}

// checkNotGuaranteed reports each container that keeps its pod out of the
// Guaranteed QoS class (GetPodQOS): a CPU or memory limit missing, or a
// written request that differs from its limit by value
// (resource.Quantity.Cmp), quoted as written.
func checkNotGuaranteed(c *ObjectContext) []Finding {
	// Quantities are quoted as written (1024Mi, not 1Gi).
	raw := newRawJSON(c.JSON)
	return eachContainer(c, func(pc podContainer, specPath []string) *Finding {
		var problems []string
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			lim, ok := pc.c.Resources.Limits[r]
			if !ok {
				problems = append(problems, fmt.Sprintf("sets no %s limit", r))
				continue
			}
			// A request left unset is defaulted to the limit (on Pods);
			// only a written one can differ.
			reqText, written := writtenResource(raw, specPath, pc, "requests", r)
			req, ok := pc.c.Resources.Requests[r]
			if !written || !ok || req.Cmp(lim) == 0 {
				continue
			}
			limText, _ := writtenResource(raw, specPath, pc, "limits", r)
			problems = append(problems, fmt.Sprintf("requests %s %s, not its limit %s", r, writtenText(reqText), writtenText(limText)))
		}
		if len(problems) == 0 {
			return nil
		}
		return &Finding{Path: pc.path + ".resources",
			Message: fmt.Sprintf("%s %q %s, so its pod is not in the Guaranteed QoS class: it is evicted before Guaranteed pods under memory pressure and gets no exclusive CPUs",
				containerLabel[pc.field], pc.c.Name, strings.Join(problems, " and "))}
	})
}
