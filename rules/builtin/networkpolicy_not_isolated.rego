# METADATA
# title: Pods that no NetworkPolicy isolates (opt-in)
# description: |
#   Pods are open to every connection from any pod of the cluster until a
#   NetworkPolicy of their namespace selects them for ingress (one whose
#   policyTypes include Ingress, which it does when policyTypes is unset);
#   from then on only what some policy allows reaches them. A workload whose
#   pod template labels no such policy selects is reported, with the
#   namespace's policies named. Policies are often installed apart from the
#   workloads (a platform's default-deny), so the rule is off by default,
#   and even when enabled it reports only in namespaces where the input holds
#   NetworkPolicies: there the policies are evidently managed with the
#   workloads, and a workload they leave out is open. Egress-only policies
#   do not count. Objects owned by a controller are left to their owner.
# custom:
#   id: networkpolicy/not-isolated
#   severity: info
#   default: "off"
#   kinds: [Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob, Pod]
#   remediation: Add a NetworkPolicy (a namespace-wide default-deny with podSelector {}, and policies allowing what the pods need) whose podSelector selects the workload's pod labels.
package kubectl_workload.rules.networkpolicy_not_isolated

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

policies := xref.keys_of_kind("NetworkPolicy")

# pod_labels are the input's own pod labels (a CronJob's, from the
# inventory).
pod_labels := object.get(input.object, ["metadata", "labels"], {}) if {
	input.object.kind == "Pod"
} else := xref.template_labels_of(xref.entry(input.key)) if {
	input.object.kind == "CronJob"
} else := object.get(input.defaulted, ["spec", "template", "metadata", "labels"], {})

findings contains f if {
	input.object.kind in xref.workload_kinds
	not lib.owned_by_controller
	count(policies) > 0
	not isolated(xref.selectors_matching(pod_labels, {"NetworkPolicy"}))
	f := {
		"msg": sprintf(
			"no NetworkPolicy of namespace %s selects the pods of %s %s (%s %s) for ingress, so any pod of the cluster may connect to them; the namespace's %s: %s",
			[input.namespace, input.object.kind, lib.display_name, xref.labels_word(input.key), xref.format_labels(pod_labels), xref.quantity(count(policies), "NetworkPolicy"), xref.describe_list(policies)],
		),
		"path": path,
	}
}

isolated(keys) if {
	some k in keys
	xref.kind_of(k) == "NetworkPolicy"
	types := object.get(xref.entry(k), ["spec", "policyTypes"], null)
	ingress(types)
}

ingress(null)

ingress(types) if "Ingress" in types

path := "metadata.labels" if {
	input.object.kind == "Pod"
} else := "spec.jobTemplate" if {
	input.object.kind == "CronJob"
} else := "spec.template"
