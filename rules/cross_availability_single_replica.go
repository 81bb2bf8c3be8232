package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// availabilitySingleReplicaRule is availability/single-replica.
var availabilitySingleReplicaRule = BuiltinRule{
	Meta: Rule{
		ID:       "availability/single-replica",
		Title:    "Single replica and no autoscaler",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment", "StatefulSet"},
		File:     "cross_availability_single_replica.go",
		OptIn:    true,
		Measured: "0 of 156 true on 78 inputs: one replica is the chart's default, and operators run one",
		Description: `A Deployment or StatefulSet with one replica is down whenever its pod is:
during every rollout of a StatefulSet, every node drain and eviction, and
every crash until the replacement is ready. Reported when spec.replicas is
1 (written, or left to its default of 1) and no HorizontalPodAutoscaler in
the input scales the object. A replicas of 0 is a deliberate stop and is
not reported.`,
		Remediation: "Run at least two replicas for a workload that must stay available, or let a HorizontalPodAutoscaler with minReplicas 2 or more scale it.",
	},
	Cross: availabilitySingleReplica,
}

// availabilitySingleReplica reports a Deployment or StatefulSet of one
// replica (after defaulting) that no autoscaler of the input scales.
func availabilitySingleReplica(c *CrossContext) []Finding {
	var replicas *int32
	sts := ""
	switch t := c.Self.Object.(type) {
	case *appsv1.Deployment:
		replicas = t.Spec.Replicas
	case *appsv1.StatefulSet:
		replicas, sts = t.Spec.Replicas, ", every rolling update"
	default:
		return nil
	}
	if (replicas != nil && *replicas != 1) || len(c.NS.AutoscalersTargeting(c.Self.Kind, c.Self.Name, c.Self.APIVersion)) > 0 {
		return nil
	}
	return []Finding{{
		Message: fmt.Sprintf("%s %s runs a single replica and no HorizontalPodAutoscaler in the input scales it: it is unavailable whenever its one pod is (evictions, node drains, crashes%s)",
			c.Self.Kind, c.Self.Name, sts),
		Path: "spec.replicas",
	}}
}
