package kubectl_workload.rules.statefulset_service_missing_test

import data.kubectl_workload.lib.xref_test as h
import data.kubectl_workload.rules.statefulset_service_missing
import rego.v1

sts(service_name) := {
	"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
	"spec": {"serviceName": service_name, "template": {"metadata": {"labels": {"app": "db"}}}},
}

svc(name, selector) := {"kind": "Service", "apiVersion": "v1", "name": name, "selector": {"matchLabels": selector}, "spec": {"clusterIP": "None"}}

findings_for(s, entries) := fs if {
	fs := statefulset_service_missing.findings with input as h.with_ns(s)
		with data.kubectl_workload.inventory as h.inventory(entries)
}

test_missing_with_other_services if {
	fs := findings_for(sts("db-headless"), [svc("db", {"app": "db"}), svc("web", {"app": "web"})])
	count(fs) == 1
	some f in fs
	f.path == "spec.serviceName"
	contains(f.msg, "no Service of the input in namespace default (it holds 2 Services) is called db-headless (Service db selects its pods)")
}

test_missing_without_hint if {
	some f in findings_for(sts("db-headless"), [svc("web", {"app": "web"})])
	contains(f.msg, "is called db-headless: its pods")
}

test_present if {
	count(findings_for(sts("db"), [svc("db", {"app": "db"})])) == 0
}

test_silent_without_services if {
	count(findings_for(sts("db"), [h.deployment("web", {"app": "web"}, 1)])) == 0
}

test_silent_without_service_name if {
	s := {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"}, "spec": {}}
	count(findings_for(s, [svc("web", {"app": "web"})])) == 0
	count(findings_for(sts(""), [svc("web", {"app": "web"})])) == 0
}
