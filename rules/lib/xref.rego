# Helpers shared by the cross-resource rules (selectors, Services,
# PodDisruptionBudgets, HorizontalPodAutoscalers). Not a rule: it has no
# findings.
#
# Cost. Every rule runs once per object, and a run has up to 10,000 of them,
# so a helper must not walk a namespace's objects in Rego: iterating the
# inventory costs microseconds per object, and 10,000 queries times 2,000
# objects is minutes. Related objects are found through the label indexes,
# choosing the shortest candidate list, and through Kind/name keys. The
package kubectl_workload.lib.xref

import data.kubectl_workload.lib
import rego.v1

# workload_kinds run pods: a Service or PodDisruptionBudget that selects none
# of their pods selects nothing. PodTemplate is not one: it runs nothing.
workload_kinds := {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicationController", "Pod"}

# workload_count is how many workloads the run holds in the input's namespace.
# The inventory counts them (workloads) when it indexes the run.
workload_count := lib.index.workloads

# has_workloads is true when the run holds a workload in the input's
# namespace: rules that look for the workload an object points at stay silent
# without one.
has_workloads if workload_count > 0

# entry(key) is the inventory summary of Kind/name in the input's namespace.
entry(key) := lib.index.objects[key]

# kind_of(key) is the kind part of an inventory key (Kind/name), read from the
# key alone.
kind_of(key) := split(key, "/")[0]

# name_of(key) is the name part of an inventory key.
name_of(key) := substring(key, count(kind_of(key)) + 1, -1)

# keys_of_kind(kind) are the inventory keys of the objects of that kind in the
# input's namespace, from the inventory's index by kind.
keys_of_kind(kind) := object.get(lib.index, ["by_kind", kind], [])

# labels_of(e) is an inventory entry's metadata labels, {} when it has none.
labels_of(e) := e.labels if {
	is_object(e.labels)
} else := {}

# template_labels_of(e) is an inventory entry's pod template labels, {} when
# it has none.
template_labels_of(e) := e.templateLabels if {
	is_object(e.templateLabels)
} else := {}

# pod_labels(e) is the labels a workload's pods get: its pod template labels,
# or a Pod's own labels.
pod_labels(e) := labels_of(e) if {
	e.kind == "Pod"
} else := template_labels_of(e)

# selector_of(obj) is the LabelSelector of an object as written, or null.
selector_of(obj) := object.get(obj, ["spec", "selector"], null)

# pair(k, v) is the label index key of a label.
pair(k, v) := sprintf("%s=%s", [k, v])

# own_selects(sel) is, when sel is the input object's own selector, the keys
# of the pod templates and Pods it selects, as the inventory computed them
# in Go (rules/relations.go); undefined otherwise, and for a selector the
# inventory has no answer for (the helpers below then search the label
# indexes).
own_selects(sel) := e.selects if {
	e := entry(input.key)
	is_array(e.selects)
	e.selector == sel
}

# own_selected_by(labels) is, when labels are the input object's own pod
# labels (its pod template's, or a Pod's), the keys of the objects whose
# selector selects them, as the inventory computed them; undefined
# otherwise.
own_selected_by(labels) := e.selected_by if {
	e := entry(input.key)
	is_array(e.selected_by)
	pod_labels(e) == labels
}

# own_selected_by_kinds(labels, kinds) is own_selected_by's keys of the given
# kinds, read from the inventory's lists by kind (selected_by_kind) so that
# only those kinds' lists are walked; undefined like own_selected_by.
own_selected_by_kinds(labels, kinds) := {key | some kind in kinds; some key in object.get(e.selected_by_kind, kind, [])} if {
	e := entry(input.key)
	is_object(e.selected_by_kind)
	pod_labels(e) == labels
} else := {key | some key in keys; kind_of(key) in kinds} if {
	keys := own_selected_by(labels)
}

# selected_by_count(labels, kinds) is count(selectors_matching(labels,
# kinds)), from the lengths of the inventory's lists when labels are the
# input object's own pod labels.
selected_by_count(labels, kinds) := sum([count(object.get(e.selected_by_kind, kind, [])) | some kind in kinds]) if {
	e := entry(input.key)
	is_object(e.selected_by_kind)
	pod_labels(e) == labels
} else := count(selectors_matching(labels, kinds))

# templates_selected_by(sel) is the set of keys of the objects in the input's
# namespace whose pod template labels sel selects: the inventory's answer
# for the input's own selector, else like lib's, but the candidates are the
# shortest of the index lists of sel's matchLabels (every match is on all of
# them), so that a label most templates share (tier=web,
# app.kubernetes.io/instance) costs nothing extra. Without matchLabels it is
# lib's (a scan of the templates).
templates_selected_by(sel) := {key | some key in keys; kind_of(key) != "Pod"} if {
	keys := own_selects(sel)
} else := {key |
	some key in shortest_template_list(object.get(sel, "matchLabels", {}))
	lib.selector_matches(sel, template_labels_of(entry(key)))
} if {
	count(object.get(sel, "matchLabels", {})) > 0
} else := lib.templates_selected_by(sel)

shortest_template_list(match_labels) := lists[i] if {
	lists := [l | some k, v in match_labels; l := object.get(lib.index.by_template_label, pair(k, v), [])]
	sizes := [count(l) | some l in lists]
	i := [j | some j, n in sizes; n == min(sizes)][0]
}

# crowded_label is the length from which a label's list of selectors is
# passed over by selectors_selecting: see there.
crowded_label := 100

# selectors_selecting(labels, kinds) is the set of keys of the objects of the
# given kinds in the input's namespace whose selector selects labels.
# Candidates are the selectors indexed under one of the labels: the
# inventory indexes each selector under its rarest matchLabels pair, so a
# selector that selects labels is in the list of one of them. They are
# filtered by kind on the key before any is read. A list longer than
# crowded_label (more than that many selectors whose rarest pair is the same:
# a crowd of alike selectors) is passed over, so those selectors are missed
# here. Callers use it where that selector's own object reports the match
# anyway (selector/overlap); selectors_matching is the complete form.
selectors_selecting(labels, kinds) := keys if {
	keys := own_selected_by_kinds(labels, kinds)
} else := {key |
	some k, v in labels
	candidates := object.get(lib.index.by_selector_label, pair(k, v), [])
	count(candidates) <= crowded_label
	some key in candidates
	kind_of(key) in kinds
	lib.selector_matches(entry(key).selector, labels)
} | selectors_without_labels_selecting(labels, kinds)

# selectors_matching(labels, kinds) is the complete form of
# selectors_selecting: every indexed selector of the given kinds that selects
# labels, whatever the length of the lists.
selectors_matching(labels, kinds) := keys if {
	keys := own_selected_by_kinds(labels, kinds)
} else := {key |
	some k, v in labels
	some key in object.get(lib.index.by_selector_label, pair(k, v), [])
	kind_of(key) in kinds
	lib.selector_matches(entry(key).selector, labels)
} | selectors_without_labels_selecting(labels, kinds)

selectors_without_labels_selecting(labels, kinds) := {key |
	some key in object.get(lib.index, "selectors_without_labels", [])
	kind_of(key) in kinds
	lib.selector_matches(entry(key).selector, labels)
}

# pods_selected_by(sel) is the set of keys of the Pods in the input's
# namespace whose labels sel selects. Pods have no label index: only the
# Pods are read, found by keys_of_kind.
pods_selected_by(sel) := {key | some key in keys; kind_of(key) == "Pod"} if {
	keys := own_selects(sel)
} else := {key |
	some key in keys_of_kind("Pod")
	lib.selector_matches(sel, labels_of(entry(key)))
}

# selects_workload(sel) is true when sel selects the pods of a workload in
# the input's namespace (a pod template or a bare Pod). It stops at the first
# match, so it costs less than counting workloads_selected_by.
selects_workload(sel) if {
	some key in own_selects(sel)
	kind_of(key) in workload_kinds
}

selects_workload(sel) if {
	not own_selects(sel)
	count(object.get(sel, "matchLabels", {})) > 0
	some key in shortest_template_list(sel.matchLabels)
	kind_of(key) in workload_kinds
	lib.selector_matches(sel, template_labels_of(entry(key)))
}

selects_workload(sel) if {
	not own_selects(sel)
	count(object.get(sel, "matchLabels", {})) == 0
	some key in lib.templates_selected_by(sel)
	kind_of(key) in workload_kinds
}

selects_workload(sel) if {
	not own_selects(sel)
	some key in keys_of_kind("Pod")
	lib.selector_matches(sel, labels_of(entry(key)))
}

# workloads_selected_by(sel) is the set of keys of the workloads whose pods
# sel selects: pod templates from the label index, else bare Pods. Use it to
# learn whether sel selects anything; all_workloads_selected_by lists them
# all.
workloads_selected_by(sel) := ws if {
	ws := {key | some key in templates_selected_by(sel); kind_of(key) in workload_kinds}
	count(ws) > 0
} else := pods_selected_by(sel)

# all_workloads_selected_by(sel) is every workload and Pod whose pods sel
# selects.
all_workloads_selected_by(sel) := {key |
	some key in templates_selected_by(sel)
	kind_of(key) in workload_kinds
} | pods_selected_by(sel)

# intended_workloads(match_labels, name) are workloads of the input that a
# selector which matches nothing was probably written for: those named like
# the selecting object (a Service or budget is usually named after its
# workload), and near misses, whose pod template carries every key=value pair
# of the selector's matchLabels but one (a typo, or a label added on one side
# only). Empty when the input does not show what the selector was meant for,
# as for a Service in front of pods that a separately installed chart runs,
# even when some workload of the input shares one of its labels (such as
# app.kubernetes.io/part-of).
intended_workloads(match_labels, name) := same_name_workloads(name) | near_misses(match_labels)

# intended(match_labels, name) sums up intended_workloads for a message: the
# first three keys, sorted ("shown"), and how many there are ("count"). For
# the input object's own selector the inventory has counted the near misses
# and kept the first three (rules/relations.go), so that a selector many
# workloads nearly match costs no more than one that few do.
intended(match_labels, name) := {
	"shown": array.slice(sort(same | {k | some k in e.near_misses}), 0, 3),
	"count": e.near_miss_count + count({k | some k in same; not near_miss(k, match_labels)}),
} if {
	e := entry(input.key)
	is_number(e.near_miss_count)
	object.get(e.selector, "matchLabels", {}) == match_labels
	same := same_name_workloads(name)
} else := {"shown": array.slice(sort(keys), 0, 3), "count": count(keys)} if {
	keys := intended_workloads(match_labels, name)
}

# near_miss(key, match_labels) is true for a workload whose pod template
# carries every pair of match_labels (two or more) but one.
near_miss(key, match_labels) if {
	count(match_labels) >= 2
	kind_of(key) in workload_kinds
	kind_of(key) != "Pod"
	labels := template_labels_of(entry(key))
	count([k | some k, v in match_labels; labels[k] == v]) == count(match_labels) - 1
}

same_name_workloads(name) := {key |
	some kind in workload_kinds
	key := concat("/", [kind, name])
	lib.index.objects[key]
}

# A near miss lacks at most one of the pairs, so it carries at least one of
# any two: the two shortest index lists hold every near miss.
near_misses(match_labels) := {key |
	count(match_labels) >= 2
	lists := [l | some k, v in match_labels; l := object.get(lib.index.by_template_label, pair(k, v), [])]
	by_size := sort([[count(l), i] | some i, l in lists])
	some key in array.concat(lists[by_size[0][1]], lists[by_size[1][1]])
	kind_of(key) in workload_kinds
	labels := template_labels_of(entry(key))
	count([k | some k, v in match_labels; labels[k] == v]) == count(match_labels) - 1
}

# deployment_replicaset(e) is true for a ReplicaSet that a Deployment made
# (or owns): it has ownerReferences, or the pod-template-hash label the
# Deployment controller adds to its ReplicaSets' templates and selectors.
deployment_replicaset(e) if {
	e.kind == "ReplicaSet"
	e.owned
}

deployment_replicaset(e) if {
	e.kind == "ReplicaSet"
	"pod-template-hash" in object.keys(template_labels_of(e))
}

# controller_kinds are the kinds of the pod controllers whose selectors users
# write.
controller_kinds := {"Deployment", "StatefulSet", "DaemonSet", "ReplicationController", "ReplicaSet", "Job"}

# controller(e) is true for such a controller's entry: Deployments,
# StatefulSets, DaemonSets, ReplicationControllers, ReplicaSets that no
# Deployment made, and Jobs with manualSelector (the inventory records a Job's
# selector only then; otherwise the API server generates a unique one).
controller(e) if e.kind in {"Deployment", "StatefulSet", "DaemonSet", "ReplicationController"}

controller(e) if {
	e.kind == "ReplicaSet"
	not deployment_replicaset(e)
}

controller(e) if {
	e.kind == "Job"
	e.selector != null
}

# api_group(apiVersion) is the group of "group/version", "" for the core group.
api_group(api_version) := g if {
	parts := split(api_version, "/")
	count(parts) == 2
	g := parts[0]
} else := ""

# targets(e, kind, name, api_version) is true when the autoscaler summarized
# in e points its scaleTargetRef at kind/name in the group of api_version (an
# unset scaleTargetRef.apiVersion is taken to match).
targets(e, kind, name, api_version) if {
	ref := object.get(e, ["spec", "scaleTargetRef"], {})
	ref.kind == kind
	ref.name == name
	same_group(object.get(ref, "apiVersion", ""), api_version)
}

same_group(ref_version, _) if ref_version == ""

same_group(ref_version, api_version) if {
	ref_version != ""
	api_group(ref_version) == api_group(api_version)
}

# autoscalers_targeting(kind, name, api_version) is the set of keys of the
# HorizontalPodAutoscalers in the input's namespace that scale kind/name,
# found through the inventory's index of autoscalers by the Kind/name of
# their scaleTargetRef (by_scale_target).
autoscalers_targeting(kind, name, api_version) := {key |
	some key in object.get(lib.index, ["by_scale_target", concat("/", [kind, name])], [])
	targets(entry(key), kind, name, api_version)
}

# format_selector(sel) renders a LabelSelector as kubectl does,
# "app=web,tier in (a,b),!legacy", sorted, so that messages are stable.
format_selector(sel) := "<none>" if {
	sel == null
} else := "{} (everything)" if {
	lib.selector_is_empty(sel)
} else := concat(",", array.concat(
	sort([pair(k, v) | some k, v in object.get(sel, "matchLabels", {})]),
	sort([format_expression(e) | some e in object.get(sel, "matchExpressions", [])]),
))

format_expression(e) := sprintf("%s in (%s)", [e.key, concat(",", sort(e.values))]) if e.operator == "In"

format_expression(e) := sprintf("%s notin (%s)", [e.key, concat(",", sort(e.values))]) if e.operator == "NotIn"

format_expression(e) := e.key if e.operator == "Exists"

format_expression(e) := sprintf("!%s", [e.key]) if e.operator == "DoesNotExist"

# format_labels(labels) renders a label map as "k=v,k2=v2", sorted.
format_labels(labels) := "<none>" if {
	count(labels) == 0
} else := concat(",", sort([pair(k, v) | some k, v in labels]))

# describe(key) renders an inventory key as "Deployment web".
describe(key) := concat(" ", [kind_of(key), name_of(key)])

# describe_list(keys) renders a set of keys, sorted, naming at most five.
describe_list(keys) := concat(", ", sorted) if {
	sorted := sort([describe(k) | some k in keys])
	count(sorted) <= 5
} else := sprintf("%s and %d more", [concat(", ", array.slice(sort([describe(k) | some k in keys]), 0, 5)), count(keys) - 5])

# describe_intended(summary) renders intended's summary: up to three
# workloads with their pod template labels (a Pod's own labels), sorted by
# key, and how many more there are.
describe_intended(summary) := concat("; ", array.concat(shown, more)) if {
	shown := [sprintf("%s (%s %s)", [describe(k), labels_word(k), format_labels(pod_labels(entry(k)))]) |
		some k in summary.shown
	]
	more := [sprintf("and %d more", [summary.count - 3]) | summary.count > 3]
}

labels_word(key) := "labels" if {
	kind_of(key) == "Pod"
} else := "pod template labels"

# quantity(n, noun) renders "1 replica", "3 replicas": noun is singular, and
# takes an s in the plural.
quantity(n, noun) := sprintf("%d %s", [n, noun]) if {
	n == 1
} else := sprintf("%d %ss", [n, noun])
