package kubectl_workload.rules.statefulset_partition_blocks_updates_test

import data.kubectl_workload.rules.statefulset_partition_blocks_updates
import rego.v1

sts(replicas, partition) := {
	"object": {"kind": "StatefulSet", "spec": {"replicas": replicas, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": partition}}}},
	"defaulted": {"kind": "StatefulSet", "spec": {"replicas": replicas, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": partition}}}},
}

test_partition_equal_to_replicas if {
	fs := statefulset_partition_blocks_updates.findings with input as sts(3, 3)
	count(fs) == 1
	some f in fs
	f.path == "spec.updateStrategy.rollingUpdate.partition"
	contains(f.msg, "partition 3 is at least replicas 3:")
	contains(f.msg, "ordinals 0 to 2")
}

test_partition_above_replicas if {
	count(statefulset_partition_blocks_updates.findings) == 1 with input as sts(2, 5)
}

test_partition_below_replicas_is_a_canary if {
	count(statefulset_partition_blocks_updates.findings) == 0 with input as sts(3, 2)
}

test_partition_zero if {
	count(statefulset_partition_blocks_updates.findings) == 0 with input as sts(3, 0)
}

test_defaulted_replicas if {
	inp := {
		"object": {"kind": "StatefulSet", "spec": {"updateStrategy": {"rollingUpdate": {"partition": 1}}}},
		"defaulted": {"kind": "StatefulSet", "spec": {"replicas": 1, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}}},
	}
	fs := statefulset_partition_blocks_updates.findings with input as inp
	some f in fs
	contains(f.msg, "replicas 1 (the default)")
	contains(f.msg, "its only pod has ordinal 0")
}

test_zero_replicas_is_silent if {
	count(statefulset_partition_blocks_updates.findings) == 0 with input as sts(0, 1)
}

test_start_ordinal if {
	inp := json.patch(sts(3, 3), [
		{"op": "add", "path": "/object/spec/ordinals", "value": {"start": 5}},
		{"op": "add", "path": "/defaulted/spec/ordinals", "value": {"start": 5}},
	])
	fs := statefulset_partition_blocks_updates.findings with input as inp
	some f in fs
	contains(f.msg, "ordinal >= 8 (ordinals.start 5 + partition 3)")
	contains(f.msg, "ordinals 5 to 7")
}

test_on_delete_is_silent if {
	inp := json.patch(sts(3, 3), [{"op": "replace", "path": "/defaulted/spec/updateStrategy/type", "value": "OnDelete"}])
	count(statefulset_partition_blocks_updates.findings) == 0 with input as inp
}
