package kubectl_workload.rules.pdb_zero_disruptions_test

import data.kubectl_workload.lib.xref_test as h
import data.kubectl_workload.rules.pdb_zero_disruptions
import rego.v1

pdb(spec) := {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"}, "spec": object.union({"selector": {"matchLabels": {"app": "web"}}}, spec)}

findings_for(p, entries) := fs if {
	fs := pdb_zero_disruptions.findings with input as h.with_ns(p)
		with data.kubectl_workload.inventory as h.inventory(entries)
}

web(replicas) := h.deployment("web", {"app": "web"}, replicas)

test_min_available_equals_replicas if {
	fs := findings_for(pdb({"minAvailable": 2}), [web(2)])
	count(fs) == 1
	some f in fs
	f.path == "spec.minAvailable"
	contains(f.msg, "sets minAvailable 2, and the pods it selects number 2 (Deployment web with 2 replicas)")
}

test_min_available_below_replicas if {
	count(findings_for(pdb({"minAvailable": 2}), [web(3)])) == 0
}

test_defaulted_single_replica if {
	count(findings_for(pdb({"minAvailable": 1}), [web(1)])) == 1
}

test_replicas_summed_over_workloads if {
	canary := h.deployment("web-canary", {"app": "web", "track": "canary"}, 1)
	count(findings_for(pdb({"minAvailable": 2}), [web(1), canary])) == 1
	count(findings_for(pdb({"minAvailable": 2}), [web(2), canary])) == 0
}

test_bare_pod_adds_one if {
	pod := {"kind": "Pod", "apiVersion": "v1", "name": "debug", "labels": {"app": "web"}}
	count(findings_for(pdb({"minAvailable": 1}), [web(1), pod])) == 0
}

test_percentage_rounds_up if {
	fs := findings_for(pdb({"minAvailable": "90%"}), [web(3)])
	some f in fs
	contains(f.msg, "minAvailable 90%, which rounds up to 3 of the 3 pods")
	count(findings_for(pdb({"minAvailable": "60%"}), [web(3)])) == 0
}

test_max_unavailable_zero if {
	some f in findings_for(pdb({"maxUnavailable": 0}), [web(5)])
	f.path == "spec.maxUnavailable"
	contains(f.msg, "maxUnavailable 0: no pod of Deployment web may ever be evicted")
	count(findings_for(pdb({"maxUnavailable": "0%"}), [web(5)])) == 1
	count(findings_for(pdb({"maxUnavailable": "10%"}), [web(5)])) == 0
}

test_min_available_all if {
	count(findings_for(pdb({"minAvailable": "100%"}), [web(5)])) == 1
}

test_absolute_forms_without_workloads if {
	count(findings_for(pdb({"maxUnavailable": 0}), [])) == 1
	count(findings_for(pdb({"minAvailable": 1}), [])) == 0
}

test_budget_selecting_nothing_is_another_rule if {
	other := h.deployment("api", {"app": "api"}, 1)
	count(findings_for(pdb({"maxUnavailable": 0}), [other])) == 0
}

test_daemonset_count_unknown if {
	ds := {"kind": "DaemonSet", "name": "web", "templateLabels": {"app": "web"}, "selector": {"matchLabels": {"app": "web"}}, "spec": {}}
	count(findings_for(pdb({"minAvailable": 1}), [ds])) == 0
	count(findings_for(pdb({"maxUnavailable": 0}), [ds])) == 1
}

test_autoscaled_workload_skipped if {
	hpa := {"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v2", "name": "web", "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 3, "maxReplicas": 6}}
	count(findings_for(pdb({"minAvailable": 1}), [web(1), hpa])) == 0
}

test_empty_selector_counts_every_workload if {
	p := {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "all"}, "spec": {"minAvailable": 2, "selector": {}}}
	api := h.deployment("api", {"app": "api"}, 1)
	count(findings_for(p, [web(1), api])) == 1
	count(findings_for(p, [web(2), api])) == 0
}

test_no_selector_selects_nothing if {
	p := {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"}, "spec": {"maxUnavailable": 0}}
	count(findings_for(p, [web(1)])) == 0
}

# Counted without the inventory's Go facts: at the autoscaler's minReplicas
# (1 when unset), the pods it selects.
test_autoscaled_at_min_replicas if {
	hpa := {"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v2", "name": "web", "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 3, "maxReplicas": 6}}
	fs := findings_for(pdb({"minAvailable": 3}), [web(5), hpa])
	count(fs) == 1
	some f in fs
	contains(f.msg, "sets minAvailable 3, and HorizontalPodAutoscaler web scales the pods it selects down to 3 at minReplicas")
	unset := json.patch(hpa, [{"op": "remove", "path": "/spec/minReplicas"}])
	count(findings_for(pdb({"minAvailable": 1}), [web(5), unset])) == 1
	count(findings_for(pdb({"minAvailable": "100%"}), [web(5), hpa])) == 1
	count(findings_for(pdb({"minAvailable": "60%"}), [web(5), hpa])) == 0
}
