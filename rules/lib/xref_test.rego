# Tests of the cross-resource helpers, and the inventory builder that the
# cross-resource rules' tests share: inventory(entries) builds, in Rego, what
# rules/inventory.go builds for namespace "default" (objects, label indexes,
# counts) from entry summaries.
package kubectl_workload.lib.xref_test

import data.kubectl_workload.lib.xref
import rego.v1

# entry fills in an inventory summary's defaults.
entry(e) := object.union(
	{"apiVersion": "apps/v1", "labels": null, "owned": false, "templateLabels": null, "selector": null, "spec": {}},
	e,
)

# inventory(entries) is the inventory of a run whose objects, all in namespace
# "default", the entries summarize.
inventory(entries) := {"namespaces": {"default": namespace(entries)}}

namespace(entries) := {
	"objects": objects,
	"by_template_label": {p: sort(keys) |
		some p in {pair | some e in objects; some k, v in templates(e); pair := sprintf("%s=%s", [k, v])}
		keys := [key | some key, e in objects; some k, v in templates(e); sprintf("%s=%s", [k, v]) == p]
	},
	"by_selector_label": {p: sort(keys) |
		some p in {rarest_pair(objects, e) | some e in objects}
		keys := [key | some key, e in objects; rarest_pair(objects, e) == p]
	},
	"selectors_without_labels": sort([key | some key, e in objects; e.selector != null; count(match_labels(e)) == 0]),
	"count": {kind: n | some kind in {e.kind | some e in objects}; n := count([1 | some e in objects; e.kind == kind])},
	"by_kind": {kind: keys | some kind in {e.kind | some e in objects}; keys := sort([key | some key, e in objects; e.kind == kind])},
	"by_scale_target": {target: sort(keys) |
		some target in {scale_target(e) | some e in objects}
		keys := [key | some key, e in objects; scale_target(e) == target]
	},
	"workloads": count([1 | some e in objects; e.kind in xref.workload_kinds]),
} if {
	objects := {key: e | some raw in entries; e := entry(raw); key := concat("/", [e.kind, e.name])}
}

# rarest_pair(objects, e) is the matchLabels pair under which the inventory
# indexes e's selector: the one the fewest selectors share, the smallest of
# those; undefined without matchLabels.
rarest_pair(objects, e) := p if {
	pairs := pairs_of(e)
	counts := {q: n | some q in pairs; n := count([1 | some o in objects; q in pairs_of(o)])}
	fewest := min({n | some n in counts})
	p := min({q | some q, n in counts; n == fewest})
}

# scale_target(e) is the Kind/name an autoscaler's entry scales.
scale_target(e) := concat("/", [e.spec.scaleTargetRef.kind, e.spec.scaleTargetRef.name]) if e.kind == "HorizontalPodAutoscaler"

pairs_of(e) := {sprintf("%s=%s", [k, v]) | some k, v in match_labels(e)}

templates(e) := e.templateLabels if {
	is_object(e.templateLabels)
} else := {}

match_labels(e) := object.get(e.selector, "matchLabels", {}) if {
	e.selector != null
} else := {}

# deployment is the summary of a Deployment whose selector is its labels.
deployment(name, labels, replicas) := {
	"kind": "Deployment", "name": name, "templateLabels": labels,
	"selector": {"matchLabels": labels}, "spec": {"replicas": replicas},
}

with_ns(o) := {"namespace": "default", "key": concat("/", [o.kind, o.metadata.name]), "object": o, "defaulted": o}

test_keys_of_kind_reads_keys_only if {
	inv := inventory([
		deployment("web", {"app": "web"}, 1),
		{"kind": "HorizontalPodAutoscaler", "name": "a"},
		{"kind": "HorizontalPodAutoscaler", "name": "b"},
		{"kind": "XHorizontalPodAutoscaler", "name": "c"},
	])
	got := xref.keys_of_kind("HorizontalPodAutoscaler") with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	got == ["HorizontalPodAutoscaler/a", "HorizontalPodAutoscaler/b"]
}

