# METADATA
# title: Deployment rollout takes every pod down
# description: |
#   With the RollingUpdate strategy, the Deployment controller resolves maxSurge
#   (rounded up) and maxUnavailable (rounded down) against spec.replicas, with
#   deploymentutil.ResolveFenceposts. When both resolve to 0 it forces one
#   unavailable pod, because a surge might not be possible under quota. When the
#   resolved maxSurge is 0 and the resolved maxUnavailable reaches spec.replicas,
#   a rollout may stop every old pod before any new one is ready: downtime. With
#   a surge, the resolved maxUnavailable reaching spec.replicas does the same:
#   the controller scales the new ReplicaSet up, then may scale every old pod
#   down (replicas - maxUnavailable = 0 must stay available) before a new pod is
#   ready, as predict shows (1 replica at 25%/1: minimum 0 available). Also
#   reported: percentages that resolve to 0/0, where upstream quietly allows one
#   unavailable pod although the manifest seems to allow none. A Deployment
#   that leaves spec.replicas unset and is scaled by a HorizontalPodAutoscaler
#   of the input (as hpa/replicas-set advises) is checked at the smallest count
#   the autoscaler allows, its minReplicas (1 when unset): the count during a
#   rollout is the autoscaler's, not the default of 1.
# custom:
#   id: rollout/downtime
#   severity: warning
#   kinds: [Deployment]
#   remediation: Allow a surge (maxSurge of 1 or 25%) so that new pods start before old ones stop, or raise replicas above maxUnavailable.
package kubectl_workload.rules.rollout_downtime

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

strategy := object.get(input.defaulted, ["spec", "strategy"], {})

rolling := object.get(strategy, "rollingUpdate", {})

max_surge_input := object.get(rolling, "maxSurge", "25%")

max_unavailable_input := object.get(rolling, "maxUnavailable", "25%")

# autoscalers: the HorizontalPodAutoscalers of the input that scale the
# Deployment, when its manifest leaves spec.replicas to them.
autoscalers := xref.autoscalers_targeting("Deployment", input.object.metadata.name, input.object.apiVersion) if {
	object.get(input.object, ["spec", "replicas"], null) == null
	lib.has_kind("HorizontalPodAutoscaler")
} else := set()

# replicas is the count the rollout is checked at: the smallest minReplicas of
# the autoscalers, else spec.replicas after defaulting.
replicas := min({object.get(xref.entry(k).spec, "minReplicas", 1) | some k in autoscalers}) if {
	count(autoscalers) > 0
} else := object.get(input.defaulted, ["spec", "replicas"], 1)

replicas_source := sprintf(" (the minReplicas of %s, which scales it)", [xref.describe_list(autoscalers)]) if {
	count(autoscalers) > 0
} else := ""

# scaled(v, total, round_up) is intstr.GetScaledValueFromIntOrPercent: an
# integer as is, a percentage of total rounded up or down.
scaled(v, _, _) := v if is_number(v)

scaled(v, total, round_up) := n if {
	is_string(v)
	endswith(v, "%")
	pct := to_number(trim_suffix(v, "%"))
	n := rounded((pct * total) / 100, round_up)
}

rounded(x, true) := ceil(x)

rounded(x, false) := floor(x)

# surge and raw_unavailable are deploymentutil.ResolveFenceposts before its
# 0/0 case: surge rounds up, unavailable down. Example: 25%/25% of 3 is 1/0.
surge := scaled(max_surge_input, replicas, true)

raw_unavailable := scaled(max_unavailable_input, replicas, false)

# unavailable is ResolveFenceposts' result: 0/0 becomes 0/1.
unavailable := 1 if {
	surge == 0
	raw_unavailable == 0
} else := raw_unavailable

findings contains f if {
	input.object.kind == "Deployment"
	object.get(strategy, "type", "RollingUpdate") == "RollingUpdate"
	replicas > 0
	surge == 0
	unavailable >= replicas
	f := {
		"msg": sprintf(
			"a rollout can take all %d pods down at once: maxSurge %s resolves to 0 (rounded up) and maxUnavailable %s resolves to %d%s, which is at least replicas %d%s",
			[replicas, format(max_surge_input), format(max_unavailable_input), unavailable, forced, replicas, replicas_source],
		),
		"path": lib.path_or_parent(input.object, ["spec", "strategy", "rollingUpdate", "maxSurge"]),
	}
}

findings contains f if {
	input.object.kind == "Deployment"
	object.get(strategy, "type", "RollingUpdate") == "RollingUpdate"
	replicas > 0
	surge > 0
	unavailable >= replicas
	f := {
		"msg": sprintf(
			"a rollout can leave no pod available: maxUnavailable %s resolves to %d, which is at least replicas %d%s, so the controller may scale every old pod down before a new one is available (maxSurge %s resolves to %d: it adds new pods, it does not keep old ones)",
			[format(max_unavailable_input), unavailable, replicas, replicas_source, format(max_surge_input), surge],
		),
		"path": lib.path_or_parent(input.object, ["spec", "strategy", "rollingUpdate", "maxUnavailable"]),
	}
}

findings contains f if {
	input.object.kind == "Deployment"
	object.get(strategy, "type", "RollingUpdate") == "RollingUpdate"
	replicas > 1
	surge == 0
	unavailable == 1
	raw_unavailable == 0
	f := {
		"msg": sprintf(
			"maxSurge %s and maxUnavailable %s both resolve to 0 for %d replicas%s (surge rounds up, unavailable rounds down), so the controller forces maxUnavailable to 1: a rollout takes a pod down although the manifest seems to allow none",
			[format(max_surge_input), format(max_unavailable_input), replicas, replicas_source],
		),
		"path": lib.path_or_parent(input.object, ["spec", "strategy", "rollingUpdate", "maxUnavailable"]),
	}
}

forced := " (both resolved to 0, so the controller forces 1)" if {
	raw_unavailable == 0
} else := ""

format(v) := sprintf("%v", [v])
