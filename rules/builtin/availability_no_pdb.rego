# METADATA
# title: Several replicas and no PodDisruptionBudget
# description: |
#   Without a PodDisruptionBudget, a node drain (a cluster upgrade, an
#   autoscaler removing a node) evicts every pod of the node at once: when
#   several replicas share the node, they all go down together, however many
#   there are. A budget lets the eviction API keep enough of them running.
#   Reported for Deployments and StatefulSets with two or more replicas whose
#   pods no PodDisruptionBudget in the input selects. A workload that leaves
#   spec.replicas to a HorizontalPodAutoscaler of the input is counted at the
#   smallest count the autoscaler allows, its minReplicas (1 when unset), not
#   at the default of 1.
# custom:
#   id: availability/no-pdb
#   severity: info
#   kinds: [Deployment, StatefulSet]
#   remediation: Add a PodDisruptionBudget selecting the workload's pods, with maxUnavailable 1 (or a minAvailable below replicas) and unhealthyPodEvictionPolicy AlwaysAllow.
package kubectl_workload.rules.availability_no_pdb

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

# autoscalers: the HorizontalPodAutoscalers of the input that scale the
# workload, when its manifest leaves spec.replicas to them.
autoscalers := xref.autoscalers_targeting(input.object.kind, input.object.metadata.name, input.object.apiVersion) if {
	input.object.kind in {"Deployment", "StatefulSet"}
	object.get(input.object, ["spec", "replicas"], null) == null
	lib.has_kind("HorizontalPodAutoscaler")
} else := set()

# replicas: the smallest minReplicas of the autoscalers, else spec.replicas
# after defaulting.
replicas := min({object.get(xref.entry(k).spec, "minReplicas", 1) | some k in autoscalers}) if {
	count(autoscalers) > 0
} else := object.get(input.defaulted, ["spec", "replicas"], 1)

replicas_source := sprintf(" (the minReplicas of %s, which scales it)", [xref.describe_list(autoscalers)]) if {
	count(autoscalers) > 0
} else := ""

findings contains f if {
	input.object.kind in {"Deployment", "StatefulSet"}
	replicas >= 2
	labels := object.get(input.object, ["spec", "template", "metadata", "labels"], {})
	count(labels) > 0
	xref.selected_by_count(labels, {"PodDisruptionBudget"}) == 0
	f := {
		"msg": sprintf("%s %s runs %d replicas%s and no PodDisruptionBudget in the input selects its pods: a node drain may evict all of them at once", [input.object.kind, input.object.metadata.name, replicas, replicas_source]),
		"path": "spec.replicas",
	}
}
