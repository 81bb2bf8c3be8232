# The benchmark's conftest adapter: kubectl workload's built-in rules
# (rules/builtin and rules/lib, copied beside this file by
# hack/bench-peers.sh) run as a conftest policy.
#
# conftest evaluates data.main.deny once per document, with the document as
# input. The built-in rules expect lint's input (input.object,
# input.defaulted, input.namespace, input.key, input.facts) and the run's
# inventory in data.kubectl_workload.inventory, so deny builds both from the
# document and evaluates every rule package with them. What conftest cannot
# give, the adapter cannot either: there is no API-server defaulting
# (input.defaulted is the document as written), no facts computed in Go
# (rollout/downtime stays silent), and the inventory holds the document
# alone, since conftest shows one document at a time, so cross-resource
# rules see no other object. Every rule still runs on every document.
package main

import rego.v1

namespace := object.get(input, ["metadata", "namespace"], "default")

name := object.get(input, ["metadata", "name"], "")

key := concat("/", [object.get(input, "kind", ""), name])

kind := object.get(input, "kind", "")

spec := s if {
	s := object.get(input, "spec", {})
	is_object(s)
} else := {}

workload_kinds := {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicationController", "PodTemplate"}

template := object.get(spec, ["jobTemplate", "spec", "template"], null) if {
	kind == "CronJob"
} else := object.get(spec, "template", null)

template_labels := l if {
	kind in workload_kinds
	l := object.get(template, ["metadata", "labels"], null)
	is_object(l)
} else := null

selector := {"matchLabels": s} if {
	kind in {"ReplicationController", "Service"}
	s := object.get(spec, "selector", {})
	is_object(s)
	count(s) > 0
} else := object.get(spec, "selector", null) if {
	kind == "Job"
	object.get(spec, "manualSelector", false) == true
} else := null if {
	kind in {"ReplicationController", "Service", "Job", "CronJob", "Pod", "PodTemplate"}
} else := object.get(spec, "selector", null)

entry := {
	"kind": kind,
	"apiVersion": object.get(input, "apiVersion", ""),
	"name": name,
	"namespace": namespace,
	"labels": object.get(input, ["metadata", "labels"], null),
	"owned": count(object.get(input, ["metadata", "ownerReferences"], [])) > 0,
	"templateLabels": template_labels,
	"selector": selector,
	"spec": object.remove(spec, {"template", "jobTemplate"}),
}

pairs(m) := {sprintf("%s=%s", [k, v]) | is_object(m); some k, v in m}

match_labels := object.get(selector, "matchLabels", {}) if is_object(selector) else := {}

inventory := {"namespaces": {namespace: {
	"objects": {key: entry},
	"by_template_label": {p: [key] | some p in pairs(template_labels)},
	"by_selector_label": {p: [key] | p := min(pairs(match_labels))},
	"selectors_without_labels": [key | selector != null; count(match_labels) == 0],
	"count": {kind: 1},
	"by_kind": {kind: [key]},
	"by_scale_target": {target: [key] |
		kind == "HorizontalPodAutoscaler"
		ref := object.get(spec, "scaleTargetRef", {})
		target := concat("/", [object.get(ref, "kind", ""), object.get(ref, "name", "")])
	},
	"workloads": count([1 | kind in {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicationController", "Pod"}]),
}}}

lint_input := {"object": input, "defaulted": input, "namespace": namespace, "key": key, "facts": {}}

deny contains msg if {
	inv := inventory
	lint := lint_input
	some pkg
	findings := data.kubectl_workload.rules[pkg].findings with input as lint with data.kubectl_workload.inventory as inv
	some f in findings
	msg := sprintf("%s: %s", [pkg, f.msg])
}
