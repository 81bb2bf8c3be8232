# METADATA
# title: Autoscaled workload sets spec.replicas
# description: |
#   A HorizontalPodAutoscaler owns the replica count of its scale target: it
#   writes the target's scale subresource. When the workload's manifest also
#   sets spec.replicas, every kubectl apply (and every GitOps sync) resets the
#   count to the manifest's value, and the autoscaler sets it back on its next
#   sync: the pod count jumps twice, and for a Deployment the change arrives
#   mid-rollout as a scaling event, which the controller serves first by
#   resizing every active ReplicaSet proportionally. Reported on the workload
#   (Deployment, StatefulSet, ReplicaSet or ReplicationController) whose
#   manifest as written sets spec.replicas, when the input holds an autoscaler
#   in the same namespace whose scaleTargetRef names it.
# custom:
#   id: hpa/replicas-set
#   severity: warning
#   kinds: [Deployment, StatefulSet, ReplicaSet, ReplicationController]
#   remediation: Remove spec.replicas from the manifest of a workload that a HorizontalPodAutoscaler scales, and set the range in the autoscaler's minReplicas and maxReplicas.
package kubectl_workload.rules.hpa_replicas_set

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

scalable := {"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"}

findings contains f if {
	input.object.kind in scalable
	replicas := object.get(input.object, ["spec", "replicas"], null)
	replicas != null
	lib.has_kind("HorizontalPodAutoscaler")
	hpas := xref.autoscalers_targeting(input.object.kind, input.object.metadata.name, input.object.apiVersion)
	count(hpas) > 0
	f := {
		"msg": sprintf(
			"%s %s sets spec.replicas %v, but it is scaled by %s: every apply resets the count to %v and the autoscaler then changes it back, scaling the pods twice%s",
			[input.object.kind, lib.display_name, replicas, ranges(hpas), replicas, rollout],
		),
		"path": "spec.replicas",
	}
}

ranges(hpas) := concat(" and ", sort([sprintf("%s (minReplicas %v, maxReplicas %v)", [xref.describe(k), object.get(spec, "minReplicas", 1), object.get(spec, "maxReplicas", "unset")]) |
	some k in hpas
	spec := xref.entry(k).spec
]))

rollout := "; during a rollout each change is a scaling event, which resizes the new and old ReplicaSets proportionally" if {
	input.object.kind == "Deployment"
} else := ""
