# METADATA
# title: PodDisruptionBudget needs a scale its pods' controllers do not have
# description: |
#   With maxUnavailable, or minAvailable as a percentage, the disruption
#   controller counts the pods it expects from the scale of the selected pods'
#   controllers (getExpectedPodCount and getExpectedScale in
#   pkg/controller/disruption). DaemonSets, Jobs and the Jobs of CronJobs have
#   no scale subresource: the sync fails ("daemonsets.apps does not implement
#   the scale subresource"), the budget's DisruptionAllowed condition says
#   SyncFailed, and disruptionsAllowed stays 0. Pods that no controller owns
#   are left out of the count: a budget that selects only such pods expects 0
#   and allows 0. Either way the Eviction API refuses every eviction of the
#   pods it selects (429), so kubectl drain, cluster autoscalers and node
#   upgrades wait forever on them. An integer minAvailable counts the selected
#   pods themselves and needs no scale. (maxUnavailable 0 and minAvailable 100%
#   are pdb/zero-disruptions.)
# custom:
#   id: pdb/no-scale
#   severity: warning
#   kinds: [PodDisruptionBudget]
#   remediation: Give the budget an integer minAvailable, which counts the selected pods and needs no scale, or select only pods of Deployments, StatefulSets, ReplicaSets or ReplicationControllers.
package kubectl_workload.rules.pdb_no_scale

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

# The Go rule (rules/cross_pdb_no_scale.go) runs disruption.ExpectedPodCount,
# the mirror of the disruption controller's getExpectedPodCount; this is its
# twin for the differential test.

name := lib.display_name

sel := xref.selector_of(input.object)

min_available := object.get(input.object, ["spec", "minAvailable"], null)

max_unavailable := object.get(input.object, ["spec", "maxUnavailable"], null)

# field is the spec field that needs the controllers' scale (maxUnavailable 0
# and minAvailable 100% are pdb/zero-disruptions'; an integer minAvailable
# needs no scale).
field := sprintf("maxUnavailable %v", [max_unavailable]) if {
	max_unavailable != null
	not max_unavailable in {0, "0%"}
} else := sprintf("minAvailable %s", [min_available]) if {
	max_unavailable == null
	is_string(min_available)
	min_available != "100%"
}

path := "spec.maxUnavailable" if max_unavailable != null

path := "spec.minAvailable" if max_unavailable == null

# templates are the selected workloads whose pods the disruption controller
# counts by their controller (a Deployment's ReplicaSets through it).
templates := {key |
	some key in xref.templates_selected_by(sel)
	xref.kind_of(key) in xref.workload_kinds
	not xref.deployment_replicaset(xref.entry(key))
}

no_scale := {key |
	some key in templates
	xref.kind_of(key) in {"DaemonSet", "Job", "CronJob"}
}

bare_pods := {key |
	some key in xref.pods_selected_by(sel)
	not xref.entry(key).owned
}

# scale_error is what the controller's sync fails with: the first pod, in key
# order, whose controller has no scale subresource.
scale_error := "daemonsets.apps does not implement the scale subresource" if {
	xref.kind_of(sort(no_scale)[0]) == "DaemonSet"
} else := "jobs.batch does not implement the scale subresource"

has_or_have := "has" if count(no_scale) == 1 else := "have"

with_related(f, n) := object.union(f, {"related_count": n}) if n > 5 else := f

findings contains f if {
	input.object.kind == "PodDisruptionBudget"
	sel != null
	field
	count(no_scale) > 0
	f := with_related(
		{
			"msg": sprintf(
				"PodDisruptionBudget %s sets %s, which the disruption controller resolves against the scale of the selected pods' controllers, and %s %s none (%s): its sync fails, disruptionsAllowed stays 0, and no pod it selects can ever be evicted",
				[name, field, xref.describe_list(no_scale), has_or_have, scale_error],
			),
			"path": path,
		},
		count(no_scale),
	)
}

findings contains f if {
	input.object.kind == "PodDisruptionBudget"
	sel != null
	field
	count(templates) == 0
	count(bare_pods) > 0
	f := with_related(
		{
			"msg": sprintf(
				"PodDisruptionBudget %s sets %s, and selects only Pods that no controller owns (%s), which the disruption controller leaves out of the pods it expects: it expects 0, allows 0 disruptions, and no pod it selects can ever be evicted",
				[name, field, xref.describe_list(bare_pods)],
			),
			"path": path,
		},
		count(bare_pods),
	)
}
