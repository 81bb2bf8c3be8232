# Helpers shared by the built-in rules. Not a rule: it has no findings.
package kubectl_workload.lib

import rego.v1

# index is the inventory of the input object's namespace: every object of the
# run there, summarized, with label indexes (see rules/inventory.go).
index := data.kubectl_workload.inventory.namespaces[input.namespace]

# selector_matches(sel, labels) is true when the LabelSelector sel
# ({matchLabels, matchExpressions}) selects labels, with metav1 semantics:
# every matchLabels pair and every expression must hold. A null selector
# selects nothing.
selector_matches(sel, labels) if {
	sel != null
	every k, v in object.get(sel, "matchLabels", {}) {
		object.get(labels, k, null) == v
	}
	every e in object.get(sel, "matchExpressions", []) {
		expression_matches(e, object.get(labels, e.key, null))
	}
}

expression_matches(e, value) if {
	e.operator == "In"
	value != null
	value in e.values
}

expression_matches(e, value) if {
	e.operator == "NotIn"
	not value in e.values
}

expression_matches(e, value) if {
	e.operator == "Exists"
	value != null
}

expression_matches(e, value) if {
	e.operator == "DoesNotExist"
	value == null
}

# selector_is_empty(sel) is true for a selector that selects everything.
selector_is_empty(sel) if {
	count(object.get(sel, "matchLabels", {})) == 0
	count(object.get(sel, "matchExpressions", [])) == 0
}

# templates_selected_by(sel) is the set of inventory keys (Kind/name) of
# objects in the input's namespace whose pod template labels sel selects.
# Candidates come from the label index, so the cost follows the matches, not
# the size of the run.
templates_selected_by(sel) := {key |
	some key in template_candidates(sel)
	e := index.objects[key]
	e.templateLabels != null
	selector_matches(sel, e.templateLabels)
}

template_candidates(sel) := object.get(index.by_template_label, pair, []) if {
	labels := object.get(sel, "matchLabels", {})
	count(labels) > 0
	k := min(object.keys(labels))
	pair := sprintf("%s=%s", [k, labels[k]])
}

template_candidates(sel) := [key | some key, e in index.objects; e.templateLabels != null] if {
	count(object.get(sel, "matchLabels", {})) == 0
}

# selectors_matching(labels) is the set of inventory keys of objects in the
# input's namespace whose selector selects labels (controllers, Services,
# PodDisruptionBudgets, ...).
selectors_matching(labels) := {key |
	some key in selector_candidates(labels)
	e := index.objects[key]
	selector_matches(e.selector, labels)
}

selector_candidates(labels) := {key |
	some k, v in labels
	some key in object.get(index.by_selector_label, sprintf("%s=%s", [k, v]), [])
} | {key | some key in object.get(index, "selectors_without_labels", [])}

# has_kind(kind) is true when the run holds an object of that kind in the
# input's namespace: rules about related objects stay silent without them.
has_kind(kind) if object.get(index.count, kind, 0) > 0

# path_or_parent(obj, path) returns path (segments) when obj has that field,
# else the longest existing prefix, rendered in field-path notation, so
# findings point at a field that exists.
path_or_parent(obj, path) := concat(".", path) if {
	walk_has(obj, path)
} else := concat(".", array.slice(path, 0, count(path) - 1)) if {
	walk_has(obj, array.slice(path, 0, count(path) - 1))
} else := concat(".", array.slice(path, 0, count(path) - 2)) if {
	count(path) > 2
	walk_has(obj, array.slice(path, 0, count(path) - 2))
} else := ""

walk_has(obj, path) if {
	count(path) == 0
}

walk_has(obj, path) if {
	count(path) > 0
	object.get(obj, path, null) != null
}

# display_name is the input object's name for messages: metadata.name, or for
# an object whose name the API server generates at creation
# (metadata.generateName: a Job run with kubectl create) the prefix and "*",
# as lint names such an object; "" when it has neither.
display_name := n if {
	n := object.get(input.object, ["metadata", "name"], "")
	n != ""
} else := sprintf("%s*", [g]) if {
	g := object.get(input.object, ["metadata", "generateName"], "")
	g != ""
} else := ""
