# METADATA
# title: StatefulSet partition holds back every pod
# description: |
#   With the RollingUpdate strategy, the StatefulSet controller updates only pods
#   whose ordinal is at least ordinals.start + partition: it walks the ordinals
#   from the highest down to the partition, and recreates any missing pod below
#   the partition at the current revision (newVersionedStatefulSetPod). When
#   partition is at least spec.replicas (1 when not set), no pod qualifies:
#   changes to spec.template are recorded as a new revision but never reach a
#   pod, and the rollout never starts. A partition equal to replicas can be a
#   deliberate way to stage an update before lowering it; in a manifest it
#   usually means updates were forgotten.
# custom:
#   id: statefulset/partition-blocks-updates
#   severity: warning
#   remediation: Lower updateStrategy.rollingUpdate.partition below spec.replicas (to 0 to update every pod), or drop it once the staged rollout is over.
package kubectl_workload.rules.statefulset_partition_blocks_updates

import rego.v1

findings contains f if {
	input.object.kind == "StatefulSet"
	input.defaulted.spec.updateStrategy.type == "RollingUpdate"
	partition := input.object.spec.updateStrategy.rollingUpdate.partition
	replicas := object.get(input.defaulted, ["spec", "replicas"], 1)
	replicas > 0
	partition >= replicas
	start := object.get(input.defaulted, ["spec", "ordinals", "start"], 0)
	f := {
		"msg": sprintf(
			"partition %d is at least replicas %d%s: only pods with ordinal >= %d (ordinals.start %d + partition %d) get the updated template, and %s, so changes to spec.template never reach any pod",
			[partition, replicas, replicas_note, start + partition, start, partition, ordinals(start, replicas)],
		),
		"path": "spec.updateStrategy.rollingUpdate.partition",
	}
}

replicas_note := "" if {
	object.get(input.object, ["spec", "replicas"], null) != null
} else := " (the default)"

ordinals(start, 1) := sprintf("its only pod has ordinal %d", [start])

ordinals(start, n) := sprintf("its pods have ordinals %d to %d", [start, (start + n) - 1]) if n > 1
