package kubectl_workload.rules.selector_overlap_test

import data.kubectl_workload.lib.xref_test as h
import data.kubectl_workload.rules.selector_overlap
import rego.v1

findings_for(key, entries) := fs if {
	fs := selector_overlap.findings with input as {"namespace": "default", "key": key}
		with data.kubectl_workload.inventory as h.inventory(entries)
}

canary := {
	"kind": "Deployment", "name": "web-canary", "templateLabels": {"app": "web", "track": "canary"},
	"selector": {"matchLabels": {"app": "web", "track": "canary"}}, "spec": {"replicas": 1},
}

stable := h.deployment("web", {"app": "web"}, 3)

# The broad selector selects the canary's template: both get a finding.
test_superset_selector_reported_on_both if {
	fs := findings_for("Deployment/web", [stable, canary])
	count(fs) == 1
	some f in fs
	f.path == "spec.selector"
	contains(f.msg, "the selector of Deployment web selects the pod template of Deployment web-canary")
	contains(f.msg, "Deployment web: 3 replicas, selector app=web")
	fc := findings_for("Deployment/web-canary", [stable, canary])
	count(fc) == 1
	some g in fc
	contains(g.msg, "Deployment web-canary overlaps Deployment web")
	contains(g.msg, "Deployment web-canary: 1 replica, selector app=web,track=canary")
}

test_same_selector_both_directions if {
	rc := {
		"kind": "ReplicationController", "apiVersion": "v1", "name": "web-rc", "templateLabels": {"app": "web"},
		"selector": {"matchLabels": {"app": "web"}}, "spec": {"replicas": 2},
	}
	fs := findings_for("Deployment/web", [stable, rc])
	count(fs) == 1
	some f in fs
	contains(f.msg, "each selector selects the other's pod template")
}

test_match_expressions if {
	ds := {
		"kind": "DaemonSet", "name": "agent", "templateLabels": {"app": "web", "role": "agent"},
		"selector": {"matchExpressions": [{"key": "role", "operator": "In", "values": ["agent", "web"]}]},
	}
	web := h.deployment("web", {"app": "web", "role": "web"}, 2)
	fs := findings_for("DaemonSet/agent", [ds, web])
	count(fs) == 1
	some f in fs
	contains(f.msg, "selector role in (agent,web)")
	contains(f.msg, "one pod per eligible node")

	# The Deployment's selector (app=web,role=web) does not select the agent's
	# template, but the DaemonSet's selects the Deployment's: reported there too.
	count(findings_for("Deployment/web", [ds, web])) == 1
}

test_distinct_selectors_are_fine if {
	count(findings_for("Deployment/web", [h.deployment("web", {"app": "web"}, 1), h.deployment("api", {"app": "api"}, 1)])) == 0
}

test_deployment_replicasets_are_ignored if {
	owned := {
		"kind": "ReplicaSet", "name": "web-5d8f", "owned": true,
		"templateLabels": {"app": "web", "pod-template-hash": "5d8f"},
		"selector": {"matchLabels": {"app": "web", "pod-template-hash": "5d8f"}}, "spec": {"replicas": 3},
	}
	unowned_hash := object.union(owned, {"name": "web-6c7d", "owned": false})
	count(findings_for("Deployment/web", [stable, owned, unowned_hash])) == 0
	count(findings_for("ReplicaSet/web-6c7d", [stable, owned, unowned_hash])) == 0
}

test_jobs_only_with_manual_selector if {
	generated := {"kind": "Job", "apiVersion": "batch/v1", "name": "migrate", "templateLabels": {"app": "web"}, "selector": null, "spec": {"parallelism": 1}}
	count(findings_for("Deployment/web", [stable, generated])) == 0
	manual := object.union(generated, {"selector": {"matchLabels": {"app": "web"}}, "spec": {"manualSelector": true, "parallelism": 2}})
	fs := findings_for("Job/migrate", [stable, manual])
	count(fs) == 1
	some f in fs
	contains(f.msg, "Job migrate: parallelism 2")
}

test_services_are_not_controllers if {
	svc := {"kind": "Service", "apiVersion": "v1", "name": "web", "selector": {"matchLabels": {"app": "web"}}}
	count(findings_for("Deployment/web", [stable, svc])) == 0
}

test_pods_are_not_checked if {
	pod := {"kind": "Pod", "apiVersion": "v1", "name": "p", "labels": {"app": "web"}}
	count(findings_for("Pod/p", [stable, pod])) == 0
}

# Many identical controllers: one finding each that counts the others, not one
# per pair.
test_many_identical_counted_once if {
	entries := [h.deployment(sprintf("web-%d", [i]), {"app": "web"}, 1) | some i in numbers.range(0, 7)]
	fs := findings_for("Deployment/web-0", entries)
	count(fs) == 1
	some f in fs
	contains(f.msg, "Deployment web-0 overlaps 7 other controllers: Deployment web-1, Deployment web-2, Deployment web-3, Deployment web-4, Deployment web-5 and 2 more")
	f.path == "spec.selector"
}
