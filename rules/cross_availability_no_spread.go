package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// availabilityNoSpreadRule is availability/no-spread.
var availabilityNoSpreadRule = BuiltinRule{
	Meta: Rule{
		ID:       "availability/no-spread",
		Title:    "Several replicas without anti-affinity or topology spread",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment", "StatefulSet"},
		File:     "cross_availability_no_spread.go",
		OptIn:    true,
		Measured: "0 of 19 true on 16 inputs",
		Description: `Nothing in a pod template with several replicas says that its pods must
not share a node or a zone: the scheduler's default spreading is only a
preference (ScheduleAnyway), so after a node failure, a scale-up on a busy
cluster or a drain, every replica may land on the same node, and one node
or zone outage takes them all. Reported for Deployments and StatefulSets
with two or more replicas whose pod template has neither a pod
anti-affinity term nor a topologySpreadConstraint on kubernetes.io/hostname
or topology.kubernetes.io/zone (either one satisfies it) that selects the
workload's own pods: a term whose selector misses them keeps the pods
away from other pods, not from each other. A workload that
leaves spec.replicas to a HorizontalPodAutoscaler of the input is counted
at the autoscaler's smallest minReplicas, as availability/no-pdb counts it.`,
		Remediation: "Add a topologySpreadConstraint on topology.kubernetes.io/zone or kubernetes.io/hostname (or a preferred pod anti-affinity) selecting the workload's own pods.",
	},
	Cross: availabilityNoSpread,
}

// availabilityNoSpread reports a Deployment or StatefulSet of two or more
// replicas whose pod template spreads its pods neither by anti-affinity nor
// by a topology spread constraint on the node or the zone. The replicas are
// counted as availability/no-pdb counts them (workloadReplicas): after
// defaulting, or an autoscaler's smallest minReplicas when the manifest
// leaves spec.replicas to it.
func availabilityNoSpread(c *CrossContext) []Finding {
	if c.Self.Name == "" || c.Self.Spreads {
		return nil
	}
	var replicas *int32
	writtenUnset := false
	switch t := c.Self.Object.(type) {
	case *appsv1.Deployment:
		replicas = t.Spec.Replicas
		if w, ok := c.Self.Written.(*appsv1.Deployment); ok {
			writtenUnset = w.Spec.Replicas == nil
		}
	case *appsv1.StatefulSet:
		replicas = t.Spec.Replicas
		if w, ok := c.Self.Written.(*appsv1.StatefulSet); ok {
			writtenUnset = w.Spec.Replicas == nil
		}
	default:
		return nil
	}
	n, source := workloadReplicas(c, replicas, writtenUnset)
	if n < 2 {
		return nil
	}
	path := "spec.template.spec"
	if c.Self.HasAffinity {
		path += ".affinity"
	}
	return []Finding{{
		Path: path,
		Message: fmt.Sprintf("%s %s runs %d replicas%s, but its pod template has no pod anti-affinity and no topology spread constraint on the node or the zone: all of them may run on one node",
			c.Self.Kind, c.Self.Name, n, source),
	}}
}
