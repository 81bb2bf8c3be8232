package kubectl_workload.rules.rollout_mutable_image_tag_test

import data.kubectl_workload.rules.rollout_mutable_image_tag
import rego.v1

dep(images) := {"object": {"kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"name": sprintf("c%d", [i]), "image": img} | some i, img in images]}}}}}

findings_for(image) := fs if {
	fs := rollout_mutable_image_tag.findings with input as dep([image])
}

test_no_tag if {
	fs := findings_for("nginx")
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.containers[0].image"
	contains(f.msg, "has no tag and no digest, so it means nginx:latest")
	contains(f.msg, "kubectl rollout undo")
}

test_latest if {
	fs := findings_for("docker.io/library/nginx:latest")
	some f in fs
	contains(f.msg, "uses the tag latest")
}

test_version_tag_is_pinned_enough if {
	count(findings_for("nginx:1.27.2")) == 0
}

test_registry_port_is_not_a_tag if {
	fs := findings_for("localhost:5000/app")
	count(fs) == 1
	some f in fs
	contains(f.msg, "localhost:5000/app:latest")
}

test_registry_port_with_tag if {
	count(findings_for("localhost:5000/team/app:2.0")) == 0
}

test_registry_port_with_latest if {
	count(findings_for("registry.example.com:5000/team/app:latest")) == 1
}

test_digest_without_tag if {
	count(findings_for("app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")) == 0
}

test_latest_pinned_by_digest if {
	count(findings_for("registry.example.com:5000/app:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")) == 0
}

test_tag_named_like_latest_is_not_latest if {
	count(findings_for("app:latest-2024")) == 0
	count(findings_for("app:LATEST")) == 0
}

test_second_container_and_init_containers if {
	inp := {"object": {"kind": "StatefulSet", "spec": {"template": {"spec": {
		"initContainers": [{"name": "init", "image": "busybox"}],
		"containers": [{"name": "db", "image": "postgres:16.4"}, {"name": "exporter", "image": "quay.io/prometheuscommunity/postgres-exporter:latest"}],
	}}}}}
	fs := rollout_mutable_image_tag.findings with input as inp
	paths := {f.path | some f in fs}
	paths == {"spec.template.spec.initContainers[0].image", "spec.template.spec.containers[1].image"}
}

test_cronjob_path_and_message if {
	inp := {"object": {"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "backup", "image": "example/backup"}]}}}}}}}
	fs := rollout_mutable_image_tag.findings with input as inp
	some f in fs
	f.path == "spec.jobTemplate.spec.template.spec.containers[0].image"
	contains(f.msg, "each Job the CronJob starts")
}

test_job_message if {
	inp := {"object": {"kind": "Job", "spec": {"template": {"spec": {"containers": [{"name": "migrate", "image": "example/migrate:latest"}]}}}}}
	fs := rollout_mutable_image_tag.findings with input as inp
	some f in fs
	contains(f.msg, "each pod the Job creates")
}

test_replicaset_owned_by_deployment_is_left_to_it if {
	inp := {"object": {
		"kind": "ReplicaSet",
		"metadata": {"ownerReferences": [{"kind": "Deployment", "name": "web", "controller": true}]},
		"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx"}]}}},
	}}
	count(rollout_mutable_image_tag.findings) == 0 with input as inp
}

test_bare_replicaset_is_reported if {
	inp := {"object": {"kind": "ReplicaSet", "spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}}
	fs := rollout_mutable_image_tag.findings with input as inp
	some f in fs
	contains(f.msg, "pods created later (scale-up, replacement)")
}

test_pods_and_pod_templates_are_silent if {
	inp := {"object": {"kind": "Pod", "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}
	count(rollout_mutable_image_tag.findings) == 0 with input as inp
	inp2 := {"object": {"kind": "PodTemplate", "template": {"spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}
	count(rollout_mutable_image_tag.findings) == 0 with input as inp2
}
