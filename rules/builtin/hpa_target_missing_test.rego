package kubectl_workload.rules.hpa_target_missing_test

import data.kubectl_workload.lib.xref_test as h
import data.kubectl_workload.rules.hpa_target_missing
import rego.v1

hpa(kind, name) := {
	"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
	"spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": name}, "maxReplicas": 5},
}

findings_for(a, entries) := fs if {
	fs := hpa_target_missing.findings with input as h.with_ns(a)
		with data.kubectl_workload.inventory as h.inventory(entries)
}

test_target_missing if {
	fs := findings_for(hpa("Deployment", "web"), [h.deployment("api", {"app": "api"}, 1)])
	count(fs) == 1
	some f in fs
	f.path == "spec.scaleTargetRef"
	f.msg == "HorizontalPodAutoscaler web scales Deployment web, which the input does not hold in namespace default"
}

test_wrong_kind if {
	some f in findings_for(hpa("Deployment", "db"), [{"kind": "StatefulSet", "name": "db"}])
	contains(f.msg, "(it holds StatefulSet db: is scaleTargetRef.kind wrong?)")
}

test_target_present if {
	count(findings_for(hpa("Deployment", "web"), [h.deployment("web", {"app": "web"}, 1)])) == 0
}

test_v1_autoscaler if {
	a := object.union(hpa("ReplicaSet", "web"), {"apiVersion": "autoscaling/v1"})
	count(findings_for(a, [])) == 1
}
