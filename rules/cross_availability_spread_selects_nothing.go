package rules

import (
	"fmt"
)

// availabilitySpreadSelectsNothingRule is availability/spread-selects-nothing.
var availabilitySpreadSelectsNothingRule = BuiltinRule{
	Meta: Rule{
		ID:       "availability/spread-selects-nothing",
		Title:    "Anti-affinity or spread constraint that selects none of the workload's own pods",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "ReplicaSet"},
		File:     "cross_availability_spread_selects_nothing.go",
		Description: `A required pod anti-affinity term keeps a pod off the nodes (or zones) that
run pods its labelSelector selects; a topology spread constraint counts
the pods its labelSelector selects in each domain. Written to keep a
workload's replicas apart, the selector must select the workload's own
pods. When it selects none of the pod template's labels (a label renamed
in the template, a selector copied from another chart: minio-operator's
name=minio-operator on pods that do not carry it), the term keeps nothing
apart and every replica may land on one node, though the manifest looks
spread. A topology spread constraint whose selector misses its own pods is
reported; a required anti-affinity term only when it selects no pod of the
input in its namespace either (one that selects other workloads' pods
keeps this one away from them on purpose) and names no other namespace.
availability/no-spread does not count either as spread.`,
		Remediation: "Make the term's labelSelector select the workload's own pod template labels (or use matchLabelKeys with pod-template-hash).",
	},
	Cross: availabilitySpreadSelectsNothing,
}

// availabilitySpreadSelectsNothing reports each stray spread term of a
// workload (Entry.StraySpread): a spread constraint always, a required
// anti-affinity term when it selects no pod of the input's namespace and
// names no other namespace.
func availabilitySpreadSelectsNothing(c *CrossContext) []Finding {
	if c.Self.Name == "" || c.Self.TemplateLabels == nil {
		return nil
	}
	var out []Finding
	for _, t := range c.Self.StraySpread {
		if t.AntiAffinity && (t.OtherNamespaces || t.Selector == nil || len(c.NS.AllWorkloadsSelectedBy(t.Selector)) > 0) {
			continue
		}
		msg := fmt.Sprintf("%s %s: the topology spread constraint selects %s, which none of its own pods carry (their labels: %s): it counts none of this workload's pods, so its replicas may all run on one node",
			c.Self.Kind, c.Self.Name, FormatSelector(t.Selector), FormatLabels(c.Self.TemplateLabels))
		if t.AntiAffinity {
			msg = fmt.Sprintf("%s %s: the required pod anti-affinity term selects %s, which neither its own pods (their labels: %s) nor any other pod of the input carry: it keeps nothing apart, so its replicas may all run on one node",
				c.Self.Kind, c.Self.Name, FormatSelector(t.Selector), FormatLabels(c.Self.TemplateLabels))
		}
		out = append(out, Finding{Path: t.Path, Message: msg})
	}
	return out
}
