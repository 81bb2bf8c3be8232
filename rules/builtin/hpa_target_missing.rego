# METADATA
# title: Autoscaler's target is not in the input
# description: |
#   A HorizontalPodAutoscaler scales the object its spec.scaleTargetRef names
#   (kind and name, in its own namespace). When the input holds no object of
#   that kind and name in the namespace, the target is defined elsewhere, not
#   created yet, or misspelled; until it exists the autoscaler reports
#   FailedGetScale and does nothing. Reported as information, with any object
#   of another scalable kind that has the target's name, and the object of the
#   target's kind whose name is a few edits away (web-stabel for web-stable).
# custom:
#   id: hpa/target-missing
#   severity: info
#   kinds: [HorizontalPodAutoscaler]
#   remediation: Check spec.scaleTargetRef's kind and name against the workload the autoscaler is for, and apply that workload too.
package kubectl_workload.rules.hpa_target_missing

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

scalable := ["Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"]

findings contains f if {
	input.object.kind == "HorizontalPodAutoscaler"
	ref := input.object.spec.scaleTargetRef
	key := concat("/", [ref.kind, ref.name])
	not lib.index.objects[key]
	f := {
		"msg": sprintf(
			"HorizontalPodAutoscaler %s scales %s %s, which the input does not hold in namespace %s%s%s",
			[lib.display_name, ref.kind, ref.name, input.namespace, same_name(ref), did_you_mean],
		),
		"path": "spec.scaleTargetRef",
	}
}

# did_you_mean names the object of the target's kind whose name is a few
# edits away from the target's (the inventory's did_you_mean,
# rules/relations.go): a misspelled scaleTargetRef.name.
did_you_mean := sprintf("; did you mean %s?", [xref.entry(input.key).did_you_mean.name]) if {
	xref.entry(input.key).did_you_mean.name
} else := ""

# same_name names objects of another scalable kind with the target's name: a
# wrong kind in scaleTargetRef.
same_name(ref) := sprintf(" (it holds %s: is scaleTargetRef.kind wrong?)", [xref.describe_list(keys)]) if {
	keys := {key |
		some kind in scalable
		kind != ref.kind
		key := concat("/", [kind, ref.name])
		lib.index.objects[key]
	}
	count(keys) > 0
} else := ""