test_keys_of_kind_none if {
	inv := inventory([deployment("web", {"app": "web"}, 1)])
	got := xref.keys_of_kind("Pod") with input as {"namespace": "default"} with data.kubectl_workload.inventory as inv
	got == []
}

test_templates_selected_by_uses_every_label if {
	inv := inventory([
		deployment("web", {"app": "web", "tier": "front"}, 1),
		deployment("api", {"app": "api", "tier": "front"}, 1),
	])
	got := xref.templates_selected_by({"matchLabels": {"tier": "front", "app": "web"}}) with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	got == {"Deployment/web"}
}

test_templates_selected_by_expressions_only if {
	inv := inventory([
		deployment("web", {"app": "web"}, 1),
		deployment("api", {"app": "api"}, 1),
	])
	got := xref.templates_selected_by({"matchExpressions": [{"key": "app", "operator": "In", "values": ["api", "db"]}]})
		with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	got == {"Deployment/api"}
}

# A selector whose labels many others share is still found by
# selectors_selecting: the index lists it under its rarest pair, where it is
# alone.
test_selectors_selecting_finds_broad_selector_among_distinct_ones if {
	crowd := [deployment(sprintf("d%d", [i]), {"tier": "web", "app": sprintf("d%d", [i])}, 1) | some i in numbers.range(1, 101)]
	broad := {"kind": "ReplicaSet", "name": "broad", "templateLabels": {"tier": "web"}, "selector": {"matchLabels": {"tier": "web"}}}
	inv := inventory(array.concat(crowd, [broad]))
	labels := {"tier": "web", "app": "d7"}
	fast := xref.selectors_selecting(labels, xref.controller_kinds) with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	fast == {"Deployment/d7", "ReplicaSet/broad"}
}

# More than crowded_label selectors with the same rarest pair (a crowd of
# alike selectors) are passed over by selectors_selecting, not by
# selectors_matching.
test_selectors_selecting_passes_over_crowded_labels if {
	crowd := [{"kind": "ReplicaSet", "name": sprintf("r%d", [i]), "templateLabels": {"tier": "web"}, "selector": {"matchLabels": {"tier": "web"}}} |
		some i in numbers.range(1, 101)
	]
	own := deployment("d7", {"tier": "web", "app": "d7"}, 1)
	inv := inventory(array.concat(crowd, [own]))
	labels := {"tier": "web", "app": "d7"}
	fast := xref.selectors_selecting(labels, xref.controller_kinds) with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	fast == {"Deployment/d7"}
	full := xref.selectors_matching(labels, xref.controller_kinds) with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	count(full) == 102
}

test_selectors_matching_filters_kinds if {
	inv := inventory([
		deployment("web", {"app": "web"}, 1),
		{"kind": "Service", "name": "web", "selector": {"matchLabels": {"app": "web"}}},
	])
	got := xref.selectors_matching({"app": "web"}, {"Service"}) with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	got == {"Service/web"}
}

test_near_misses_lack_one_pair if {
	inv := inventory([
		deployment("web", {"app": "web", "tier": "frontend"}, 1),
		deployment("api", {"app": "api", "tier": "frontend"}, 1),
		deployment("db", {"app": "db", "tier": "backend", "part-of": "shop"}, 1),
	])
	got := xref.near_misses({"app": "web", "tier": "front"}) with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	got == {"Deployment/web"}
	none := xref.near_misses({"app": "cache", "tier": "cache", "part-of": "shop"}) with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	none == set()
	single := xref.near_misses({"app": "webapp"}) with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	single == set()
}

test_format_selector if {
	xref.format_selector({"matchLabels": {"b": "2", "a": "1"}, "matchExpressions": [
		{"key": "t", "operator": "In", "values": ["y", "x"]},
		{"key": "old", "operator": "DoesNotExist"},
	]}) == "a=1,b=2,!old,t in (x,y)"
	xref.format_selector({}) == "{} (everything)"
	xref.format_selector(null) == "<none>"
}

test_describe_list_names_five if {
	keys := {sprintf("Deployment/d%d", [i]) | some i in numbers.range(1, 7)}
	xref.describe_list(keys) == "Deployment d1, Deployment d2, Deployment d3, Deployment d4, Deployment d5 and 2 more"
}

