package rules

import (
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// hpaMinReplicasOneRule is hpa/min-replicas-one.
var hpaMinReplicasOneRule = BuiltinRule{
	Meta: Rule{
		ID:       "hpa/min-replicas-one",
		Title:    "HorizontalPodAutoscaler that may scale down to one pod",
		Severity: SeverityInfo,
		Kinds:    []string{"HorizontalPodAutoscaler"},
		File:     "object_hpa_min_replicas_one.go",
		OptIn:    true,
		Measured: "0 of 4 true on 4 inputs",
		Description: `minReplicas defaults to 1. When load is low the autoscaler scales the
target down to a single pod, and then a node drain, an eviction or a crash
of that pod is an outage until a new one is ready; a PodDisruptionBudget
cannot both protect a single pod and let nodes drain. Reported for
HorizontalPodAutoscalers whose minReplicas is unset or 1 (0 needs the
HPAScaleToZero feature and is meant).`,
		Remediation: "Set minReplicas to 2 or more for workloads that must stay available.",
	},
	Check: checkHPAMinReplicasOne,
}

// checkHPAMinReplicasOne reports a HorizontalPodAutoscaler whose minReplicas
// is 1, written or left to SetDefaults_HorizontalPodAutoscaler's default.
func checkHPAMinReplicasOne(c *ObjectContext) []Finding {
	var name, targetKind, targetName string
	switch o := c.Object.(type) {
	case *autoscalingv2.HorizontalPodAutoscaler:
		name, targetKind, targetName = o.Name, o.Spec.ScaleTargetRef.Kind, o.Spec.ScaleTargetRef.Name
	case *autoscalingv1.HorizontalPodAutoscaler:
		name, targetKind, targetName = o.Name, o.Spec.ScaleTargetRef.Kind, o.Spec.ScaleTargetRef.Name
	default:
		return nil
	}
	// minReplicas is defaulted to 1: whether it was written decides the
	// message and the field.
	var writtenMin *int32
	switch w := c.Written().(type) {
	case *autoscalingv2.HorizontalPodAutoscaler:
		writtenMin = w.Spec.MinReplicas
	case *autoscalingv1.HorizontalPodAutoscaler:
		writtenMin = w.Spec.MinReplicas
	}
	minReplicas, written := ptrOr(writtenMin, 1), writtenMin != nil
	if minReplicas != 1 || name == "" {
		return nil
	}
	unset, path := ", the default", "spec"
	if written {
		unset, path = "", "spec.minReplicas"
	}
	return []Finding{{Path: path,
		Message: fmt.Sprintf("HorizontalPodAutoscaler %s may scale %s %s down to a single pod (minReplicas %d%s): an eviction or a crash of that pod is an outage",
			name, targetKind, targetName, minReplicas, unset)}}
}
