# METADATA
# title: Deployment rollout takes every pod down
# description: |
#   With the RollingUpdate strategy, the Deployment controller resolves maxSurge
#   (rounded up) and maxUnavailable (rounded down) against spec.replicas, with
#   deploymentutil.ResolveFenceposts. When both resolve to 0 it forces one
#   unavailable pod, because a surge might not be possible under quota. When the
#   resolved maxSurge is 0 and the resolved maxUnavailable reaches spec.replicas,
#   a rollout may stop every old pod before any new one is ready: downtime. Also
#   reported: percentages that resolve to 0/0, where upstream quietly allows one
#   unavailable pod although the manifest seems to allow none.
# custom:
#   id: rollout/downtime
#   severity: warning
#   remediation: Allow a surge (maxSurge of 1 or 25%) so that new pods start before old ones stop, or raise replicas above maxUnavailable.
package kubectl_workload.rules.rollout_downtime

import data.kubectl_workload.lib
import rego.v1

deployment := input.facts.deployment

findings contains f if {
	input.object.kind == "Deployment"
	deployment.strategy == "RollingUpdate"
	deployment.replicas > 0
	deployment.maxSurge == 0
	deployment.maxUnavailable >= deployment.replicas
	f := {
		"msg": sprintf(
			"a rollout can take all %d pods down at once: maxSurge %s resolves to 0 (rounded up) and maxUnavailable %s resolves to %d%s, which is at least replicas %d",
			[deployment.replicas, deployment.maxSurgeInput, deployment.maxUnavailableInput, deployment.maxUnavailable, forced, deployment.replicas],
		),
		"path": lib.path_or_parent(input.object, ["spec", "strategy", "rollingUpdate", "maxSurge"]),
	}
}

findings contains f if {
	input.object.kind == "Deployment"
	deployment.strategy == "RollingUpdate"
	deployment.replicas > 1
	deployment.maxSurge == 0
	deployment.maxUnavailable == 1
	zero_zero
	f := {
		"msg": sprintf(
			"maxSurge %s and maxUnavailable %s both resolve to 0 for %d replicas (surge rounds up, unavailable rounds down), so the controller forces maxUnavailable to 1: a rollout takes a pod down although the manifest seems to allow none",
			[deployment.maxSurgeInput, deployment.maxUnavailableInput, deployment.replicas],
		),
		"path": lib.path_or_parent(input.object, ["spec", "strategy", "rollingUpdate", "maxUnavailable"]),
	}
}

# zero_zero: maxUnavailable rounded down to 0 before ResolveFenceposts forced it to 1.
zero_zero if {
	endswith(deployment.maxUnavailableInput, "%")
	pct := to_number(trim_suffix(deployment.maxUnavailableInput, "%"))
	floor((pct * deployment.replicas) / 100) == 0
}

zero_zero if deployment.maxUnavailableInput == "0"

forced := " (both resolved to 0, so the controller forces 1)" if {
	zero_zero
} else := ""
