package kubectl_workload.rules.images_digest_required_test

import data.kubectl_workload.rules.images_digest_required
import rego.v1

pod(image) := {"object": {"kind": "Pod", "spec": {"containers": [{"name": "web", "image": image}]}}}

test_tag if {
	count(images_digest_required.findings) == 1 with input as pod("app:1.2.3")
}

test_digest if {
	count(images_digest_required.findings) == 0 with input as pod("app@sha256:0123")
}
