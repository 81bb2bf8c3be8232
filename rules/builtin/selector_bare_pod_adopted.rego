# METADATA
# title: Bare Pod is adopted by a controller
# description: |
#   A Pod without a controller ownerReference (a bare Pod) whose labels a
#   controller's selector in the same namespace selects. Controllers list pods
#   by selector and adopt the orphans among them: ClaimPods, through the
#   ControllerRefManager's ClaimObject, sets itself as the controller
#   ownerReference of any pod in its namespace that has none and that its
#   selector matches, then manages the pod as its own. The kinds that adopt a bare pod are:
#   ReplicaSets and ReplicationControllers (the pod counts toward spec.replicas
#   and a surplus pod is deleted), DaemonSets (one pod per node is kept, pods on
#   nodes that should not run the daemon are deleted, and a rolling update
#   replaces the pod), Jobs with manualSelector (the pod counts as active,
#   succeeded or failed; a Job without manualSelector selects on its own
#   generated controller-uid), and StatefulSets, only when the pod's name is
#   the StatefulSet's name followed by -<ordinal> (isMemberOf): it becomes that
#   ordinal and is deleted when the ordinal is out of range. Deployments do not
#   adopt pods: they adopt ReplicaSets, whose selectors add the
#   pod-template-hash label. CronJobs adopt Jobs, not pods. A Pod that more
#   than 5 controllers would adopt gets one finding that counts them and
#   names the first 5 (the count is the finding's related count in JSON and
#   SARIF), so n alike Pods and controllers give n findings, not n².
# custom:
#   id: selector/bare-pod-adopted
#   severity: warning
#   kinds: [Pod]
#   remediation: Give the bare Pod labels that no controller's selector matches, or run it from the controller instead of as a separate Pod.
package kubectl_workload.rules.selector_bare_pod_adopted

import data.kubectl_workload.lib.xref
import rego.v1

name := object.get(input.object, ["metadata", "name"], "")

# shown is the Pod's name in messages; generated names are not known yet.
shown := name if name != "" else := sprintf("%s*", [object.get(input.object, ["metadata", "generateName"], "")])

labels := l if {
	l := input.object.metadata.labels
	is_object(l)
} else := {}

# bare: no ownerReference is the Pod's controller (other owners, such as one
# set for garbage collection, do not stop an adoption).
bare if {
	input.object.kind == "Pod"
	not has_controller
}

has_controller if {
	some ref in object.get(input.object, ["metadata", "ownerReferences"], [])
	ref.controller == true
}

# max_named is how many adopters get a finding of their own; beyond it one
# finding counts them and names the first max_named.
max_named := 5

# related is the adopters, bounded: the first max_named keys, sorted, and how
# many there are, as the inventory computed them (rules/bounded.go), else
# from every adopter.
related := r if {
	bare
	r := xref.entry(input.key).adopters
} else := {"first": array.slice(sort(all_adopters), 0, max_named), "count": count(all_adopters)} if bare

all_adopters contains key if {
	bare
	some key in xref.selectors_matching(labels, {"ReplicaSet", "ReplicationController", "DaemonSet", "Job", "StatefulSet"})
	adopts(xref.entry(key))
}

adopters contains key if {
	related.count <= max_named
	some key in related.first
}

adopts(e) if e.kind in {"ReplicaSet", "ReplicationController", "DaemonSet"}

adopts(e) if {
	e.kind == "Job"
	e.selector != null
}

# A StatefulSet claims only the pods its isMemberOf filter accepts: the name
# with its trailing -<ordinal> removed is the StatefulSet's name.
adopts(e) if {
	e.kind == "StatefulSet"
	parent_and_ordinal[0] == e.name
}

parent_and_ordinal := [m[1], m[2]] if {
	some m in regex.find_all_string_submatch_n(`^(.*)-([0-9]+)$`, name, 1)
}

findings contains f if {
	some key in adopters
	e := xref.entry(key)
	f := {
		"msg": sprintf(
			"Pod %s has no controller ownerReference and its labels %s are selected by %s (selector %s): %s",
			[shown, xref.format_labels(labels), xref.describe(key), xref.format_selector(e.selector), consequence(e)],
		),
		"path": "metadata.labels",
	}
}

consequence(e) := sprintf("the %s adopts it and counts it toward its %s, deleting a surplus pod (this one or one of its own) to get back to %d", [e.kind, xref.quantity(e.spec.replicas, "replica"), e.spec.replicas]) if {
	e.kind in {"ReplicaSet", "ReplicationController"}
	is_number(e.spec.replicas)
} else := sprintf("the %s adopts it as one of its pods and may delete it to reach its replica count", [e.kind]) if {
	e.kind in {"ReplicaSet", "ReplicationController"}
} else := "the DaemonSet adopts it: it deletes it when its node should not run the daemon or already runs an older daemon pod, and replaces it on its next rolling update" if {
	e.kind == "DaemonSet"
} else := sprintf("the Job adopts it and counts it as one of its pods (parallelism %d, completions %s): its success or failure counts toward the Job's, and it is deleted when too many pods are active", [object.get(e.spec, "parallelism", 1), completions(e)]) if {
	e.kind == "Job"
} else := sprintf("the name makes it ordinal %s of the StatefulSet (%s), which adopts it and deletes or recreates it to match its own template and revision", [parent_and_ordinal[1], xref.quantity(e.spec.replicas, "replica")]) if {
	is_number(e.spec.replicas)
} else := sprintf("the name makes it ordinal %s of the StatefulSet, which adopts it and deletes or recreates it to match its own template and revision", [parent_and_ordinal[1]])

findings contains f if {
	related.count > max_named
	f := {
		"msg": sprintf(
			"Pod %s has no controller ownerReference and its labels %s are selected by %d controllers that adopt orphaned pods: %s and %d more. One of them adopts it, counts it as one of its own pods and may delete or replace it",
			[shown, xref.format_labels(labels), related.count, concat(", ", [xref.describe(k) | some k in related.first]), related.count - max_named],
		),
		"path": "metadata.labels",
		"related_count": related.count,
	}
}

completions(e) := sprintf("%d", [e.spec.completions]) if {
	is_number(e.spec.completions)
} else := "unset"
