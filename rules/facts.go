package rules

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// Facts computes, with the Deployment controller's own exported helpers,
// the values rules must not re-derive. versioned is the decoded and
// defaulted object (apicheck's Result.Versioned); Facts returns nil for kinds
// without facts.
//
// For a Deployment, facts.deployment holds:
//   - replicas: spec.replicas after defaulting;
//   - strategy: RollingUpdate or Recreate;
//   - maxSurge, maxUnavailable: deploymentutil.ResolveFenceposts of the
//     rolling-update parameters (surge rounds up, unavailable rounds down,
//     and 0/0 becomes 0/1). Example: replicas 3, 25%/25% gives 1/0;
//     replicas 1, maxSurge 0, maxUnavailable 25% gives 0/0, forced to 0/1;
//   - maxUnavailableClamped: deploymentutil.MaxUnavailable, the fencepost
//     clamped to replicas (0 when replicas is 0), which the controller uses;
//   - minAvailable: deploymentutil.MinAvailable = replicas − maxUnavailableClamped.
func Facts(versioned runtime.Object) map[string]any {
	d, ok := versioned.(*appsv1.Deployment)
	if !ok || d.Spec.Replicas == nil {
		return nil
	}
	dep := map[string]any{
		"replicas": *d.Spec.Replicas,
		"strategy": string(d.Spec.Strategy.Type),
	}
	if ru := d.Spec.Strategy.RollingUpdate; d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType && ru != nil {
		surge, unavailable, err := deploymentutil.ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, *d.Spec.Replicas)
		if err != nil {
			return nil // an invalid percentage: the API tier reports it
		}
		dep["maxSurge"] = surge
		dep["maxUnavailable"] = unavailable
		dep["maxSurgeInput"] = ru.MaxSurge.String()
		dep["maxUnavailableInput"] = ru.MaxUnavailable.String()
		dep["maxUnavailableClamped"] = deploymentutil.MaxUnavailable(*d)
		dep["minAvailable"] = deploymentutil.MinAvailable(d)
	}
	return map[string]any{"deployment": dep}
}
