# METADATA
# title: PodDisruptionBudget allows no disruption
# description: |
#   The disruption controller allows status.disruptionsAllowed = healthy pods −
#   desired healthy pods, and the eviction API refuses every eviction while it
#   is 0. With maxUnavailable 0 (or 0%), or minAvailable 100%, it is always 0.
#   With an integer minAvailable the desired count is minAvailable itself,
#   against the pods the selector matches; with a percentage, minAvailable is
#   rounded up against the replicas of the pods' controllers
#   (GetScaledValueFromIntOrPercent with roundUp). So minAvailable at or above
#   the selected workloads' replicas (spec.replicas after defaulting, 1 when
#   unset, plus any bare Pod selected) allows no disruption either. kubectl
#   drain, cluster autoscalers and node upgrades then wait forever on those
#   pods. A workload that a HorizontalPodAutoscaler of the input scales is
#   counted at the autoscaler's minReplicas (1 when unset), the fewest pods it
#   runs: a minAvailable at or above that allows no disruption while the load
#   keeps it there. DaemonSets, Jobs and CronJobs, whose pod count the input
#   does not give, are only checked against the forms that allow nothing
#   whatever the count.
# custom:
#   id: pdb/zero-disruptions
#   severity: warning
#   kinds: [PodDisruptionBudget]
#   remediation: Allow at least one eviction, with maxUnavailable set to 1 (or a percentage above 0) or with minAvailable below the number of replicas.
package kubectl_workload.rules.pdb_zero_disruptions

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

name := lib.display_name

sel := xref.selector_of(input.object)

min_available := object.get(input.object, ["spec", "minAvailable"], null)

max_unavailable := object.get(input.object, ["spec", "maxUnavailable"], null)

# applies: the budget selects pods, and, when the input holds workloads in the
# namespace, some of them (otherwise pdb/no-matching-workload reports it).
applies if {
	input.object.kind == "PodDisruptionBudget"
	sel != null
	not xref.has_workloads
}

applies if {
	input.object.kind == "PodDisruptionBudget"
	sel != null
	xref.selects_workload(sel)
}

findings contains f if {
	applies
	max_unavailable in {0, "0%"}
	f := {
		"msg": sprintf("PodDisruptionBudget %s sets maxUnavailable %v: no pod%s may ever be evicted, so node drains wait forever", [name, max_unavailable, of_selected]),
		"path": "spec.maxUnavailable",
	}
}

findings contains f if {
	applies
	min_available == "100%"
	f := {
		"msg": sprintf("PodDisruptionBudget %s sets minAvailable 100%%: no pod%s may ever be evicted, so node drains wait forever", [name, of_selected]),
		"path": "spec.minAvailable",
	}
}

# The checks against the replica count go from cheap to dear: the replicas of
# the selected templates first, and only when they already allow no
# disruption, the autoscalers (which make the count vary) and the bare Pods
# (which add to it).
findings contains f if {
	applies
	is_number(min_available)
	template_replicas > 0
	min_available >= template_replicas
	not autoscaled
	min_available >= total
	f := {
		"msg": sprintf(
			"PodDisruptionBudget %s sets minAvailable %d, and the pods it selects number %d (%s): 0 disruptions are allowed, so node drains wait forever",
			[name, min_available, total, counted_list],
		),
		"path": "spec.minAvailable",
	}
}

findings contains f if {
	applies
	is_string(min_available)
	min_available != "100%"
	endswith(min_available, "%")
	pct := to_number(trim_suffix(min_available, "%"))
	template_replicas > 0
	ceil((pct * template_replicas) / 100) >= template_replicas
	not autoscaled
	desired := ceil((pct * total) / 100)
	desired >= total
	f := {
		"msg": sprintf(
			"PodDisruptionBudget %s sets minAvailable %s, which rounds up to %d of the %d pods it selects (%s): 0 disruptions are allowed, so node drains wait forever",
			[name, min_available, desired, total, counted_list],
		),
		"path": "spec.minAvailable",
	}
}

# At the autoscalers' floor: the selected workloads that autoscalers of the
# input scale, each at the smallest minReplicas, as availability/no-pdb counts
# them.
findings contains f if {
	applies
	is_number(min_available)
	template_replicas > 0
	autoscaled
	floor_replicas > 0
	count(autoscaler_keys) > 0
	min_available >= floor_replicas
	floor_total := floor_replicas + bare_count
	min_available >= floor_total
	f := {
		"msg": sprintf(
			"PodDisruptionBudget %s sets minAvailable %d, and %s %s the pods it selects down to %d at minReplicas: 0 disruptions are allowed then, so node drains wait until the load scales them up",
			[name, min_available, xref.describe_list(autoscaler_keys), scale_verb, floor_total],
		),
		"path": "spec.minAvailable",
	}
}

