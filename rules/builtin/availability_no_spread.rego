# METADATA
# title: Several replicas without anti-affinity or topology spread
# description: |
#   Nothing in a pod template with several replicas says that its pods must
#   not share a node or a zone: the scheduler's default spreading is only a
#   preference (ScheduleAnyway), so after a node failure, a scale-up on a busy
#   cluster or a drain, every replica may land on the same node, and one node
#   or zone outage takes them all. Reported for Deployments and StatefulSets
#   with two or more replicas whose pod template has neither a pod
#   anti-affinity term nor a topologySpreadConstraint on kubernetes.io/hostname
#   or topology.kubernetes.io/zone (either one satisfies it).
# custom:
#   id: availability/no-spread
#   severity: info
#   remediation: Add a topologySpreadConstraint on topology.kubernetes.io/zone or kubernetes.io/hostname (or a preferred pod anti-affinity) selecting the workload's own pods.
package kubectl_workload.rules.availability_no_spread

import data.kubectl_workload.lib
import rego.v1

topology_keys := {"kubernetes.io/hostname", "topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"}

findings contains f if {
	input.object.kind in {"Deployment", "StatefulSet"}
	replicas := object.get(input.defaulted, ["spec", "replicas"], 1)
	replicas >= 2
	not spread
	f := {
		"msg": sprintf("%s %s runs %d replicas, but its pod template has no pod anti-affinity and no topology spread constraint on the node or the zone: all of them may run on one node", [input.object.kind, input.object.metadata.name, replicas]),
		"path": lib.path_or_parent(input.object, ["spec", "template", "spec", "affinity"]),
	}
}

spread if {
	some c in object.get(lib.pod_spec, "topologySpreadConstraints", [])
	c.topologyKey in topology_keys
}

spread if {
	some term in object.get(lib.pod_spec, ["affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution"], [])
	term.topologyKey in topology_keys
}

spread if {
	some w in object.get(lib.pod_spec, ["affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution"], [])
	w.podAffinityTerm.topologyKey in topology_keys
}
