package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// rolloutDowntimeRule is rollout/downtime.
var rolloutDowntimeRule = BuiltinRule{
	Meta: Rule{
		ID:       "rollout/downtime",
		Title:    "Deployment rollout takes every pod down",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment"},
		File:     "cross_rollout_downtime.go",
		Measured: "11 of 11 true on 9 inputs",
		Description: `With the RollingUpdate strategy, the Deployment controller resolves maxSurge
(rounded up) and maxUnavailable (rounded down) against spec.replicas, with
deploymentutil.ResolveFenceposts. When both resolve to 0 it forces one
unavailable pod, because a surge might not be possible under quota. When the
resolved maxSurge is 0 and the resolved maxUnavailable reaches spec.replicas,
a rollout may stop every old pod before any new one is ready: downtime. With
a surge, the resolved maxUnavailable reaching spec.replicas does the same:
the controller scales the new ReplicaSet up, then may scale every old pod
down (replicas - maxUnavailable = 0 must stay available) before a new pod is
ready, as predict shows (1 replica at 25%/1: minimum 0 available). Also
reported: percentages that resolve to 0/0, where upstream quietly allows one
unavailable pod although the manifest seems to allow none. A Deployment
that leaves spec.replicas unset and is scaled by a HorizontalPodAutoscaler
of the input (as hpa/replicas-set advises) is checked at the smallest count
the autoscaler allows, its minReplicas (1 when unset): the count during a
rollout is the autoscaler's, not the default of 1.`,
		Remediation: "Allow a surge (maxSurge of 1 or 25%) so that new pods start before old ones stop, or raise replicas above maxUnavailable.",
	},
	Cross: rolloutDowntime,
}

// rolloutDowntime reports a RollingUpdate Deployment whose rollout may stop
// every old pod before a new one is ready, or whose fenceposts both resolve
// to 0 (the controller then forces one unavailable pod). The arithmetic is
// the controller's: deploymentutil.ResolveFenceposts, and
// intstr.GetScaledValueFromIntOrPercent for maxUnavailable before
// ResolveFenceposts turns 0/0 into 0/1.
//
// Example: replicas 3, maxSurge 0, maxUnavailable 100%: surge 0, unavailable
// 3 >= 3, every pod may go at once. Replicas 3, maxSurge 10%, maxUnavailable
// 10%: surge ceil(0.3) = 1, no finding. Replicas 3, maxSurge 0,
// maxUnavailable 10%: floor(0.3) = 0, forced to 1: a pod goes although the
// manifest seems to allow none.
func rolloutDowntime(c *CrossContext) []Finding {
	d, ok := c.Self.Object.(*appsv1.Deployment)
	if !ok || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		return nil
	}
	written, _ := c.Self.Written.(*appsv1.Deployment)
	// With spec.replicas left to autoscalers, the count is theirs: the
	// smallest minReplicas (1 when unset).
	replicas, source := workloadReplicas(c, d.Spec.Replicas, written != nil && written.Spec.Replicas == nil)
	maxSurge, maxUnavailable := intstr.FromString("25%"), intstr.FromString("25%")
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		if ru.MaxSurge != nil {
			maxSurge = *ru.MaxSurge
		}
		if ru.MaxUnavailable != nil {
			maxUnavailable = *ru.MaxUnavailable
		}
	}
	surge, unavailable, err := deploymentutil.ResolveFenceposts(&maxSurge, &maxUnavailable, replicas)
	if err != nil {
		return nil // an invalid percentage: the API tier reports it
	}
	rawUnavailable, err := intstr.GetScaledValueFromIntOrPercent(&maxUnavailable, int(replicas), false)
	if err != nil {
		return nil
	}
	var out []Finding
	if replicas > 0 && surge == 0 && unavailable >= replicas {
		forced := ""
		if rawUnavailable == 0 {
			forced = " (both resolved to 0, so the controller forces 1)"
		}
		out = append(out, Finding{
			Message: fmt.Sprintf("a rollout can take all %d pods down at once: maxSurge %s resolves to 0 (rounded up) and maxUnavailable %s resolves to %d%s, which is at least replicas %d%s",
				replicas, maxSurge.String(), maxUnavailable.String(), unavailable, forced, replicas, source),
			Path: rollingUpdatePath(written, "maxSurge"),
		})
	}
	// With a surge the controller scales the new ReplicaSet up first, but
	// reconcileOldReplicaSets may then scale the old pods down to
	// replicas - maxUnavailable = 0 before a new pod is available
	// (maxScaledDown = allPods - minAvailable - newRSUnavailable). Example:
	// replicas 1, maxSurge 25%, maxUnavailable 1 (podinfo's chart): new 0→1,
	// then old 1→0, and no pod is available until the new one is; predict
	// shows the same minimum of 0.
	if replicas > 0 && surge > 0 && unavailable >= replicas {
		out = append(out, Finding{
			Message: fmt.Sprintf("a rollout can leave no pod available: maxUnavailable %s resolves to %d, which is at least replicas %d%s, so the controller may scale every old pod down before a new one is available (maxSurge %s resolves to %d: it adds new pods, it does not keep old ones)",
				maxUnavailable.String(), unavailable, replicas, source, maxSurge.String(), surge),
			Path: rollingUpdatePath(written, "maxUnavailable"),
		})
	}
	if replicas > 1 && surge == 0 && unavailable == 1 && rawUnavailable == 0 {
		out = append(out, Finding{
			Message: fmt.Sprintf("maxSurge %s and maxUnavailable %s both resolve to 0 for %d replicas%s (surge rounds up, unavailable rounds down), so the controller forces maxUnavailable to 1: a rollout takes a pod down although the manifest seems to allow none",
				maxSurge.String(), maxUnavailable.String(), replicas, source),
			Path: rollingUpdatePath(written, "maxUnavailable"),
		})
	}
	return out
}

// rollingUpdatePath is spec.strategy.rollingUpdate.<field> when the
// manifest writes it, else its nearest written ancestor down to
// spec.strategy, else "" (lib.path_or_parent).
func rollingUpdatePath(written *appsv1.Deployment, field string) string {
	if written == nil {
		return ""
	}
	s := written.Spec.Strategy
	if ru := s.RollingUpdate; ru != nil {
		if (field == "maxSurge" && ru.MaxSurge != nil) || (field == "maxUnavailable" && ru.MaxUnavailable != nil) {
			return "spec.strategy.rollingUpdate." + field
		}
		return "spec.strategy.rollingUpdate"
	}
	if s.Type != "" {
		return "spec.strategy"
	}
	return ""
}
