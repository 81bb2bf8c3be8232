package kubectl_workload.rules.pdb_no_scale_test

import data.kubectl_workload.rules.pdb_no_scale
import rego.v1

pdb(spec) := {"object": {"kind": "PodDisruptionBudget", "metadata": {"name": "agent"}, "spec": object.union({"selector": {"matchLabels": {"app": "agent"}}}, spec)}, "namespace": "ops", "key": "PodDisruptionBudget/agent"}

inv(kind) := {"namespaces": {"ops": {
	"objects": {sprintf("%s/agent", [kind]): {"kind": kind, "name": "agent", "templateLabels": {"app": "agent"}, "selector": {"matchLabels": {"app": "agent"}}, "labels": null}},
	"by_kind": {kind: [sprintf("%s/agent", [kind])]},
	"count": {kind: 1}, "workloads": 1,
	"by_template_label": {"app=agent": [sprintf("%s/agent", [kind])]},
	"by_selector_label": {"app=agent": [sprintf("%s/agent", [kind])]},
	"selectors_without_labels": [],
}}}

test_daemonset_max_unavailable if {
	fs := pdb_no_scale.findings with input as pdb({"maxUnavailable": 1}) with data.kubectl_workload.inventory as inv("DaemonSet")
	count(fs) == 1
	some f in fs
	contains(f.msg, "DaemonSet agent has none (daemonsets.apps does not implement the scale subresource)")
	f.path == "spec.maxUnavailable"
}

test_job_percent if {
	fs := pdb_no_scale.findings with input as pdb({"minAvailable": "50%"}) with data.kubectl_workload.inventory as inv("Job")
	some f in fs
	contains(f.msg, "jobs.batch does not implement the scale subresource")
}

test_integer_min_available_needs_no_scale if {
	count(pdb_no_scale.findings) == 0 with input as pdb({"minAvailable": 1}) with data.kubectl_workload.inventory as inv("DaemonSet")
}

test_deployment_has_a_scale if {
	count(pdb_no_scale.findings) == 0 with input as pdb({"maxUnavailable": 1}) with data.kubectl_workload.inventory as inv("Deployment")
}
