package kubectl_workload.rules.hpa_replicas_set_test

import data.kubectl_workload.lib.xref_test as h
import data.kubectl_workload.rules.hpa_replicas_set
import rego.v1

dep(spec) := {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": spec}

hpa(name, api_version, kind, target) := {
	"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v2", "name": name,
	"spec": {"scaleTargetRef": {"apiVersion": api_version, "kind": kind, "name": target}, "minReplicas": 2, "maxReplicas": 8},
}

findings_for(d, entries) := fs if {
	fs := hpa_replicas_set.findings with input as h.with_ns(d)
		with data.kubectl_workload.inventory as h.inventory(array.concat([h.deployment("web", {"app": "web"}, 3)], entries))
}

test_replicas_set_with_hpa if {
	fs := findings_for(dep({"replicas": 3}), [hpa("web", "apps/v1", "Deployment", "web")])
	count(fs) == 1
	some f in fs
	f.path == "spec.replicas"
	contains(f.msg, "Deployment web sets spec.replicas 3, but it is scaled by HorizontalPodAutoscaler web (minReplicas 2, maxReplicas 8)")
	contains(f.msg, "resizes the new and old ReplicaSets proportionally")
}

test_hpa_named_otherwise if {
	count(findings_for(dep({"replicas": 3}), [hpa("web-autoscaler", "apps/v1", "Deployment", "web")])) == 1
}

test_several_hpas_one_finding if {
	fs := findings_for(dep({"replicas": 3}), [hpa("a", "apps/v1", "Deployment", "web"), hpa("b", "apps/v1", "Deployment", "web")])
	count(fs) == 1
	some f in fs
	contains(f.msg, "HorizontalPodAutoscaler a (minReplicas 2, maxReplicas 8) and HorizontalPodAutoscaler b")
}

test_replicas_unset if {
	count(findings_for(dep({}), [hpa("web", "apps/v1", "Deployment", "web")])) == 0
}

test_no_hpa if {
	count(findings_for(dep({"replicas": 3}), [])) == 0
}

test_hpa_for_other_kind_or_group if {
	count(findings_for(dep({"replicas": 3}), [hpa("web", "apps/v1", "StatefulSet", "web")])) == 0
	count(findings_for(dep({"replicas": 3}), [hpa("web", "argoproj.io/v1alpha1", "Deployment", "web")])) == 0
}

test_statefulset if {
	s := {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"}, "spec": {"replicas": 2}}
	fs := hpa_replicas_set.findings with input as h.with_ns(s)
		with data.kubectl_workload.inventory as h.inventory([hpa("db", "apps/v1", "StatefulSet", "db")])
	some f in fs
	not contains(f.msg, "ReplicaSets")
}
