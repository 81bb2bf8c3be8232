# METADATA
# title: HorizontalPodAutoscaler that may scale down to one pod
# description: |
#   minReplicas defaults to 1. When load is low the autoscaler scales the
#   target down to a single pod, and then a node drain, an eviction or a crash
#   of that pod is an outage until a new one is ready; a PodDisruptionBudget
#   cannot both protect a single pod and let nodes drain. Reported for
#   HorizontalPodAutoscalers whose minReplicas is unset or 1 (0 needs the
#   HPAScaleToZero feature and is meant).
# custom:
#   id: hpa/min-replicas-one
#   severity: info
#   kinds: [HorizontalPodAutoscaler]
#   remediation: Set minReplicas to 2 or more for workloads that must stay available.
package kubectl_workload.rules.hpa_min_replicas_one

import rego.v1

findings contains f if {
	input.object.kind == "HorizontalPodAutoscaler"
	min := object.get(input.object, ["spec", "minReplicas"], 1)
	min == 1
	f := {
		"msg": sprintf("HorizontalPodAutoscaler %s may scale %s %s down to a single pod (minReplicas %d%s): an eviction or a crash of that pod is an outage", [input.object.metadata.name, input.object.spec.scaleTargetRef.kind, input.object.spec.scaleTargetRef.name, min, unset]),
		"path": path,
	}
}

unset := ", the default" if not input.object.spec.minReplicas

unset := "" if input.object.spec.minReplicas

path := "spec.minReplicas" if input.object.spec.minReplicas

path := "spec" if not input.object.spec.minReplicas
