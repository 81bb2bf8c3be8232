package rules

import (
	"fmt"
	"strings"
)

// imagesDigestRequiredRule is images/digest-required.
var imagesDigestRequiredRule = BuiltinRule{
	Meta: Rule{
		ID:       "images/digest-required",
		Title:    "Image not pinned by digest (opt-in)",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		OptIn:    true,
		File:     "object_images_digest_required.go",
		Description: `A tag, even a version tag, can be pushed again with different content; only
a digest (@sha256:...) names one image for good. Teams with supply-chain
requirements pin every image by digest; this rule, off by default, reports
every container image without one.`,
		Remediation: "Pin the image by digest (app:1.4.2@sha256:...), for example with crane digest or your registry's UI.",
	},
	Check: checkDigestRequired,
}

// checkDigestRequired reports each container image without a digest.
func checkDigestRequired(c *ObjectContext) []Finding {
	spec, specPath := podSpecOf(c.Object)
	if spec == nil || hasControllerOwner(c.Object) {
		return nil
	}
	var out []Finding
	for _, pc := range podContainers(spec, specPath) {
		if strings.Contains(pc.c.Image, "@") {
			continue
		}
		out = append(out, Finding{Path: pc.path + ".image",
			Message: fmt.Sprintf("%s %q: image %q is not pinned by digest", containerLabel[pc.field], pc.c.Name, pc.c.Image)})
	}
	return out
}
