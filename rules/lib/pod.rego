# Helpers for the rules about pod templates. Not a rule: it has no findings.
package kubectl_workload.lib

import rego.v1

# pod_spec_path is the path of the input object's pod spec (a CronJob's is in
# its job template), for the kinds that have one.
pod_spec_path := ["spec", "jobTemplate", "spec", "template", "spec"] if {
	input.object.kind == "CronJob"
} else := ["spec", "template", "spec"] if {
	input.object.kind in {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job"}
} else := ["spec"] if {
	input.object.kind == "Pod"
} else := ["template", "spec"] if {
	input.object.kind == "PodTemplate"
}

# pod_spec is the input object's pod spec, {} when it has none.
pod_spec := object.get(input.object, pod_spec_path, {})

# container_label names a container list in messages.
container_label := {"initContainers": "init container", "containers": "container"}

# pod_containers is every container and init container of the pod spec, each
# as {"field", "index", "container", "path"}, path in field-path notation.
pod_containers contains {"field": field, "index": i, "container": c, "path": p} if {
	some field in ["initContainers", "containers"]
	some i, c in object.get(pod_spec, field, [])
	p := sprintf("%s.%s[%d]", [concat(".", pod_spec_path), field, i])
}

# owned_by_controller is true for objects whose owner is linted instead: a
# Deployment's ReplicaSets, a CronJob's Jobs, a controller's Pods.
owned_by_controller if {
	some ref in object.get(input.object, ["metadata", "ownerReferences"], [])
	ref.controller == true
}
