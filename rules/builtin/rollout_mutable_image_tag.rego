# METADATA
# title: Image without a tag, or with the tag latest
# description: |
#   An image reference is [registry[:port]/]path[:tag][@digest]. Without a tag
#   and without a digest it means the tag latest, and latest (like any tag) can
#   be moved to a different image at any time. The workload controllers copy the
#   reference, not the image: kubectl rollout undo restores the same reference,
#   so it need not bring back the image that ran before; pods created later
#   (scale-up, rescheduling, retries, each run of a CronJob) may run a different
#   image than their siblings; and since the pod template does not change when
#   the tag moves, no rollout happens either. Reported for every container and
#   init container of the pod template of Deployments, StatefulSets,
#   DaemonSets, ReplicaSets, ReplicationControllers, Jobs and CronJobs whose
#   image has no tag and no digest, or the tag latest without a digest. A
#   registry port is not a tag (localhost:5000/app has none), and a digest pins
#   the image whatever the tag (app:latest@sha256:... is fine). ReplicaSets owned
#   by a Deployment and Jobs owned by a CronJob are left to their owner.
# custom:
#   id: rollout/mutable-image-tag
#   severity: warning
#   remediation: Pin the image to a version tag that is never moved (app:1.4.2) or, better, to a digest (app@sha256:...), and change it to roll out a new version.
package kubectl_workload.rules.rollout_mutable_image_tag

import rego.v1

template_path := ["spec", "jobTemplate", "spec", "template", "spec"] if {
	input.object.kind == "CronJob"
} else := ["spec", "template", "spec"] if {
	input.object.kind in {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job"}
}

pod := object.get(input.object, template_path, {})

findings contains f if {
	not managed_by_owner
	some field in ["initContainers", "containers"]
	some i, c in object.get(pod, field, [])
	problem := mutable(c.image)
	f := {
		"msg": sprintf("%s %q: image %q %s: %s", [label[field], c.name, c.image, problem, consequence]),
		"path": sprintf("%s.%s[%d].image", [concat(".", template_path), field, i]),
	}
}

label := {"initContainers": "init container", "containers": "container"}

# mutable(image) says why the reference is not pinned; undefined when it is.
mutable(image) := sprintf("has no tag and no digest, so it means %s:latest", [image]) if {
	image != ""
	not contains(image, "@")
	not contains(last_component(image), ":")
} else := "uses the tag latest without a digest" if {
	not contains(image, "@")
	tag(image) == "latest"
}

# last_component is what follows the last "/": a registry host and its port
# are never part of it.
last_component(image) := parts[count(parts) - 1] if parts := split(image, "/")

tag(image) := t if {
	last := last_component(image)
	i := indexof(last, ":")
	i >= 0
	t := substring(last, i + 1, -1)
}

consequence := "kubectl rollout undo restores the same reference, not necessarily the image that ran before, and pods created later may run a different image than their siblings" if {
	input.object.kind in {"Deployment", "StatefulSet", "DaemonSet"}
} else := "pods created later (scale-up, replacement) may run a different image than the existing ones" if {
	input.object.kind in {"ReplicaSet", "ReplicationController"}
} else := "each pod the Job creates, retries included, may run a different image" if {
	input.object.kind == "Job"
} else := "each Job the CronJob starts, and each of its pods, may run a different image"

managed_by_owner if {
	input.object.kind == "ReplicaSet"
	some ref in object.get(input.object, ["metadata", "ownerReferences"], [])
	ref.kind == "Deployment"
	ref.controller == true
}

managed_by_owner if {
	input.object.kind == "Job"
	some ref in object.get(input.object, ["metadata", "ownerReferences"], [])
	ref.kind == "CronJob"
	ref.controller == true
}
