# METADATA
# title: Service selects no workload
# description: |
#   A Service with a selector gets its endpoints from the pods that the selector
#   matches (the EndpointSlice controller lists pods in the Service's namespace
#   by spec.selector, every key=value pair required). When no workload of the
#   input in that namespace (the pod template of a Deployment, ReplicaSet,
#   StatefulSet, DaemonSet, Job, CronJob or ReplicationController, or a Pod's
#   labels) carries every label of the selector, the Service has no endpoints
#   and connections to it are refused: usually a typo or a label changed on one
#   side only. Services without a selector (ExternalName, or endpoints managed
#   by hand) are not checked. The rule reports only when the input shows which
#   workload the Service was meant for: one named like the Service, or one
#   whose pod template carries every key=value pair of the selector but one.
#   When the input holds no such workload in the namespace (none at all, or
#   only unrelated ones, as when the Service fronts pods of a separately
#   installed chart or operator), it stays silent: the Service's pods are
#   defined elsewhere. A selector whose value is a few edits away from a
#   workload's label (chekout for checkout) is reported with a "did you mean".
#   Labels the workload's own controller adds to every pod it creates
#   (statefulset.kubernetes.io/pod-name, pod-template-hash, job-name, ...)
#   count as carried. A selector whose extra label the pod template does not
#   set at all (role=primary) is reported as information only: an operator
#   (a database operator marking its primary, a leader election) may set it
#   on the running pods, which no manifest shows, so the rule cannot tell a
#   forgotten label from one set at run time.
# custom:
#   id: service/no-matching-workload
#   severity: warning
#   kinds: [Service]
#   remediation: Make spec.selector match the pod template labels of the workload the Service is for.
package kubectl_workload.rules.service_no_matching_workload

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

# checked: a Service with a selector that selects none of the workloads the
# input holds in its namespace.
checked if {
	input.object.kind == "Service"
	object.get(input.object, ["spec", "type"], "ClusterIP") != "ExternalName"
	is_object(selector)
	count(selector) > 0
	xref.has_workloads
	not xref.selects_workload({"matchLabels": selector})
}

selector := object.get(input.object, ["spec", "selector"], {})

intended := xref.intended(selector, input.object.metadata.name)

# did_you_mean is the inventory's near miss by a label value a few edits away
# (rules/relations.go): {"label": "key=value", "key": Kind/name}.
did_you_mean := xref.entry(input.key).did_you_mean

hint := sprintf("; did you mean %s, as %s has?", [did_you_mean.label, xref.describe(did_you_mean.key)]) if {
	did_you_mean
} else := ""

# lacking(key) are the selector's keys that the workload's pod labels do not
# set at all; differing(key) those they set to another value.
lacking(key) := {k | some k, _ in selector; not xref.pod_labels(xref.entry(key))[k]}

differing(key) := {k |
	some k, v in selector
	labels := xref.pod_labels(xref.entry(key))
	labels[k]
	labels[k] != v
}

# controller_labels are the labels Kubernetes' own controllers add to the
# pods they create, which pod templates do not carry: the Deployment
# controller's pod-template-hash, the StatefulSet controller's
# controller-revision-hash, statefulset.kubernetes.io/pod-name and
# apps.kubernetes.io/pod-index (a Service per StatefulSet pod selects one),
# the DaemonSet controller's controller-revision-hash, and the Job
# controller's job-name, controller-uid and completion index.
controller_labels := {
	"Deployment": {"pod-template-hash"},
	"StatefulSet": {"controller-revision-hash", "statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index"},
	"DaemonSet": {"controller-revision-hash"},
	"Job": {"job-name", "controller-uid", "batch.kubernetes.io/job-name", "batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-completion-index"},
	"CronJob": {"job-name", "controller-uid", "batch.kubernetes.io/job-name", "batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-completion-index"},
}

# set_at_run_time(key): the workload's pod labels carry every pair of the
# selector that they set, and lack only keys its own controller adds to its
# pods: the Service does select them once they run.
set_at_run_time(key) if {
	count(differing(key)) == 0
	count(lacking(key)) > 0
	every k in lacking(key) {
		k in object.get(controller_labels, xref.kind_of(key), set())
	}
}

# operator_label(key): the workload's pod labels set no other value for any
# key of the selector, and lack keys that no Kubernetes controller adds: an
# operator (a database operator's role=primary, a leader election's
# role=leader) may set them on the running pods, which the manifests cannot
# show.
operator_label(key) if {
	count(differing(key)) == 0
	count(lacking(key)) > 0
	not set_at_run_time(key)
}

findings contains f if {
	checked
	intended.count > 0
	not some_set_at_run_time
	not some_operator_label
	f := {
		"msg": sprintf(
			"Service %s selects %s, which matches no pod template or Pod of the %s in namespace %s, so the Service has no endpoints; it was probably meant for %s%s",
			[lib.display_name, xref.format_labels(selector), xref.quantity(xref.workload_count, "workload"), input.namespace, xref.describe_intended(intended), hint],
		),
		"path": "spec.selector",
	}
}

# A label value a few edits away from a workload's, with nothing else to go
# on (a one-label selector, a Service named otherwise).
findings contains f if {
	checked
	intended.count == 0
	did_you_mean
	f := {
		"msg": sprintf(
			"Service %s selects %s, which matches no pod template or Pod of the %s in namespace %s, so the Service has no endpoints%s",
			[lib.display_name, xref.format_labels(selector), xref.quantity(xref.workload_count, "workload"), input.namespace, hint],
		),
		"path": "spec.selector",
	}
}

findings contains f if {
	checked
	intended.count > 0
	not some_set_at_run_time
	some_operator_label
	key := [k | some k in intended.shown; operator_label(k)][0]
	f := {
		"msg": sprintf(
			"Service %s selects %s; %s carries every label of it but %s, which its pod template does not set: the Service has endpoints only if something (an operator) labels the pods at run time",
			[lib.display_name, xref.format_labels(selector), xref.describe(key), concat(", ", sort(lacking(key)))],
		),
		"path": "spec.selector",
		"severity": "info",
	}
}

some_set_at_run_time if {
	some key in intended.shown
	set_at_run_time(key)
}

some_operator_label if {
	some key in intended.shown
	operator_label(key)
}
