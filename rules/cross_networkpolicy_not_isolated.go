package rules

import (
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
)

// networkpolicyNotIsolatedRule is networkpolicy/not-isolated.
var networkpolicyNotIsolatedRule = BuiltinRule{
	Meta: Rule{
		ID:       "networkpolicy/not-isolated",
		Title:    "Pods that no NetworkPolicy isolates (opt-in)",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod"},
		OptIn:    true,
		File:     "cross_networkpolicy_not_isolated.go",
		Description: `Pods are open to every connection from any pod of the cluster until a
NetworkPolicy of their namespace selects them for ingress (one whose
policyTypes include Ingress, which it does when policyTypes is unset);
from then on only what some policy allows reaches them. A workload whose
pod template labels no such policy selects is reported, with the
namespace's policies named. Policies are often installed apart from the
workloads (a platform's default-deny), so the rule is off by default,
and even when enabled it reports only in namespaces where the input holds
NetworkPolicies: there the policies are evidently managed with the
workloads, and a workload they leave out is open. Egress-only policies
do not count. Objects owned by a controller are left to their owner.`,
		Remediation: "Add a NetworkPolicy (a namespace-wide default-deny with podSelector {}, and policies allowing what the pods need) whose podSelector selects the workload's pod labels.",
	},
	Cross: networkpolicyNotIsolated,
}

// networkpolicyNotIsolated reports a workload whose pods no NetworkPolicy
// of its namespace selects for ingress, when the namespace has some.
func networkpolicyNotIsolated(c *CrossContext) []Finding {
	if !podKinds[c.Self.Kind] || ownedByController(c.Self) {
		return nil
	}
	policies := c.NS.KeysOfKind("NetworkPolicy")
	if len(policies) == 0 {
		return nil
	}
	podLabels, path := c.Self.TemplateLabels, "spec.template"
	switch c.Self.Kind {
	case "Pod":
		podLabels, path = nil, "metadata.labels"
		if m, err := meta.Accessor(c.Self.Written); err == nil {
			podLabels = m.GetLabels()
		}
	case "CronJob":
		path = "spec.jobTemplate"
	}
	for _, p := range c.NS.SelectorsMatching(podLabels, "NetworkPolicy") {
		if np, ok := p.Object.(*networkingv1.NetworkPolicy); ok && selectsIngress(np.Spec.PolicyTypes) {
			return nil
		}
	}
	return []Finding{{
		Message: fmt.Sprintf("no NetworkPolicy of namespace %s selects the pods of %s %s (%s %s) for ingress, so any pod of the cluster may connect to them; the namespace's %s: %s",
			c.NS.Name, c.Self.Kind, displayName(c.Self), labelsWord(c.Self.Key), FormatLabels(podLabels),
			Quantity(int64(len(policies)), "NetworkPolicy"), DescribeList(policies)),
		Path: path,
	}}
}

// selectsIngress reports whether a NetworkPolicy of these policyTypes (as
// written) applies to ingress: unset, or naming Ingress.
func selectsIngress(types []networkingv1.PolicyType) bool {
	if types == nil {
		return true
	}
	for _, t := range types {
		if t == networkingv1.PolicyTypeIngress {
			return true
		}
	}
	return false
}