test_deployment_replicaset if {
	xref.deployment_replicaset({"kind": "ReplicaSet", "owned": true, "templateLabels": {}})
	xref.deployment_replicaset({"kind": "ReplicaSet", "owned": false, "templateLabels": {"pod-template-hash": "abc"}})
	not xref.deployment_replicaset({"kind": "ReplicaSet", "owned": false, "templateLabels": {"app": "x"}})
}

test_autoscalers_targeting_by_name_and_by_scan if {
	inv := inventory([
		deployment("web", {"app": "web"}, 1),
		deployment("api", {"app": "api"}, 1),
		{"kind": "HorizontalPodAutoscaler", "name": "web", "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}},
		{"kind": "HorizontalPodAutoscaler", "name": "scaler", "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "api"}}},
		{"kind": "HorizontalPodAutoscaler", "name": "other-group", "spec": {"scaleTargetRef": {"apiVersion": "example.com/v1", "kind": "Deployment", "name": "api"}}},
	])
	by_name := xref.autoscalers_targeting("Deployment", "web", "apps/v1") with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	by_name == {"HorizontalPodAutoscaler/web"}
	by_scan := xref.autoscalers_targeting("Deployment", "api", "apps/v1") with input as {"namespace": "default"}
		with data.kubectl_workload.inventory as inv
	by_scan == {"HorizontalPodAutoscaler/scaler"}
}

# The inventory's relations (computed in Go) answer for the input object's
# own selector and pod labels; any other selector or label set is looked up
# in the label indexes.
test_relations_answer_for_the_input_object_only if {
	web := object.union(deployment("web", {"app": "web"}, 1), {"selects": ["Deployment/web", "Pod/p"], "selected_by": ["Service/s"]})
	inv := inventory([web, deployment("api", {"app": "api"}, 1)])
	inp := {"namespace": "default", "key": "Deployment/web"}
	xref.templates_selected_by({"matchLabels": {"app": "web"}}) == {"Deployment/web"} with input as inp
		with data.kubectl_workload.inventory as inv
	xref.pods_selected_by({"matchLabels": {"app": "web"}}) == {"Pod/p"} with input as inp
		with data.kubectl_workload.inventory as inv
	xref.selectors_matching({"app": "web"}, {"Service"}) == {"Service/s"} with input as inp
		with data.kubectl_workload.inventory as inv
	xref.templates_selected_by({"matchLabels": {"app": "api"}}) == {"Deployment/api"} with input as inp
		with data.kubectl_workload.inventory as inv
	xref.selectors_matching({"app": "api"}, {"Deployment"}) == {"Deployment/api"} with input as inp
		with data.kubectl_workload.inventory as inv
}

# With the inventory's lists by kind (selected_by_kind), the input object's
# own selectors are read from the lists of the kinds asked for, and counted
# from their lengths.
test_selected_by_kind_for_the_input_object if {
	web := object.union(deployment("web", {"app": "web"}, 1), {
		"selects": ["Deployment/web"],
		"selected_by": ["PodDisruptionBudget/a", "PodDisruptionBudget/b", "Service/s"],
		"selected_by_kind": {"PodDisruptionBudget": ["PodDisruptionBudget/a", "PodDisruptionBudget/b"], "Service": ["Service/s"]},
	})
	inv := inventory([web])
	inp := {"namespace": "default", "key": "Deployment/web"}
	xref.selectors_matching({"app": "web"}, {"PodDisruptionBudget"}) == {"PodDisruptionBudget/a", "PodDisruptionBudget/b"} with input as inp
		with data.kubectl_workload.inventory as inv
	xref.selectors_selecting({"app": "web"}, {"Service", "Job"}) == {"Service/s"} with input as inp
		with data.kubectl_workload.inventory as inv
	xref.selected_by_count({"app": "web"}, {"PodDisruptionBudget", "Job"}) == 2 with input as inp
		with data.kubectl_workload.inventory as inv
	xref.selected_by_count({"app": "api"}, {"PodDisruptionBudget"}) == 0 with input as inp
		with data.kubectl_workload.inventory as inv
}
