package kubectl_workload.rules.hpa_min_replicas_one_test

import data.kubectl_workload.rules.hpa_min_replicas_one
import rego.v1

hpa(spec) := {"object": {"kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"}, "spec": object.union({"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5}, spec)}}

test_default if {
	fs := hpa_min_replicas_one.findings with input as hpa({})
	some f in fs
	f.path == "spec"
	contains(f.msg, "minReplicas 1, the default")
}

test_one if {
	fs := hpa_min_replicas_one.findings with input as hpa({"minReplicas": 1})
	some f in fs
	f.path == "spec.minReplicas"
}

test_two if {
	count(hpa_min_replicas_one.findings) == 0 with input as hpa({"minReplicas": 2})
}
