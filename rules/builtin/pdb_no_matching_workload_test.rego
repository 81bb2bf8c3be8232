package kubectl_workload.rules.pdb_no_matching_workload_test

import data.kubectl_workload.lib.xref_test as h
import data.kubectl_workload.rules.pdb_no_matching_workload
import rego.v1

pdb(name, spec) := {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name}, "spec": spec}

findings_for(p, entries) := fs if {
	fs := pdb_no_matching_workload.findings with input as h.with_ns(p)
		with data.kubectl_workload.inventory as h.inventory(entries)
}

web := h.deployment("web", {"app": "web", "tier": "frontend"}, 2)

test_label_typo if {
	fs := findings_for(pdb("web", {"minAvailable": 1, "selector": {"matchLabels": {"app": "web", "tier": "front"}}}), [web])
	count(fs) == 1
	some f in fs
	f.path == "spec.selector"
	contains(f.msg, "selects app=web,tier=front, which matches no pod template or Pod of the 1 workload")
	contains(f.msg, "meant for Deployment web")
}

test_expressions_with_same_name if {
	sel := {"matchExpressions": [{"key": "app", "operator": "In", "values": ["webapp"]}]}
	some f in findings_for(pdb("web", {"maxUnavailable": 1, "selector": sel}), [web])
	contains(f.msg, "selects app in (webapp)")
}

test_matching if {
	count(findings_for(pdb("web", {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}), [web])) == 0
}

test_empty_selector_selects_every_pod if {
	count(findings_for(pdb("all", {"maxUnavailable": 1, "selector": {}}), [web])) == 0
}

test_no_selector_selects_nothing if {
	fs := findings_for(pdb("web", {"maxUnavailable": 1}), [web])
	count(fs) == 1
	some f in fs
	f.path == "spec"
	contains(f.msg, "has no selector")
}

test_silent_without_workloads if {
	count(findings_for(pdb("web", {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}), [])) == 0
}

test_silent_for_unrelated_selector if {
	count(findings_for(pdb("exporter", {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "exporter"}}}), [web])) == 0
}
