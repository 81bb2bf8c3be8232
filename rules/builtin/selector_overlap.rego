# METADATA
# title: Two controllers select the same pods
# description: |
#   Two pod controllers in the same namespace (Deployments, ReplicaSets,
#   StatefulSets, DaemonSets, ReplicationControllers, Jobs with manualSelector)
#   where the selector of one selects the pod template labels of the other, in
#   either direction, with metav1 LabelSelector semantics (matchLabels and
#   matchExpressions). Kubernetes does not stop this, and the Deployment
#   documentation warns that such controllers may conflict. Each controller
#   lists pods by its selector and claims the orphans among them
#   (ClaimPods, through the ControllerRefManager): a pod released or orphaned
#   by one (kubectl delete --cascade=orphan, a label edit, a re-created
#   controller) is adopted by whichever syncs first, which then deletes or
#   replaces it to match its own replica count and template. Everything else
#   that reads pods by selector (an HorizontalPodAutoscaler's metrics,
#   kubectl rollout status and logs, PodDisruptionBudgets through the
#   controllers' scale) counts the other controller's pods as well.
#   ReplicaSets made by a Deployment (with ownerReferences, or with the
#   pod-template-hash label) are left out: the Deployment's own selector
#   stands for them. Jobs without manualSelector get a generated,
#   unique selector and never overlap. Each of the two controllers gets a
#   finding naming the other. A controller
#   that overlaps more than 5 others gets one finding that counts them and
#   names the first 5, so n identical controllers give n findings, not n².
# custom:
#   id: selector/overlap
#   severity: error
#   kinds: [Deployment, ReplicaSet, StatefulSet, DaemonSet, ReplicationController, Job]
#   remediation: Give each controller a label that only its own pod template carries (for example app.kubernetes.io/instance or a component label) and add it to its selector.
package kubectl_workload.rules.selector_overlap

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

self := lib.index.objects[input.key]

# selected are the other controllers whose pod templates this one's selector
# selects.
selected contains key if {
	xref.controller(self)
	some key in xref.templates_selected_by(self.selector)
	key != input.key
	xref.controller(xref.entry(key))
}

# selecting are the other controllers whose selectors select this one's pod
# template.
selecting contains key if {
	xref.controller(self)
	some key in xref.selectors_selecting(xref.template_labels_of(self), xref.controller_kinds)
	key != input.key
	xref.controller(xref.entry(key))
}

# maxNamed is how many overlapping controllers get a finding of their own;
# beyond it one finding counts them.
max_named := 5

overlapping := selected | selecting

# related is overlapping, bounded: the first max_named keys, sorted, and how
# many there are, as the inventory computed them (rules/bounded.go), else
# from overlapping.
related := r if {
	xref.controller(self)
	r := self.overlapping
} else := {"first": array.slice(sort(overlapping), 0, max_named), "count": count(overlapping)}

findings contains f if {
	related.count <= max_named
	some other in related.first
	f := {
		"msg": sprintf(
			"%s overlaps %s: %s. %s; %s. A controller adopts the orphaned pods its selector matches and then deletes or replaces them to fit its own replicas and template, and whatever reads pods by selector (autoscalers, kubectl rollout status) counts both sets",
			[
				xref.describe(input.key), xref.describe(other), direction(other),
				summary(input.key, self), summary(other, xref.entry(other)),
			],
		),
		"path": "spec.selector",
	}
}

findings contains f if {
	related.count > max_named
	first := related.first
	f := {
		"msg": sprintf(
			"%s overlaps %d other controllers: %s and %d more. %s. A controller adopts the orphaned pods its selector matches and then deletes or replaces them to fit its own replicas and template, and whatever reads pods by selector (autoscalers, kubectl rollout status) counts every set",
			[
				xref.describe(input.key), related.count,
				concat(", ", [xref.describe(k) | some k in first]), related.count - max_named,
				summary(input.key, self),
			],
		),
		"path": "spec.selector",
		"related_count": related.count,
	}
}

direction(other) := sprintf("each selector selects the other's pod template", []) if {
	other in selected
	other in selecting
} else := sprintf("the selector of %s selects the pod template of %s", [xref.describe(input.key), xref.describe(other)]) if {
	other in selected
} else := sprintf("the selector of %s selects the pod template of %s", [xref.describe(other), xref.describe(input.key)])

summary(key, e) := sprintf("%s: %s, selector %s, pod template labels %s", [
	xref.describe(key), size(e),
	xref.format_selector(e.selector), xref.format_labels(xref.template_labels_of(e)),
])

size(e) := xref.quantity(e.spec.replicas, "replica") if {
	e.kind != "Job"
	is_number(e.spec.replicas)
} else := sprintf("parallelism %d", [e.spec.parallelism]) if {
	e.kind == "Job"
	is_number(e.spec.parallelism)
} else := "one pod per eligible node" if {
	e.kind == "DaemonSet"
} else := "replicas unset"
