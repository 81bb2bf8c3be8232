# METADATA
# title: Mutable image tag pulled only if not present
# description: |
#   With imagePullPolicy IfNotPresent the kubelet runs whatever image a node
#   already holds under the reference. For a tag that is moved on purpose
#   (latest, or a branch or channel name such as main, stable or nightly),
#   nodes that pulled it before keep the old image while new nodes pull the
#   new one: pods of the same template run different code, and pushing a new
#   image under the tag changes nothing on nodes that have it. The API server
#   defaults the policy to Always for latest and for no tag, so those are
#   reported only when IfNotPresent is written; the moving tags by name are
#   reported when the policy is IfNotPresent or left to its default
#   (IfNotPresent for them). A digest pins the image.
# custom:
#   id: images/pull-policy-mutable-tag
#   severity: warning
#   remediation: Pin the image to a version tag or a digest, or set imagePullPolicy Always.
package kubectl_workload.rules.images_pull_policy_mutable_tag

import data.kubectl_workload.lib
import rego.v1

# moving are tag names that by convention follow a branch or a channel.
moving := {"main", "master", "develop", "dev", "stable", "edge", "nightly", "canary", "snapshot", "latest"}

findings contains f if {
	not lib.owned_by_controller
	some pc in lib.pod_containers
	image := pc.container.image
	not contains(image, "@")
	t := tag(image)
	policy := object.get(pc.container, "imagePullPolicy", default_policy(t))
	policy == "IfNotPresent"
	moving[t]
	f := {
		"msg": sprintf("%s %q: image %q uses the moving tag %s with imagePullPolicy IfNotPresent: nodes that pulled the tag before keep running the old image", [lib.container_label[pc.field], pc.container.name, image, t]),
		"path": sprintf("%s.imagePullPolicy", [pc.path]),
	}
}

# default_policy mirrors SetDefaults_Container (k8s.io/kubernetes/pkg/apis/core/v1):
# Always for the tag latest or no tag, else IfNotPresent.
default_policy(t) := "Always" if t == "latest"

default_policy(t) := "IfNotPresent" if t != "latest"

last_component(image) := parts[count(parts) - 1] if parts := split(image, "/")

tag(image) := t if {
	last := last_component(image)
	i := indexof(last, ":")
	i >= 0
	t := substring(last, i + 1, -1)
} else := "latest"
