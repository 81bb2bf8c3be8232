package kubectl_workload.rules.service_no_matching_workload_test

import data.kubectl_workload.lib.xref_test as h
import data.kubectl_workload.rules.service_no_matching_workload
import rego.v1

service(name, selector) := {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": {"selector": selector}}

findings_for(svc, entries) := fs if {
	fs := service_no_matching_workload.findings with input as h.with_ns(svc)
		with data.kubectl_workload.inventory as h.inventory(entries)
}

web := h.deployment("web", {"app": "web", "tier": "frontend"}, 2)

test_typo_in_one_label if {
	fs := findings_for(service("web", {"app": "web", "tier": "fronted"}), [web])
	count(fs) == 1
	some f in fs
	f.path == "spec.selector"
	contains(f.msg, "selects app=web,tier=fronted, which matches no pod template or Pod of the 1 workload in namespace default")
	contains(f.msg, "meant for Deployment web (pod template labels app=web,tier=frontend)")
}

test_same_name_workload_with_other_labels if {
	fs := findings_for(service("web", {"app": "webapp"}), [web])
	count(fs) == 1
}

test_matching_service if {
	count(findings_for(service("web", {"app": "web"}), [web])) == 0
}

test_matching_bare_pod if {
	pod := {"kind": "Pod", "apiVersion": "v1", "name": "debug", "labels": {"app": "debug", "tier": "frontend"}}
	count(findings_for(service("debug", {"app": "debug"}), [web, pod])) == 0
}

test_silent_without_workloads if {
	count(findings_for(service("web", {"app": "web"}), [])) == 0
}

# Pods of a chart installed separately: nothing in the input is named like
# the Service or carries one of its labels.
test_silent_for_unrelated_selector if {
	count(findings_for(service("exporter", {"app.kubernetes.io/name": "dcgm-exporter"}), [web])) == 0
}

# A label that the input's workloads share with the Service (part-of) is no
# evidence: the Service fronts pods that an operator creates.
test_silent_for_shared_label_only if {
	exporter := h.deployment("exporter", {"app.kubernetes.io/name": "exporter", "app.kubernetes.io/part-of": "monitoring"}, 1)
	sel := {"app.kubernetes.io/name": "alertmanager", "app.kubernetes.io/instance": "main", "app.kubernetes.io/part-of": "monitoring"}
	count(findings_for(service("alertmanager-main", sel), [exporter])) == 0
}

# A label the pod template does not set at all may be set at run time by an
# operator: reported as information, saying so.
test_missing_label_on_the_template if {
	fs := findings_for(service("api", {"app": "web", "tier": "frontend", "track": "stable"}), [web])
	count(fs) == 1
	some f in fs
	f.severity == "info"
	contains(f.msg, "Deployment web carries every label of it but track, which its pod template does not set")
}

# Issue 18: a database operator labels its primary pod role=primary.
test_operator_label_is_info if {
	db := object.union(h.deployment("postgres", {"app": "postgres"}, 3), {"kind": "StatefulSet"})
	fs := findings_for(service("postgres-primary", {"app": "postgres", "role": "primary"}), [db])
	count(fs) == 1
	some f in fs
	f.severity == "info"
	contains(f.msg, "StatefulSet postgres carries every label of it but role")
}

# A label the StatefulSet controller adds to each pod: a Service per pod.
test_controller_label_is_silent if {
	db := object.union(h.deployment("db", {"app": "db"}, 3), {"kind": "StatefulSet"})
	count(findings_for(service("db-0", {"app": "db", "statefulset.kubernetes.io/pod-name": "db-0"}), [db])) == 0
}

# Issue 18: a one-label selector whose value is a few edits away from a
# workload's: "did you mean".
test_did_you_mean_label_value if {
	checkout := h.deployment("checkout", {"app.kubernetes.io/name": "checkout"}, 2)
	inv := h.inventory([checkout, {
		"kind": "Service", "apiVersion": "v1", "name": "shop", "selector": {"matchLabels": {"app.kubernetes.io/name": "chekout"}},
		"did_you_mean": {"label": "app.kubernetes.io/name=checkout", "key": "Deployment/checkout"},
	}])
	fs := service_no_matching_workload.findings with input as h.with_ns(service("shop", {"app.kubernetes.io/name": "chekout"}))
		with data.kubectl_workload.inventory as inv
	count(fs) == 1
	some f in fs
	contains(f.msg, "did you mean app.kubernetes.io/name=checkout, as Deployment checkout has?")
}

test_selectorless_services_are_not_checked if {
	count(findings_for({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {}}, [web])) == 0
	external := {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {"type": "ExternalName", "externalName": "example.com", "selector": {"app": "nothing"}}}
	count(findings_for(external, [web])) == 0
}

test_podtemplate_is_not_a_workload if {
	pt := {"kind": "PodTemplate", "apiVersion": "v1", "name": "tpl", "templateLabels": {"app": "tpl"}}
	count(findings_for(service("tpl", {"app": "tpl"}), [pt])) == 0
	fs := findings_for(service("tpl", {"app": "tpl"}), [pt, web])
	count(fs) == 0
}
