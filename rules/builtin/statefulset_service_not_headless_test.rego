package kubectl_workload.rules.statefulset_service_not_headless_test

import data.kubectl_workload.lib.xref_test as h
import data.kubectl_workload.rules.statefulset_service_not_headless
import rego.v1

sts(service_name) := {
	"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
	"spec": {"serviceName": service_name, "replicas": 3, "selector": {"matchLabels": {"app": "db"}}},
}

svc(spec) := {"kind": "Service", "apiVersion": "v1", "name": "db", "selector": {"matchLabels": {"app": "db"}}, "spec": spec}

findings_for(s, entries) := fs if {
	fs := statefulset_service_not_headless.findings with input as h.with_ns(s)
		with data.kubectl_workload.inventory as h.inventory(entries)
}

test_cluster_ip_unset if {
	fs := findings_for(sts("db"), [svc({"selector": {"app": "db"}})])
	count(fs) == 1
	some f in fs
	f.path == "spec.serviceName"
	contains(f.msg, "clusterIP unset, so the API server allocates one")
	contains(f.msg, "its pods (3 replicas) get no stable DNS names such as db-0.db.default.svc")
}

test_cluster_ip_address if {
	some f in findings_for(sts("db"), [svc({"clusterIP": "10.0.0.12"})])
	contains(f.msg, "clusterIP 10.0.0.12")
}

test_external_name if {
	some f in findings_for(sts("db"), [svc({"type": "ExternalName", "externalName": "db.example.com"})])
	contains(f.msg, "type ExternalName")
}

test_headless_is_fine if {
	count(findings_for(sts("db"), [svc({"clusterIP": "None"})])) == 0
	count(findings_for(sts("db"), [svc({"clusterIPs": ["None"]})])) == 0
}

test_missing_service_is_another_rule if {
	count(findings_for(sts("db"), [])) == 0
}

test_no_service_name if {
	s := {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"}, "spec": {"replicas": 1}}
	count(findings_for(s, [svc({})])) == 0
}
