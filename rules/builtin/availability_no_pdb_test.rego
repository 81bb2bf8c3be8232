package kubectl_workload.rules.availability_no_pdb_test

import data.kubectl_workload.rules.availability_no_pdb
import rego.v1

dep(replicas) := {"object": {"kind": "Deployment", "metadata": {"name": "web"}, "spec": {"template": {"metadata": {"labels": {"app": "web"}}}}}, "defaulted": {"spec": {"replicas": replicas}}, "namespace": "shop", "key": "Deployment/web"}

inv(pdbs) := {"namespaces": {"shop": {
	"objects": object.union({"Deployment/web": {"kind": "Deployment", "name": "web", "templateLabels": {"app": "web"}, "labels": null}}, {sprintf("PodDisruptionBudget/%s", [p]): {"kind": "PodDisruptionBudget", "name": p, "selector": {"matchLabels": {"app": "web"}}} | some p in pdbs}),
	"by_kind": {}, "count": {}, "by_template_label": {"app=web": ["Deployment/web"]},
	"by_selector_label": {"app=web": [sprintf("PodDisruptionBudget/%s", [p]) | some p in pdbs]},
	"selectors_without_labels": [],
}}}

test_no_pdb if {
	count(availability_no_pdb.findings) == 1 with input as dep(3) with data.kubectl_workload.inventory as inv([])
}

test_pdb if {
	count(availability_no_pdb.findings) == 0 with input as dep(3) with data.kubectl_workload.inventory as inv(["web"])
}

test_single if {
	count(availability_no_pdb.findings) == 0 with input as dep(1) with data.kubectl_workload.inventory as inv([])
}
