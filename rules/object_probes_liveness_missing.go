package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// probesLivenessMissingRule is probes/liveness-missing.
var probesLivenessMissingRule = BuiltinRule{
	Meta: Rule{
		ID:       "probes/liveness-missing",
		Title:    "Container without a liveness probe (opt-in)",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet"},
		OptIn:    true,
		File:     "object_probes_liveness_missing.go",
		Description: `Without a livenessProbe the kubelet restarts a container only when its
process exits: a deadlocked process keeps running, and keeps failing its
readiness probe, forever. A liveness probe is not always wanted (a wrong
one does more harm than none), so this rule is off by default. Reported
for the containers of Deployments, StatefulSets and DaemonSets.`,
		Remediation: "Add a livenessProbe that checks only that the process is alive, with a generous failureThreshold.",
	},
	Check: checkLivenessMissing,
}

// checkLivenessMissing reports each container (not init container) of a
// Deployment, StatefulSet or DaemonSet without a livenessProbe.
func checkLivenessMissing(c *ObjectContext) []Finding {
	switch c.Object.(type) {
	case *appsv1.Deployment, *appsv1.StatefulSet, *appsv1.DaemonSet:
	default:
		return nil
	}
	spec, specPath := podSpecOf(c.Object)
	var out []Finding
	for _, pc := range podContainers(spec, specPath) {
		if pc.field != fieldContainers || pc.c.LivenessProbe != nil {
			continue
		}
		out = append(out, Finding{Path: pc.path,
			Message: fmt.Sprintf("container %q has no livenessProbe: the kubelet restarts it only when its process exits", pc.c.Name)})
	}
	return out
}
