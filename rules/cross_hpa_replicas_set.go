package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
)

// hpaReplicasSetRule is hpa/replicas-set.
var hpaReplicasSetRule = BuiltinRule{
	Meta: Rule{
		ID:       "hpa/replicas-set",
		Title:    "Autoscaled workload sets spec.replicas",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"},
		File:     "cross_hpa_replicas_set.go",
		Description: `A HorizontalPodAutoscaler owns the replica count of its scale target: it
writes the target's scale subresource. When the workload's manifest also
sets spec.replicas, every kubectl apply (and every GitOps sync) resets the
count to the manifest's value, and the autoscaler sets it back on its next
sync: the pod count jumps twice, and for a Deployment the change arrives
mid-rollout as a scaling event, which the controller serves first by
resizing every active ReplicaSet proportionally. Reported on the workload
(Deployment, StatefulSet, ReplicaSet or ReplicationController) whose
manifest as written sets spec.replicas, when the input holds an autoscaler
in the same namespace whose scaleTargetRef names it.`,
		Remediation: "Remove spec.replicas from the manifest of a workload that a HorizontalPodAutoscaler scales, and set the range in the autoscaler's minReplicas and maxReplicas.",
	},
	Cross: hpaReplicasSet,
}

// hpaReplicasSet reports a workload whose manifest sets spec.replicas
// while an autoscaler of the input scales it.
func hpaReplicasSet(c *CrossContext) []Finding {
	replicas := writtenReplicas(c.Self)
	if replicas == nil || !c.NS.Has("HorizontalPodAutoscaler") {
		return nil
	}
	hpas := c.NS.AutoscalersTargeting(c.Self.Kind, c.Self.Name, c.Self.APIVersion)
	if len(hpas) == 0 {
		return nil
	}
	ranges := make([]string, len(hpas))
	for i, h := range hpas {
		spec := h.Object.(*autoscalingv2.HorizontalPodAutoscaler).Spec
		minReplicas, maxReplicas := "1", "unset"
		if spec.MinReplicas != nil {
			minReplicas = strconv.Itoa(int(*spec.MinReplicas))
		}
		if spec.MaxReplicas != 0 { // required; 0 is read as unset
			maxReplicas = strconv.Itoa(int(spec.MaxReplicas))
		}
		ranges[i] = fmt.Sprintf("%s (minReplicas %s, maxReplicas %s)", Describe(h.Key), minReplicas, maxReplicas)
	}
	sort.Strings(ranges)
	rollout := ""
	if c.Self.Kind == "Deployment" {
		rollout = "; during a rollout each change is a scaling event, which resizes the new and old ReplicaSets proportionally"
	}
	return []Finding{{
		Message: fmt.Sprintf("%s %s sets spec.replicas %d, but it is scaled by %s: every apply resets the count to %d and the autoscaler then changes it back, scaling the pods twice%s",
			c.Self.Kind, displayName(c.Self), *replicas, strings.Join(ranges, " and "), *replicas, rollout),
		Path: "spec.replicas",
	}}
}

// writtenReplicas is spec.replicas as the manifest writes it, nil when it
// leaves it out (or for a kind without it).
func writtenReplicas(e *Entry) *int32 {
	switch t := e.Written.(type) {
	case *appsv1.Deployment:
		return t.Spec.Replicas
	case *appsv1.StatefulSet:
		return t.Spec.Replicas
	case *appsv1.ReplicaSet:
		return t.Spec.Replicas
	case *corev1.ReplicationController:
		return t.Spec.Replicas
	}
	return nil
}
