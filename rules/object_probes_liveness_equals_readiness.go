package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// probesLivenessEqualsReadinessRule is probes/liveness-equals-readiness.
var probesLivenessEqualsReadinessRule = BuiltinRule{
	Meta: Rule{
		ID:       "probes/liveness-equals-readiness",
		Title:    "Liveness probe identical to the readiness probe",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		File:     "object_probes_liveness_equals_readiness.go",
		OptIn:    true,
		Measured: "0 of 62 true on 34 inputs: common and deliberate",
		Description: `Readiness takes a pod out of its Services while it cannot serve; liveness
restarts the container. When both probes are the same check with the same
timing, a container that is only busy (a slow dependency, a burst of load)
fails both at once: instead of waiting until it is ready again, the kubelet
restarts it, which adds load to the others and can cascade. A liveness
probe should check only that the process is alive, with a higher failure
threshold than readiness. Reported when a container's livenessProbe and
readinessProbe are equal as written.`,
		Remediation: "Make the liveness probe check only that the process is alive (a separate endpoint), or give it a higher failureThreshold or periodSeconds than readiness.",
	},
	Check: checkLivenessEqualsReadiness,
}

// checkLivenessEqualsReadiness reports each container whose livenessProbe
// equals its readinessProbe as written (the defaulted probes would make
// different probes with default timings equal).
func checkLivenessEqualsReadiness(c *ObjectContext) []Finding {
	spec, specPath := podSpecOf(c.Object)
	if spec == nil || hasControllerOwner(c.Object) {
		return nil
	}
	written, _ := podSpecOf(c.Written())
	var out []Finding
	for _, pc := range podContainers(spec, specPath) {
		if pc.c.LivenessProbe == nil || pc.c.ReadinessProbe == nil {
			continue
		}
		// Equal as written: the defaulted probes fill in the same
		// timings, which would make different probes equal.
		live, ready := writtenProbes(written, pc)
		if live == nil || ready == nil || !apiequality.Semantic.DeepEqual(live, ready) {
			continue
		}
		out = append(out, Finding{Path: pc.path + ".livenessProbe",
			Message: fmt.Sprintf("%s %q: livenessProbe is identical to readinessProbe: when the container is only busy, both fail together and the kubelet restarts it instead of waiting until it is ready again",
				containerLabel[pc.field], pc.c.Name)})
	}
	return out
}

// writtenProbes are the liveness and readiness probes of container pc as
// written (nil when it is not).
func writtenProbes(written *corev1.PodSpec, pc podContainer) (live, ready *corev1.Probe) {
	if written == nil {
		return nil, nil
	}
	list := written.Containers
	if pc.field == fieldInitContainers {
		list = written.InitContainers
	}
	if pc.index >= len(list) {
		return nil, nil
	}
	return list[pc.index].LivenessProbe, list[pc.index].ReadinessProbe
}
