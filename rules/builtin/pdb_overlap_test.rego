package kubectl_workload.rules.pdb_overlap_test

import data.kubectl_workload.rules.pdb_overlap
import rego.v1

pdb(name, labels) := {"object": {"kind": "PodDisruptionBudget", "metadata": {"name": name}, "spec": {"selector": {"matchLabels": labels}}}, "namespace": "shop", "key": sprintf("PodDisruptionBudget/%s", [name])}

inv := {"namespaces": {"shop": {
	"objects": {
		"Deployment/web": {"kind": "Deployment", "name": "web", "templateLabels": {"app": "web", "tier": "front"}, "selector": {"matchLabels": {"app": "web"}}, "labels": null},
		"PodDisruptionBudget/web": {"kind": "PodDisruptionBudget", "name": "web", "selector": {"matchLabels": {"app": "web"}}, "templateLabels": null, "labels": null},
		"PodDisruptionBudget/front": {"kind": "PodDisruptionBudget", "name": "front", "selector": {"matchLabels": {"tier": "front"}}, "templateLabels": null, "labels": null},
	},
	"by_kind": {"Deployment": ["Deployment/web"], "PodDisruptionBudget": ["PodDisruptionBudget/front", "PodDisruptionBudget/web"]},
	"count": {"Deployment": 1, "PodDisruptionBudget": 2}, "workloads": 1,
	"by_template_label": {"app=web": ["Deployment/web"], "tier=front": ["Deployment/web"]},
	"by_selector_label": {"app=web": ["Deployment/web", "PodDisruptionBudget/web"], "tier=front": ["PodDisruptionBudget/front"]},
	"selectors_without_labels": [],
}}}

test_overlap if {
	fs := pdb_overlap.findings with input as pdb("web", {"app": "web"}) with data.kubectl_workload.inventory as inv
	count(fs) == 1
	some f in fs
	contains(f.msg, "PodDisruptionBudget web and front both select the pods of Deployment web")
}

test_alone if {
	alone := json.patch(inv, [
		{"op": "remove", "path": "/namespaces/shop/objects/PodDisruptionBudget~1front"},
		{"op": "replace", "path": "/namespaces/shop/by_selector_label/tier=front", "value": []},
	])
	count(pdb_overlap.findings) == 0 with input as pdb("web", {"app": "web"}) with data.kubectl_workload.inventory as alone
}
