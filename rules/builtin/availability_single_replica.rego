# METADATA
# title: Single replica and no autoscaler
# description: |
#   A Deployment or StatefulSet with one replica is down whenever its pod is:
#   during every rollout of a StatefulSet, every node drain and eviction, and
#   every crash until the replacement is ready. Reported when spec.replicas is
#   1 (written, or left to its default of 1) and no HorizontalPodAutoscaler in
#   the input scales the object. A replicas of 0 is a deliberate stop and is
#   not reported.
# custom:
#   id: availability/single-replica
#   severity: info
#   kinds: [Deployment, StatefulSet]
#   remediation: Run at least two replicas for a workload that must stay available, or let a HorizontalPodAutoscaler with minReplicas 2 or more scale it.
package kubectl_workload.rules.availability_single_replica

import data.kubectl_workload.lib.xref
import rego.v1

findings contains f if {
	input.object.kind in {"Deployment", "StatefulSet"}
	object.get(input.defaulted, ["spec", "replicas"], 1) == 1
	count(xref.autoscalers_targeting(input.object.kind, input.object.metadata.name, input.object.apiVersion)) == 0
	f := {
		"msg": sprintf("%s %s runs a single replica and no HorizontalPodAutoscaler in the input scales it: it is unavailable whenever its one pod is (evictions, node drains, crashes%s)", [input.object.kind, input.object.metadata.name, sts]),
		"path": "spec.replicas",
	}
}

sts := ", every rolling update" if input.object.kind == "StatefulSet"

sts := "" if input.object.kind != "StatefulSet"
