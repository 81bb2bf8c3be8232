package kubectl_workload.rules.kind_replicationcontroller_test

import data.kubectl_workload.rules.kind_replicationcontroller as rule
import rego.v1

rc(spec) := {
	"object": {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "frontend"}, "spec": spec},
	"defaulted": {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "frontend"}, "spec": object.union({"replicas": 1}, spec)},
}

test_replication_controller if {
	fs := rule.findings with input as rc({"replicas": 3})
	count(fs) == 1
	some f in fs
	f.path == "kind"
	contains(f.msg, "ReplicationController frontend with replicas 3")
}

test_replicas_defaulted if {
	fs := rule.findings with input as rc({})
	some f in fs
	contains(f.msg, "with replicas 1")
}

test_deployment_ignored if {
	count(rule.findings) == 0 with input as {"object": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "frontend"}}}
}

test_replicaset_ignored if {
	count(rule.findings) == 0 with input as {"object": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "frontend"}}}
}
