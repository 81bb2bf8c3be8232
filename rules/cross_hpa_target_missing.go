package rules

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/kubectl-workload/kubectl-workload/internal/nearest"
)

// hpaTargetMissingRule is hpa/target-missing.
var hpaTargetMissingRule = BuiltinRule{
	Meta: Rule{
		ID:       "hpa/target-missing",
		Title:    "Autoscaler's target is not in the input",
		Severity: SeverityInfo,
		Kinds:    []string{"HorizontalPodAutoscaler"},
		File:     "cross_hpa_target_missing.go",
		Description: `A HorizontalPodAutoscaler scales the object its spec.scaleTargetRef names
(kind and name, in its own namespace). When the input holds no object of
that kind and name in the namespace, the target is defined elsewhere, not
created yet, or misspelled; until it exists the autoscaler reports
FailedGetScale and does nothing. Reported as information, with any object
of another scalable kind that has the target's name, and the object of the
target's kind whose name is a few edits away (web-stabel for web-stable).`,
		Remediation: "Check spec.scaleTargetRef's kind and name against the workload the autoscaler is for, and apply that workload too.",
	},
	Cross: hpaTargetMissing,
}

// hpaTargetMissing reports an autoscaler whose scaleTargetRef names no
// object of its namespace in the input.
func hpaTargetMissing(c *CrossContext) []Finding {
	hpa, ok := c.Self.Written.(*autoscalingv2.HorizontalPodAutoscaler)
	if !ok {
		return nil
	}
	ref := hpa.Spec.ScaleTargetRef
	if c.NS.Get(Key(ref.Kind, ref.Name)) != nil {
		return nil
	}
	sameName := ""
	var keys []string
	for _, kind := range []string{"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"} {
		if kind != ref.Kind && c.NS.Get(Key(kind, ref.Name)) != nil {
			keys = append(keys, Key(kind, ref.Name))
		}
	}
	if len(keys) > 0 {
		sameName = fmt.Sprintf(" (it holds %s: is scaleTargetRef.kind wrong?)", DescribeList(keys))
	}
	didYouMean := ""
	if ref.Kind != "" && ref.Name != "" {
		var names []string
		for _, e := range c.NS.OfKind(ref.Kind) {
			names = append(names, e.Name)
		}
		if n := nearest.Nearest(ref.Name, names); n != "" {
			didYouMean = fmt.Sprintf("; did you mean %s?", n)
		}
	}
	return []Finding{{
		Message: fmt.Sprintf("HorizontalPodAutoscaler %s scales %s %s, which the input does not hold in namespace %s%s%s",
			displayName(c.Self), ref.Kind, ref.Name, c.NS.Name, sameName, didYouMean),
		Path: "spec.scaleTargetRef",
	}}
}
