package kubectl_workload.rules.images_pull_policy_mutable_tag_test

import data.kubectl_workload.rules.images_pull_policy_mutable_tag
import rego.v1

pod(image, policy) := {"object": {"kind": "Pod", "spec": {"containers": [object.union({"name": "web", "image": image}, policy)]}}}

test_latest_if_not_present if {
	fs := images_pull_policy_mutable_tag.findings with input as pod("app:latest", {"imagePullPolicy": "IfNotPresent"})
	some f in fs
	f.path == "spec.containers[0].imagePullPolicy"
}

test_no_tag_if_not_present if {
	count(images_pull_policy_mutable_tag.findings) == 1 with input as pod("registry:5000/app", {"imagePullPolicy": "IfNotPresent"})
}

test_latest_default_always if {
	count(images_pull_policy_mutable_tag.findings) == 0 with input as pod("app:latest", {})
}

test_main_default if {
	count(images_pull_policy_mutable_tag.findings) == 1 with input as pod("app:main", {})
}

test_version if {
	count(images_pull_policy_mutable_tag.findings) == 0 with input as pod("app:1.4.2", {"imagePullPolicy": "IfNotPresent"})
}

test_digest if {
	count(images_pull_policy_mutable_tag.findings) == 0 with input as pod("app:main@sha256:abc", {})
}
