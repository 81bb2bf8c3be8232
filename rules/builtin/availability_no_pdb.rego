# METADATA
# title: Several replicas and no PodDisruptionBudget
# description: |
#   Without a PodDisruptionBudget, a node drain (a cluster upgrade, an
#   autoscaler removing a node) evicts every pod of the node at once: when
#   several replicas share the node, they all go down together, however many
#   there are. A budget lets the eviction API keep enough of them running.
#   Reported for Deployments and StatefulSets with two or more replicas whose
#   pods no PodDisruptionBudget in the input selects.
# custom:
#   id: availability/no-pdb
#   severity: info
#   kinds: [Deployment, StatefulSet]
#   remediation: Add a PodDisruptionBudget selecting the workload's pods, with maxUnavailable 1 (or a minAvailable below replicas) and unhealthyPodEvictionPolicy AlwaysAllow.
package kubectl_workload.rules.availability_no_pdb

import data.kubectl_workload.lib.xref
import rego.v1

findings contains f if {
	input.object.kind in {"Deployment", "StatefulSet"}
	replicas := object.get(input.defaulted, ["spec", "replicas"], 1)
	replicas >= 2
	labels := object.get(input.object, ["spec", "template", "metadata", "labels"], {})
	count(labels) > 0
	xref.selected_by_count(labels, {"PodDisruptionBudget"}) == 0
	f := {
		"msg": sprintf("%s %s runs %d replicas and no PodDisruptionBudget in the input selects its pods: a node drain may evict all of them at once", [input.object.kind, input.object.metadata.name, replicas]),
		"path": "spec.replicas",
	}
}
