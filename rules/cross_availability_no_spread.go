package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// availabilityNoSpreadRule is availability/no-spread.
var availabilityNoSpreadRule = GoRule{
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

var spreadTopologyKeys = map[string]bool{"kubernetes.io/hostname": true, "topology.kubernetes.io/zone": true,
	"failure-domain.beta.kubernetes.io/zone": true}

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

// spreads reports whether a pod template spreads its own pods by node or
// zone: a topology spread constraint or a pod anti-affinity term (required
// or preferred) on kubernetes.io/hostname or a zone whose selector selects
// the template's own labels (own). A term that selects other pods only
// keeps this workload away from them, not its replicas from each other.
func spreads(spec *corev1.PodSpec, own map[string]string) bool {
	for _, c := range spec.TopologySpreadConstraints {
		if spreadTopologyKeys[c.TopologyKey] && selectsOwn(c.LabelSelector, c.MatchLabelKeys, own) {
			return true
		}
	}
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
		return false
	}
	terms := append([]corev1.PodAffinityTerm{}, spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
	for _, w := range spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		terms = append(terms, w.PodAffinityTerm)
	}
	for _, t := range terms {
		if spreadTopologyKeys[t.TopologyKey] && selectsOwn(t.LabelSelector, t.MatchLabelKeys, own) {
			return true
		}
	}
	return false
}

// selectsOwn reports whether a term's selector selects a pod with the
// labels own: with upstream's semantics (metav1.LabelSelectorAsSelector;
// nil or refused selects nothing). matchLabelKeys alone, with no selector,
// selects the pod's own values of those keys (the API server merges them
// into the selector), so its own pods.
func selectsOwn(sel *metav1.LabelSelector, matchLabelKeys []string, own map[string]string) bool {
	if sel == nil {
		return len(matchLabelKeys) > 0
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	return err == nil && s.Matches(labels.Set(own))
}
