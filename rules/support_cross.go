// Helpers shared by the cross-resource rules (cross_*.go): a rule file
// uses its own code and the support files, never another rule's file.

package rules

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-workload/kubectl-workload/internal/nearest"
)

// displayName is an object's name for messages (lib.display_name):
// metadata.name, or for an object whose name the API server generates, the
// generateName prefix and "*".
func displayName(e *Entry) string {
	if e.Name != "" {
		return e.Name
	}
	if m, err := meta.Accessor(e.Written); err == nil && m.GetGenerateName() != "" {
		return m.GetGenerateName() + "*"
	}
	return ""
}

// workloadReplicas is how many pods a Deployment or StatefulSet runs, as
// the availability and rollout rules count them: replicas (spec.replicas
// after defaulting, 1 when nil), or, when the manifest leaves spec.replicas
// unset (writtenUnset) and HorizontalPodAutoscalers of the input scale the
// workload (as hpa/replicas-set advises), their smallest minReplicas, the
// fewest pods it runs; source then names them, for the message.
func workloadReplicas(c *CrossContext, replicas *int32, writtenUnset bool) (n int32, source string) {
	n = 1
	if replicas != nil {
		n = *replicas
	}
	if writtenUnset && c.NS.Has("HorizontalPodAutoscaler") {
		if autoscalers := c.NS.AutoscalersTargeting(c.Self.Kind, c.Self.Name, c.Self.APIVersion); len(autoscalers) > 0 {
			return smallestMinReplicas(autoscalers), fmt.Sprintf(" (the minReplicas of %s, which scales it)", DescribeList(KeysOf(autoscalers)))
		}
	}
	return n, ""
}

// smallestMinReplicas is the smallest minReplicas of the autoscalers (1
// where unset, the API server's default): the fewest pods the workload runs.
func smallestMinReplicas(autoscalers []*Entry) int32 {
	n := int32(-1)
	for _, h := range autoscalers {
		m := int32(1)
		if hpa, ok := h.Object.(*autoscalingv2.HorizontalPodAutoscaler); ok && hpa.Spec.MinReplicas != nil {
			m = *hpa.Spec.MinReplicas
		}
		if n < 0 || m < n {
			n = m
		}
	}
	return n
}

// maxRelatedNamed is how many related objects a bounded message names,
// beyond which one finding counts them (maxRelated in bounded.go).
const maxRelatedNamed = maxRelated

// ownedByController reports whether the object as written has a
// controlling owner, which is linted instead (lib.owned_by_controller).
func ownedByController(e *Entry) bool {
	m, err := meta.Accessor(e.Written)
	return err == nil && metav1.GetControllerOfNoCopy(m) != nil
}

// typoHint is "; did you mean KEY=VALUE, as WORKLOAD has?" when a selector
// of matchLabels only misses a workload's pod labels by one value a few
// edits away (valueTypo), else "".
func (ns *Namespace) typoHint(sel *metav1.LabelSelector) string {
	return ns.typoHintExcept(sel, nil)
}

// typoHintExcept is typoHint without the workloads skip reports true for;
// skip may be nil.
func (ns *Namespace) typoHintExcept(sel *metav1.LabelSelector, skip func(*Entry) bool) string {
	if sel == nil || len(sel.MatchExpressions) > 0 || len(sel.MatchLabels) == 0 {
		return ""
	}
	label, key := ns.valueTypo(sel.MatchLabels, skip)
	if key == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %s, as %s has?", label, Describe(key))
}

// valueTypo finds, for a selector of matchLabels that selects no workload,
// the workload or Pod whose pod labels carry every pair but one, and that
// one's key with a value a few edits away (nearest.Close): a misspelled
// label value. The closest wins, then the first key. It returns the label
// as key=value and the workload's key, or "", "".
func (ns *Namespace) valueTypo(match map[string]string, skip func(*Entry) bool) (label, key string) {
	best := -1
	for _, k := range sortedKeys(ns.objects) {
		e := ns.objects[k]
		if !templateWorkloadKinds[e.Kind] && e.Kind != "Pod" || skip != nil && skip(e) {
			continue
		}
		if e.Kind != "Pod" && e.TemplateLabels == nil {
			continue // not a pod-label holder
		}
		h := e.PodLabels()
		missing, missKey := 0, ""
		for lk, v := range match {
			if got, ok := h[lk]; !ok || got != v {
				missing++
				missKey = lk
			}
		}
		if missing != 1 {
			continue
		}
		want := match[missKey]
		got, ok := h[missKey]
		if !ok || !nearest.Close(want, got) {
			continue
		}
		if d := nearest.Distance(want, got); best < 0 || d < best {
			best, label, key = d, missKey+"="+got, k
		}
	}
	return label, key
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
