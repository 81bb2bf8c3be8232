package kubectl_workload.rules.selector_bare_pod_adopted_test

import data.kubectl_workload.lib.xref_test as h
import data.kubectl_workload.rules.selector_bare_pod_adopted
import rego.v1

pod(name, labels) := {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels}, "spec": {}}

findings_for(p, entries) := fs if {
	fs := selector_bare_pod_adopted.findings with input as h.with_ns(p)
		with data.kubectl_workload.inventory as h.inventory(entries)
}

rs := {
	"kind": "ReplicaSet", "name": "web", "templateLabels": {"app": "web"},
	"selector": {"matchLabels": {"app": "web"}}, "spec": {"replicas": 3},
}

test_replicaset_adopts_bare_pod if {
	fs := findings_for(pod("debug", {"app": "web", "debug": "true"}), [rs])
	count(fs) == 1
	some f in fs
	f.path == "metadata.labels"
	contains(f.msg, "Pod debug has no controller ownerReference and its labels app=web,debug=true are selected by ReplicaSet web (selector app=web)")
	contains(f.msg, "toward its 3 replicas")
}

test_owned_pod_is_not_adopted if {
	p := object.union(pod("web-abc", {"app": "web"}), {"metadata": {"ownerReferences": [{"kind": "ReplicaSet", "name": "web", "uid": "1", "apiVersion": "apps/v1", "controller": true}]}})
	count(findings_for(p, [rs])) == 0
}

test_non_controller_owner_does_not_protect if {
	p := object.union(pod("web-gc", {"app": "web"}), {"metadata": {"ownerReferences": [{"kind": "ConfigMap", "name": "anchor", "uid": "2", "apiVersion": "v1"}]}})
	count(findings_for(p, [rs])) == 1
}

test_generated_name if {
	p := {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "web-", "labels": {"app": "web"}}, "spec": {}}
	fs := selector_bare_pod_adopted.findings with input as {"namespace": "default", "key": "Pod/", "object": p}
		with data.kubectl_workload.inventory as h.inventory([rs])
	some f in fs
	startswith(f.msg, "Pod web-* has no controller ownerReference")
}

test_deployment_does_not_adopt if {
	count(findings_for(pod("debug", {"app": "web"}), [h.deployment("web", {"app": "web"}, 2)])) == 0
}

test_job_adopts_only_with_manual_selector if {
	generated := {"kind": "Job", "apiVersion": "batch/v1", "name": "batch", "templateLabels": {"app": "batch"}, "spec": {"parallelism": 1}}
	count(findings_for(pod("p", {"app": "batch"}), [generated])) == 0
	manual := object.union(generated, {"selector": {"matchLabels": {"app": "batch"}}, "spec": {"manualSelector": true, "parallelism": 2, "completions": 4}})
	fs := findings_for(pod("p", {"app": "batch"}), [manual])
	count(fs) == 1
	some f in fs
	contains(f.msg, "parallelism 2, completions 4")
}

test_daemonset_adopts_via_expressions if {
	ds := {
		"kind": "DaemonSet", "name": "agent", "templateLabels": {"role": "agent"},
		"selector": {"matchExpressions": [{"key": "role", "operator": "Exists"}]},
	}
	fs := findings_for(pod("agent-manual", {"role": "agent"}), [ds])
	count(fs) == 1
	some f in fs
	contains(f.msg, "selected by DaemonSet agent (selector role)")
}

test_statefulset_adopts_only_its_ordinal_names if {
	sts := {
		"kind": "StatefulSet", "name": "db", "templateLabels": {"app": "db"},
		"selector": {"matchLabels": {"app": "db"}}, "spec": {"replicas": 3},
	}
	count(findings_for(pod("db-admin", {"app": "db"}), [sts])) == 0
	count(findings_for(pod("dbx-0", {"app": "db"}), [sts])) == 0
	fs := findings_for(pod("db-7", {"app": "db"}), [sts])
	count(fs) == 1
	some f in fs
	contains(f.msg, "ordinal 7 of the StatefulSet (3 replicas)")
}

test_unlabelled_pod_and_notin_selector if {
	rc := {
		"kind": "ReplicationController", "apiVersion": "v1", "name": "legacy", "templateLabels": {"tier": "x"},
		"selector": {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["web"]}]}, "spec": {"replicas": 1},
	}
	p := {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare"}, "spec": {}}
	fs := findings_for(p, [rc])
	count(fs) == 1
	some f in fs
	contains(f.msg, "labels <none>")
}
