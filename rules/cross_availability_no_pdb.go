package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// availabilityNoPdbRule is availability/no-pdb.
var availabilityNoPdbRule = BuiltinRule{
	Meta: Rule{
		ID:       "availability/no-pdb",
		Title:    "Several replicas and no PodDisruptionBudget",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment", "StatefulSet"},
		File:     "cross_availability_no_pdb.go",
		OptIn:    true,
		Measured: "0 of 15 true on 10 inputs",
		Description: `Without a PodDisruptionBudget, a node drain (a cluster upgrade, an
autoscaler removing a node) evicts every pod of the node at once: when
several replicas share the node, they all go down together, however many
there are. A budget lets the eviction API keep enough of them running.
Reported for Deployments and StatefulSets with two or more replicas whose
pods no PodDisruptionBudget in the input selects. A workload that leaves
spec.replicas to a HorizontalPodAutoscaler of the input is counted at the
smallest count the autoscaler allows, its minReplicas (1 when unset), not
at the default of 1.`,
		Remediation: "Add a PodDisruptionBudget selecting the workload's pods, with maxUnavailable 1 (or a minAvailable below replicas) and unhealthyPodEvictionPolicy AlwaysAllow.",
	},
	Cross: availabilityNoPdb,
}

// availabilityNoPdb reports a Deployment or StatefulSet of two replicas or
// more (after defaulting) whose pods no budget of the input selects.
func availabilityNoPdb(c *CrossContext) []Finding {
	var replicas *int32
	var written map[string]string
	writtenReplicasUnset := false
	switch t := c.Self.Object.(type) {
	case *appsv1.Deployment:
		replicas = t.Spec.Replicas
		if w, ok := c.Self.Written.(*appsv1.Deployment); ok {
			written, writtenReplicasUnset = w.Spec.Template.Labels, w.Spec.Replicas == nil
		}
	case *appsv1.StatefulSet:
		replicas = t.Spec.Replicas
		if w, ok := c.Self.Written.(*appsv1.StatefulSet); ok {
			written, writtenReplicasUnset = w.Spec.Template.Labels, w.Spec.Replicas == nil
		}
	default:
		return nil
	}
	n, source := workloadReplicas(c, replicas, writtenReplicasUnset)
	if n < 2 || len(written) == 0 || len(c.NS.SelectorsMatching(written, "PodDisruptionBudget")) > 0 {
		return nil
	}
	return []Finding{{
		Message: fmt.Sprintf("%s %s runs %d replicas%s and no PodDisruptionBudget in the input selects its pods: a node drain may evict all of them at once",
			c.Self.Kind, c.Self.Name, n, source),
		Path: "spec.replicas",
	}}
}
