package rules

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rolloutMutableImageTagRule is rollout/mutable-image-tag.
var rolloutMutableImageTagRule = BuiltinRule{
	Meta: Rule{
		ID:       "rollout/mutable-image-tag",
		Title:    "Image without a tag, or with the tag latest",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob"},
		File:     "object_rollout_mutable_image_tag.go",
		Measured: "40 of 40 true on 6 inputs",
		Description: `An image reference is [registry[:port]/]path[:tag][@digest]. Without a tag
and without a digest it means the tag latest, and latest (like any tag) can
be moved to a different image at any time. The workload controllers copy the
reference, not the image: kubectl rollout undo restores the same reference,
so it need not bring back the image that ran before; pods created later
(scale-up, rescheduling, retries, each run of a CronJob) may run a different
image than their siblings; and since the pod template does not change when
the tag moves, no rollout happens either. Reported for every container and
init container of the pod template of Deployments, StatefulSets,
DaemonSets, ReplicaSets, ReplicationControllers, Jobs and CronJobs whose
image has no tag and no digest, or the tag latest without a digest. A
registry port is not a tag (localhost:5000/app has none), and a digest pins
the image whatever the tag (app:latest@sha256:... is fine). ReplicaSets owned
by a Deployment and Jobs owned by a CronJob are left to their owner.`,
		Remediation: "Pin the image to a version tag that is never moved (app:1.4.2) or, better, to a digest (app@sha256:...), and change it to roll out a new version.",
	},
	Check: checkMutableImageTag,
}

// checkMutableImageTag reports each container image of a workload's pod
// template with no tag and no digest, or the tag latest without a digest,
// leaving ReplicaSets owned by a Deployment and Jobs owned by a CronJob to
// their owner.
func checkMutableImageTag(c *ObjectContext) []Finding {
	var consequence string
	switch o := c.Object.(type) {
	case *appsv1.Deployment, *appsv1.StatefulSet, *appsv1.DaemonSet:
		consequence = "kubectl rollout undo restores the same reference, not necessarily the image that ran before, and pods created later may run a different image than their siblings"
	case *appsv1.ReplicaSet:
		if ownedBy(o.OwnerReferences, "Deployment") {
			return nil
		}
		consequence = "pods created later (scale-up, replacement) may run a different image than the existing ones"
	case *corev1.ReplicationController:
		consequence = "pods created later (scale-up, replacement) may run a different image than the existing ones"
	case *batchv1.Job:
		if ownedBy(o.OwnerReferences, "CronJob") {
			return nil
		}
		consequence = "each pod the Job creates, retries included, may run a different image"
	case *batchv1.CronJob:
		consequence = "each Job the CronJob starts, and each of its pods, may run a different image"
	default:
		return nil
	}
	spec, specPath := podSpecOf(c.Object)
	var out []Finding
	for _, pc := range podContainers(spec, specPath) {
		image := pc.c.Image
		if strings.Contains(image, "@") {
			continue
		}
		var problem string
		tag, tagged := imageTag(image)
		switch {
		case image != "" && !tagged:
			problem = fmt.Sprintf("has no tag and no digest, so it means %s:latest", image)
		case tagged && tag == "latest":
			problem = "uses the tag latest without a digest"
		default:
			continue
		}
		out = append(out, Finding{Path: pc.path + ".image",
			Message: fmt.Sprintf("%s %q: image %q %s: %s", containerLabel[pc.field], pc.c.Name, image, problem, consequence)})
	}
	return out
}

// ownedBy is true when a controller ownerReference of the kind is among
// refs.
func ownedBy(refs []metav1.OwnerReference, kind string) bool {
	for _, r := range refs {
		if r.Kind == kind && r.Controller != nil && *r.Controller {
			return true
		}
	}
	return false
}
