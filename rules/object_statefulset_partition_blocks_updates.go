package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// statefulsetPartitionBlocksUpdatesRule is statefulset/partition-blocks-updates.
var statefulsetPartitionBlocksUpdatesRule = BuiltinRule{
	Meta: Rule{
		ID:       "statefulset/partition-blocks-updates",
		Title:    "StatefulSet partition holds back every pod",
		Severity: SeverityWarning,
		Kinds:    []string{"StatefulSet"},
		File:     "object_statefulset_partition_blocks_updates.go",
		Description: `With the RollingUpdate strategy, the StatefulSet controller updates only pods
whose ordinal is at least ordinals.start + partition: it walks the ordinals
from the highest down to the partition, and recreates any missing pod below
the partition at the current revision (newVersionedStatefulSetPod). When
partition is at least spec.replicas (1 when not set), no pod qualifies:
changes to spec.template are recorded as a new revision but never reach a
pod, and the rollout never starts. A partition equal to replicas can be a
deliberate way to stage an update before lowering it; in a manifest it
usually means updates were forgotten.`,
		Remediation: "Lower updateStrategy.rollingUpdate.partition below spec.replicas (to 0 to update every pod), or drop it once the staged rollout is over.",
	},
	Check: checkPartitionBlocksUpdates,
}

// checkPartitionBlocksUpdates reports a RollingUpdate StatefulSet whose
// partition is at least its replicas (after defaulting), so that no ordinal
// reaches the partition.
func checkPartitionBlocksUpdates(c *ObjectContext) []Finding {
	sts, ok := c.Object.(*appsv1.StatefulSet)
	if !ok || sts.Spec.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType {
		return nil
	}
	ru := sts.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.Partition == nil {
		return nil
	}
	partition, replicas := *ru.Partition, ptrOr(sts.Spec.Replicas, 1)
	if replicas <= 0 || partition < replicas {
		return nil
	}
	var start int32
	if sts.Spec.Ordinals != nil {
		start = sts.Spec.Ordinals.Start
	}
	replicasNote := " (the default)"
	if written, ok := c.Written().(*appsv1.StatefulSet); ok && written.Spec.Replicas != nil {
		replicasNote = ""
	}
	ordinals := fmt.Sprintf("its pods have ordinals %d to %d", start, start+replicas-1)
	if replicas == 1 {
		ordinals = fmt.Sprintf("its only pod has ordinal %d", start)
	}
	return []Finding{{Path: "spec.updateStrategy.rollingUpdate.partition",
		Message: fmt.Sprintf("partition %d is at least replicas %d%s: only pods with ordinal >= %d (ordinals.start %d + partition %d) get the updated template, and %s, so changes to spec.template never reach any pod",
			partition, replicas, replicasNote, start+partition, start, partition, ordinals)}}
}
