package rules

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// selectorOverlapRule is selector/overlap.
var selectorOverlapRule = BuiltinRule{
	Meta: Rule{
		ID:       "selector/overlap",
		Title:    "Two controllers select the same pods",
		Severity: SeverityError,
		Kinds:    []string{"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ReplicationController", "Job"},
		File:     "cross_selector_overlap.go",
		Description: `Two pod controllers in the same namespace (Deployments, ReplicaSets,
StatefulSets, DaemonSets, ReplicationControllers, Jobs with manualSelector)
where the selector of one selects the pod template labels of the other, in
either direction, with metav1 LabelSelector semantics (matchLabels and
matchExpressions). Kubernetes does not stop this, and the Deployment
documentation warns that such controllers may conflict. Each controller
lists pods by its selector and claims the orphans among them
(ClaimPods, through the ControllerRefManager): a pod released or orphaned
by one (kubectl delete --cascade=orphan, a label edit, a re-created
controller) is adopted by whichever syncs first, which then deletes or
replaces it to match its own replica count and template. Everything else
that reads pods by selector (an HorizontalPodAutoscaler's metrics,
kubectl rollout status and logs, PodDisruptionBudgets through the
controllers' scale) counts the other controller's pods as well.
ReplicaSets made by a Deployment (with ownerReferences, or with the
pod-template-hash label) are left out: the Deployment's own selector
stands for them. Jobs without manualSelector get a generated,
unique selector and never overlap. Each of the two controllers gets a
finding naming the other. A controller
that overlaps more than 5 others gets one finding that counts them and
names the first 5, so n identical controllers give n findings, not n².`,
		Remediation: "Give each controller a label that only its own pod template carries (for example app.kubernetes.io/instance or a component label) and add it to its selector.",
	},
	Cross: selectorOverlap,
}

// selectorOverlap reports the other controllers of the namespace whose pods
// a controller's selector selects, or whose selector selects its pods: one
// finding for each, or, beyond five, one that counts them.
func selectorOverlap(c *CrossContext) []Finding {
	// The inventory's entry of the key, as the Rego rule reads it: of two
	// objects with one Kind/name, the last.
	self := c.NS.Get(c.Self.Key)
	if self == nil || !self.IsController() {
		return nil
	}
	all := selectorOverlapCandidates(c.NS, self.Selector, self.TemplateLabels)
	selected, selecting := map[string]bool{}, map[string]bool{}
	var overlapping []string
	count := len(all)
	for _, o := range all {
		if o.key == self.Key {
			count--
		}
	}
	for _, o := range all {
		if o.key == self.Key {
			continue
		}
		if count > maxRelatedNamed && len(overlapping) == maxRelatedNamed {
			break // only the first few are named; count says how many
		}
		overlapping = append(overlapping, o.key)
		selected[o.key], selecting[o.key] = o.selected, o.selecting
	}
	const effect = "A controller adopts the orphaned pods its selector matches and then deletes or replaces them to fit its own replicas and template, and whatever reads pods by selector (autoscalers, kubectl rollout status) counts "
	if count > maxRelatedNamed {
		first := overlapping[:maxRelatedNamed]
		names := make([]string, len(first))
		for i, k := range first {
			names[i] = Describe(k)
		}
		return []Finding{{
			Message: fmt.Sprintf("%s overlaps %d other controllers: %s and %d more. %s. %severy set",
				Describe(self.Key), count, strings.Join(names, ", "), count-maxRelatedNamed, controllerSummary(self), effect),
			Path:    "spec.selector",
			Related: count,
		}}
	}
	var out []Finding
	for _, k := range overlapping {
		var direction string
		switch {
		case selected[k] && selecting[k]:
			direction = "each selector selects the other's pod template"
		case selected[k]:
			direction = fmt.Sprintf("the selector of %s selects the pod template of %s", Describe(self.Key), Describe(k))
		default:
			direction = fmt.Sprintf("the selector of %s selects the pod template of %s", Describe(k), Describe(self.Key))
		}
		out = append(out, Finding{
			Message: fmt.Sprintf("%s overlaps %s: %s. %s; %s. %sboth sets",
				Describe(self.Key), Describe(k), direction, controllerSummary(self), controllerSummary(c.NS.Get(k)), effect),
			Path: "spec.selector",
		})
	}
	return out
}

// IsController reports whether the entry is a pod controller that claims
// pods by a selector its user wrote (xref.controller): Deployments,
// StatefulSets, DaemonSets, ReplicationControllers, ReplicaSets that no
// Deployment made (no ownerReferences, no pod-template-hash label), Jobs
// with manualSelector.
func (e *Entry) IsController() bool {
	switch e.Kind {
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicationController":
		return true
	case "ReplicaSet":
		_, hashed := e.TemplateLabels[appsv1.DefaultDeploymentUniqueLabelKey]
		return !e.Owned && !hashed
	case "Job":
		return e.Selector != nil
	}
	return false
}

// controllerSummary renders a controller for selector/overlap: its size,
// selector and pod template labels.
func controllerSummary(e *Entry) string {
	return fmt.Sprintf("%s: %s, selector %s, pod template labels %s", Describe(e.Key), controllerSize(e),
		FormatSelector(e.Selector), FormatLabels(e.TemplateLabels))
}

// controllerSize is a controller's replicas, a Job's parallelism, or a
// DaemonSet's one pod per node.
func controllerSize(e *Entry) string {
	var replicas *int32
	switch t := e.Object.(type) {
	case *appsv1.Deployment:
		replicas = t.Spec.Replicas
	case *appsv1.StatefulSet:
		replicas = t.Spec.Replicas
	case *appsv1.ReplicaSet:
		replicas = t.Spec.Replicas
	case *corev1.ReplicationController:
		replicas = t.Spec.Replicas
	case *batchv1.Job:
		if t.Spec.Parallelism != nil {
			return fmt.Sprintf("parallelism %d", *t.Spec.Parallelism)
		}
		return "replicas unset"
	case *appsv1.DaemonSet:
		return "one pod per eligible node"
	}
	if replicas == nil {
		return "replicas unset"
	}
	return Quantity(int64(*replicas), "replica")
}

// overlapCandidate is a controller whose pod template a selector selects
// (selected) or whose selector selects a pod template's labels (selecting).
type overlapCandidate struct {
	key                 string
	selected, selecting bool
}

// selectorOverlapCandidates answers, once per distinct selector and pod
// template labels of a namespace, which controllers overlap a controller
// with them, sorted by key: every alike controller reads the same answer and
// leaves itself out.
func selectorOverlapCandidates(ns *Namespace, sel *metav1.LabelSelector, templateLabels map[string]string) []overlapCandidate {
	return ns.Shared("selector/overlap\x00"+SelectorKey(sel)+"\x00"+LabelsKey(templateLabels), func() any {
		flags := map[string]*overlapCandidate{}
		get := func(key string) *overlapCandidate {
			if flags[key] == nil {
				flags[key] = &overlapCandidate{key: key}
			}
			return flags[key]
		}
		for _, e := range ns.TemplatesSelectedBy(sel) {
			if e.IsController() {
				get(e.Key).selected = true
			}
		}
		for _, e := range ns.SelectorsMatching(templateLabels, controllerKinds...) {
			if e.IsController() {
				get(e.Key).selecting = true
			}
		}
		out := make([]overlapCandidate, 0, len(flags))
		for _, k := range sortedKeys(flags) {
			out = append(out, *flags[k])
		}
		return out
	}).([]overlapCandidate)
}
