package kubectl_workload.rules.availability_no_spread_test

import data.kubectl_workload.rules.availability_no_spread
import rego.v1

dep(replicas, spec) := {"object": {"kind": "Deployment", "metadata": {"name": "web"}, "spec": {"template": {"spec": spec}}}, "defaulted": {"spec": {"replicas": replicas}}}

test_no_spread if {
	fs := availability_no_spread.findings with input as dep(3, {"containers": []})
	some f in fs
	f.path == "spec.template.spec"
	contains(f.msg, "runs 3 replicas")
}

test_single if {
	count(availability_no_spread.findings) == 0 with input as dep(1, {})
}

test_spread if {
	count(availability_no_spread.findings) == 0 with input as dep(3, {"topologySpreadConstraints": [{"topologyKey": "topology.kubernetes.io/zone", "maxSkew": 1}]})
}

test_anti_affinity if {
	s := {"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}}]}}}
	count(availability_no_spread.findings) == 0 with input as dep(3, s)
}
