package deployment

import (
	"fmt"

	apps "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// DeploymentHeader describes d's strategy resolved to numbers, with the arithmetic, as
// deploymentutil.ResolveFenceposts resolves it. d must be defaulted.
//
// Example: 10 replicas at 25%/25% give maxSurge "25% of 10 = 2.5 → 3 (rounded up)",
// maxUnavailable "25% of 10 = 2.5 → 2 (rounded down)", and the bounds at most 13 pods, at least
// 8 available.
func DeploymentHeader(d *apps.Deployment) kernel.Header {
	replicas := int32(0)
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	h := kernel.Header{
		Namespace: d.Namespace,
		Name:      d.Name,
		Strategy:  string(d.Spec.Strategy.Type),
		Replicas:  replicas,
	}
	if d.Spec.Strategy.Type == apps.RecreateDeploymentStrategyType || d.Spec.Strategy.RollingUpdate == nil {
		// Recreate never runs old and new pods together: at most replicas pods, and none
		// available while the new ones start.
		h.MaxPods = replicas
		h.MinAvailable = 0
		return h
	}
	ru := d.Spec.Strategy.RollingUpdate
	surge, surgeText := resolveArithmetic(ru.MaxSurge, replicas, true)
	unavailable, unavailableText := resolveArithmetic(ru.MaxUnavailable, replicas, false)
	if fenceSurge, fenceUnavailable, err := deploymentutil.ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, replicas); err == nil {
		if fenceUnavailable != unavailable {
			unavailableText += fmt.Sprintf("; maxSurge is also 0, so the controller uses %d", fenceUnavailable)
		}
		surge, unavailable = fenceSurge, fenceUnavailable
	}
	h.Settings = []kernel.Setting{
		{Name: "maxSurge", Value: intOrPercentString(ru.MaxSurge), Arithmetic: surgeText},
		{Name: "maxUnavailable", Value: intOrPercentString(ru.MaxUnavailable), Arithmetic: unavailableText},
	}
	h.MaxPods = replicas + surge
	h.MinAvailable = max(replicas-unavailable, 0)
	return h
}

// resolveArithmetic resolves v against replicas the way intstr.GetScaledValueFromIntOrPercent
// does and explains it.
//
// Example: 25% of 10 rounded up is 2.5 → 3; an integer 3 is just 3.
func resolveArithmetic(v *intstr.IntOrString, replicas int32, roundUp bool) (int32, string) {
	if v == nil {
		return 0, "unset = 0"
	}
	n, text, err := kernel.Scaled(v, int(replicas), roundUp)
	if err != nil {
		return 0, fmt.Sprintf("%s is not a number or a percentage", v.String())
	}
	return int32(n), text
}

func intOrPercentString(v *intstr.IntOrString) string {
	if v == nil {
		return ""
	}
	return v.String()
}
