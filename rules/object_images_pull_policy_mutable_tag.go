package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/util/parsers"
)

// imagesPullPolicyMutableTagRule is images/pull-policy-mutable-tag.
var imagesPullPolicyMutableTagRule = BuiltinRule{
	Meta: Rule{
		ID:       "images/pull-policy-mutable-tag",
		Title:    "Mutable image tag pulled only if not present",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		File:     "object_images_pull_policy_mutable_tag.go",
		Measured: "5 of 5 true on 5 inputs",
		Description: `With imagePullPolicy IfNotPresent the kubelet runs whatever image a node
already holds under the reference. For a tag that is moved on purpose
(latest, or a branch or channel name such as main, stable or nightly),
nodes that pulled it before keep the old image while new nodes pull the
new one: pods of the same template run different code, and pushing a new
image under the tag changes nothing on nodes that have it. The API server
defaults the policy to Always for latest and for no tag, so those are
reported only when IfNotPresent is written; the moving tags by name are
reported when the policy is IfNotPresent or left to its default
(IfNotPresent for them). A digest pins the image.`,
		Remediation: "Pin the image to a version tag or a digest, or set imagePullPolicy Always.",
	},
	Check: checkPullPolicyMutableTag,
}

var movingTags = map[string]bool{"main": true, "master": true, "develop": true, "dev": true, "stable": true, "edge": true,
	"nightly": true, "canary": true, "snapshot": true, "latest": true}

// checkPullPolicyMutableTag reports each container whose image uses a moving
// tag (latest, main, stable, ...) without a digest and whose pull policy,
// written or defaulted by SetDefaults_Container, is IfNotPresent.
func checkPullPolicyMutableTag(c *ObjectContext) []Finding {
	spec, specPath := podSpecOf(c.Object)
	if spec == nil || hasControllerOwner(c.Object) {
		return nil
	}
	var out []Finding
	for _, pc := range podContainers(spec, specPath) {
		image := pc.c.Image
		if strings.Contains(image, "@") {
			continue
		}
		tag, ok := imageTag(image)
		if !ok {
			tag = "latest"
		}
		if pc.c.ImagePullPolicy != corev1.PullIfNotPresent || !movingTags[tag] || !pullsIfNotPresent(c, pc) {
			continue
		}
		out = append(out, Finding{Path: pc.path + ".imagePullPolicy",
			Message: fmt.Sprintf("%s %q: image %q uses the moving tag %s with imagePullPolicy IfNotPresent: nodes that pulled the tag before keep running the old image",
				containerLabel[pc.field], pc.c.Name, image, tag)})
	}
	return out
}

// pullsIfNotPresent tells whether the kubelet would pull the image of pc,
// whose defaulted policy is IfNotPresent, only when the node lacks it. An
// unset policy is defaulted by SetDefaults_Container from the tag that
// parsers.ParseImageName reads; a reference it cannot parse is defaulted
// to IfNotPresent, but the kubelet never pulls it (InvalidImageName), so
// for such a reference only a policy written IfNotPresent counts.
func pullsIfNotPresent(c *ObjectContext, pc podContainer) bool {
	if _, _, _, err := parsers.ParseImageName(pc.c.Image); err == nil {
		return true
	}
	written, _ := podSpecOf(c.Written())
	if written == nil {
		return false
	}
	list := written.Containers
	if pc.field == fieldInitContainers {
		list = written.InitContainers
	}
	return pc.index < len(list) && list[pc.index].ImagePullPolicy == corev1.PullIfNotPresent
}
