package kubectl_workload.rules.availability_single_replica_test

import data.kubectl_workload.rules.availability_single_replica
import rego.v1

dep(replicas) := {"object": {"kind": "Deployment", "apiVersion": "apps/v1", "metadata": {"name": "web"}, "spec": {}}, "defaulted": {"spec": {"replicas": replicas}}, "namespace": "default", "key": "Deployment/web"}

inv(objects) := {"namespaces": {"default": {"objects": objects, "by_kind": {}, "count": {}, "by_template_label": {}, "by_selector_label": {}, "selectors_without_labels": []}}}

test_single if {
	fs := availability_single_replica.findings with input as dep(1) with data.kubectl_workload.inventory as inv({})
	count(fs) == 1
}

test_three if {
	count(availability_single_replica.findings) == 0 with input as dep(3) with data.kubectl_workload.inventory as inv({})
}

test_zero if {
	count(availability_single_replica.findings) == 0 with input as dep(0) with data.kubectl_workload.inventory as inv({})
}
