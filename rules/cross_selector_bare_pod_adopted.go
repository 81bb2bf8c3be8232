package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
)

// selectorBarePodAdoptedRule is selector/bare-pod-adopted.
var selectorBarePodAdoptedRule = BuiltinRule{
	Meta: Rule{
		ID:       "selector/bare-pod-adopted",
		Title:    "Bare Pod is adopted by a controller",
		Severity: SeverityWarning,
		Kinds:    []string{"Pod"},
		File:     "cross_selector_bare_pod_adopted.go",
		Description: `A Pod without a controller ownerReference (a bare Pod) whose labels a
controller's selector in the same namespace selects. Controllers list pods
by selector and adopt the orphans among them: ClaimPods, through the
ControllerRefManager's ClaimObject, sets itself as the controller
ownerReference of any pod in its namespace that has none and that its
selector matches, then manages the pod as its own. The kinds that adopt a bare pod are:
ReplicaSets and ReplicationControllers (the pod counts toward spec.replicas
and a surplus pod is deleted), DaemonSets (one pod per node is kept, pods on
nodes that should not run the daemon are deleted, and a rolling update
replaces the pod), Jobs with manualSelector (the pod counts as active,
succeeded or failed; a Job without manualSelector selects on its own
generated controller-uid), and StatefulSets, only when the pod's name is
the StatefulSet's name followed by -<ordinal> (isMemberOf): it becomes that
ordinal and is deleted when the ordinal is out of range. Deployments do not
adopt pods: they adopt ReplicaSets, whose selectors add the
pod-template-hash label. CronJobs adopt Jobs, not pods. A Pod that more
than 5 controllers would adopt gets one finding that counts them and
names the first 5 (the count is the finding's related count in JSON and
SARIF), so n alike Pods and controllers give n findings, not n².`,
		Remediation: "Give the bare Pod labels that no controller's selector matches, or run it from the controller instead of as a separate Pod.",
	},
	Cross: selectorBarePodAdopted,
}

// selectorBarePodAdopted reports a Pod without a controller whose labels
// the selector of a controller that adopts orphans selects: one finding
// for each such controller, or, beyond five, one that counts them.
func selectorBarePodAdopted(c *CrossContext) []Finding {
	if c.Self.Kind != "Pod" || ownedByController(c.Self) {
		return nil
	}
	m, err := meta.Accessor(c.Self.Written)
	if err != nil {
		return nil
	}
	name, podLabels := m.GetName(), m.GetLabels()
	shown := name
	if name == "" {
		shown = m.GetGenerateName() + "*"
	}
	parent, ordinal := "", ""
	if sub := ordinalName.FindStringSubmatch(name); sub != nil {
		parent, ordinal = sub[1], sub[2]
	}
	// A StatefulSet claims only the pods its isMemberOf accepts: the name
	// less its trailing -<ordinal> is the StatefulSet's.
	adopts := func(e *Entry) bool { return e.Kind != "StatefulSet" || (ordinal != "" && parent == e.Name) }
	// The selectors are sorted by key, and shared by every Pod with these
	// labels: used as they are when every one adopts the Pod (in a
	// namespace of n alike Pods and controllers, copying and sorting them
	// for each Pod was quadratic).
	adopters := c.NS.SelectorsMatching(podLabels, "ReplicaSet", "ReplicationController", "DaemonSet", "Job", "StatefulSet")
	if !everyEntry(adopters, adopts) {
		var some []*Entry
		for _, e := range adopters {
			if adopts(e) {
				some = append(some, e)
			}
		}
		adopters = some
	}
	if less := func(i, j int) bool { return adopters[i].Key < adopters[j].Key }; !sort.SliceIsSorted(adopters, less) {
		adopters = slices.Clone(adopters) // not the shared answer's order
		sort.Slice(adopters, less)
	}
	if len(adopters) > maxRelatedNamed {
		names := make([]string, maxRelatedNamed)
		for i, e := range adopters[:maxRelatedNamed] {
			names[i] = Describe(e.Key)
		}
		return []Finding{{
			Message: fmt.Sprintf("Pod %s has no controller ownerReference and its labels %s are selected by %d controllers that adopt orphaned pods: %s and %d more. One of them adopts it, counts it as one of its own pods and may delete or replace it",
				shown, FormatLabels(podLabels), len(adopters), strings.Join(names, ", "), len(adopters)-maxRelatedNamed),
			Path:    "metadata.labels",
			Related: len(adopters),
		}}
	}
	var out []Finding
	for _, e := range adopters {
		out = append(out, Finding{
			Message: fmt.Sprintf("Pod %s has no controller ownerReference and its labels %s are selected by %s (selector %s): %s",
				shown, FormatLabels(podLabels), Describe(e.Key), FormatSelector(e.Selector), adoption(e, ordinal)),
			Path: "metadata.labels",
		})
	}
	return out
}

// adoption says what the controller e does with an orphaned pod it adopts.
func adoption(e *Entry, ordinal string) string {
	switch t := e.Object.(type) {
	case *appsv1.ReplicaSet, *corev1.ReplicationController:
		var replicas *int32
		if rs, ok := t.(*appsv1.ReplicaSet); ok {
			replicas = rs.Spec.Replicas
		} else {
			replicas = t.(*corev1.ReplicationController).Spec.Replicas
		}
		if replicas == nil {
			return fmt.Sprintf("the %s adopts it as one of its pods and may delete it to reach its replica count", e.Kind)
		}
		return fmt.Sprintf("the %s adopts it and counts it toward its %s, deleting a surplus pod (this one or one of its own) to get back to %d",
			e.Kind, Quantity(int64(*replicas), "replica"), *replicas)
	case *appsv1.DaemonSet:
		return "the DaemonSet adopts it: it deletes it when its node should not run the daemon or already runs an older daemon pod, and replaces it on its next rolling update"
	case *batchv1.Job:
		parallelism, completions := int32(1), "unset"
		if t.Spec.Parallelism != nil {
			parallelism = *t.Spec.Parallelism
		}
		if t.Spec.Completions != nil {
			completions = fmt.Sprintf("%d", *t.Spec.Completions)
		}
		return fmt.Sprintf("the Job adopts it and counts it as one of its pods (parallelism %d, completions %s): its success or failure counts toward the Job's, and it is deleted when too many pods are active",
			parallelism, completions)
	case *appsv1.StatefulSet:
		if t.Spec.Replicas != nil {
			return fmt.Sprintf("the name makes it ordinal %s of the StatefulSet (%s), which adopts it and deletes or recreates it to match its own template and revision",
				ordinal, Quantity(int64(*t.Spec.Replicas), "replica"))
		}
	}
	return fmt.Sprintf("the name makes it ordinal %s of the StatefulSet, which adopts it and deletes or recreates it to match its own template and revision", ordinal)
}

// everyEntry reports whether every entry satisfies ok.
func everyEntry(entries []*Entry, ok func(*Entry) bool) bool {
	for _, e := range entries {
		if !ok(e) {
			return false
		}
	}
	return true
}