findings contains f if {
	applies
	is_string(min_available)
	min_available != "100%"
	endswith(min_available, "%")
	pct := to_number(trim_suffix(min_available, "%"))
	template_replicas > 0
	autoscaled
	floor_replicas > 0
	count(autoscaler_keys) > 0
	ceil((pct * floor_replicas) / 100) >= floor_replicas
	floor_total := floor_replicas + bare_count
	desired := ceil((pct * floor_total) / 100)
	desired >= floor_total
	f := {
		"msg": sprintf(
			"PodDisruptionBudget %s sets minAvailable %s, and %s %s the pods it selects down to %d at minReplicas, of which it rounds up to %d: 0 disruptions are allowed then, so node drains wait until the load scales them up",
			[name, min_available, xref.describe_list(autoscaler_keys), scale_verb, floor_total, desired],
		),
		"path": "spec.minAvailable",
	}
}

scale_verb := "scales" if count(autoscaler_keys) == 1 else := "scale"

# go_facts is what this file computes below about the selected pods, as the
# inventory computed it once per distinct selector (rules/bounded.go,
# "pdb_pods"), for the budget's own selector; the definitions below are the
# fallback, and the reference the Go code mirrors.
go_facts := f if {
	f := xref.entry(input.key).pdb_pods
	xref.own_selects(sel)
}

of_selected := go_of_selected if go_facts

of_selected := local_of_selected if not go_facts

go_of_selected := sprintf(" of %s", [concat(", ", [xref.describe(k) | some k in s.first])]) if {
	s := go_facts.selected
	s.count > 0
	s.count <= 5
} else := sprintf(" of %s and %d more", [concat(", ", [xref.describe(k) | some k in s.first]), s.count - 5]) if {
	s := go_facts.selected
	s.count > 5
} else := ""

local_of_selected := sprintf(" of %s", [xref.describe_list(selected)]) if {
	selected := xref.workloads_selected_by(sel)
	count(selected) > 0
} else := ""

# templates are the selected workloads with a pod template.
templates := {key |
	some key in xref.templates_selected_by(sel)
	xref.kind_of(key) in xref.workload_kinds
}

# replicas: the pod count of each selected template, defined only when every
# one is known. A Deployment's ReplicaSets count through the Deployment.
replicas := {key: n |
	some key in templates
	n := template_pods(xref.entry(key))
} if {
	count(templates) > 0
	every key in templates {
		known(xref.entry(key))
	}
}

known(e) if {
	e.kind in {"Deployment", "StatefulSet", "ReplicationController", "ReplicaSet"}
	is_number(e.spec.replicas)
}

template_pods(e) := 0 if {
	xref.deployment_replicaset(e)
} else := e.spec.replicas

template_replicas := go_facts.template_replicas if go_facts

template_replicas := sum([n | some n in replicas]) if not go_facts

autoscaled if go_facts.autoscaled

autoscaled if {
	not go_facts
	some key in templates
	e := xref.entry(key)
	count(xref.autoscalers_targeting(e.kind, e.name, e.apiVersion)) > 0
}

# template_autoscalers: for each selected template with pods, the
# autoscalers that scale it; floor_replicas counts each such template at their
# smallest minReplicas (1 when unset, the API server's default).
template_autoscalers := {key: hpas |
	some key, n in replicas
	n > 0
	e := xref.entry(key)
	hpas := xref.autoscalers_targeting(e.kind, e.name, e.apiVersion)
	count(hpas) > 0
}

floor_replicas := go_facts.floor_replicas if go_facts

floor_replicas := sum([floor_pods(key, n) | some key, n in replicas]) if not go_facts

floor_pods(key, _) := min({object.get(xref.entry(k), ["spec", "minReplicas"], 1) | some k in template_autoscalers[key]}) if {
	template_autoscalers[key]
} else := n if {
	some k, n in replicas
	k == key
}

autoscaler_keys := go_facts.autoscalers if go_facts

autoscaler_keys := {k | some _, hpas in template_autoscalers; some k in hpas} if not go_facts

bare_count := go_facts.bare if go_facts

bare_count := count(bare_pods) if not go_facts

# bare_pods are the selected Pods that no controller owns (a controller's own
# Pods count through it).
bare_pods := {key |
	some key in xref.pods_selected_by(sel)
	not xref.entry(key).owned
}

total := template_replicas + go_facts.bare if go_facts

total := template_replicas + count(bare_pods) if not go_facts

counted_list := go_facts.counted if go_facts

counted_list := concat(", ", array.concat(
	sort([sprintf("%s with %s", [xref.describe(key), xref.quantity(n, "replica")]) | some key, n in replicas; n > 0]),
	sort([xref.describe(key) | some key in bare_pods]),
)) if not go_facts
