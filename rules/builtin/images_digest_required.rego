# METADATA
# title: Image not pinned by digest (opt-in)
# description: |
#   A tag, even a version tag, can be pushed again with different content; only
#   a digest (@sha256:...) names one image for good. Teams with supply-chain
#   requirements pin every image by digest; this rule, off by default, reports
#   every container image without one.
# custom:
#   id: images/digest-required
#   severity: info
#   default: "off"
#   remediation: Pin the image by digest (app:1.4.2@sha256:...), for example with crane digest or your registry's UI.
package kubectl_workload.rules.images_digest_required

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	not lib.owned_by_controller
	some pc in lib.pod_containers
	not contains(pc.container.image, "@")
	f := {
		"msg": sprintf("%s %q: image %q is not pinned by digest", [lib.container_label[pc.field], pc.container.name, pc.container.image]),
		"path": sprintf("%s.image", [pc.path]),
	}
}
