package rules

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// DeploymentFacts are a Deployment's values computed with the Deployment
// controller's exported helpers (see DeploymentFactsOf): rules must not
// re-derive them.
type DeploymentFacts struct {
	// Replicas is spec.replicas after defaulting.
	Replicas int32
	// Strategy is RollingUpdate or Recreate.
	Strategy appsv1.DeploymentStrategyType
	// Rolling is set for the RollingUpdate strategy: then MaxSurge and
	// MaxUnavailable are deploymentutil.ResolveFenceposts' results,
	// MaxUnavailableClamped deploymentutil.MaxUnavailable's and
	// MinAvailable deploymentutil.MinAvailable's.
	Rolling                                                       bool
	MaxSurge, MaxUnavailable, MaxUnavailableClamped, MinAvailable int32
}

// DeploymentFactsOf computes, with the Deployment controller's own exported
// helpers, the values rules must not re-derive. versioned is the decoded
// and defaulted object (apicheck's Result.Versioned); DeploymentFactsOf
// returns nil for another kind, or a Deployment without spec.replicas.
//
//   - MaxSurge, MaxUnavailable: deploymentutil.ResolveFenceposts of the
//     rolling-update parameters (surge rounds up, unavailable rounds down,
//     and 0/0 becomes 0/1). Example: replicas 3, 25%/25% gives 1/0;
//     replicas 1, maxSurge 0, maxUnavailable 25% gives 0/0, forced to 0/1;
//   - MaxUnavailableClamped: deploymentutil.MaxUnavailable, the fencepost
//     clamped to replicas (0 when replicas is 0), which the controller uses;
//   - MinAvailable: deploymentutil.MinAvailable = replicas − MaxUnavailableClamped.
//
// It returns nil for an invalid percentage too (the API tier reports it).
func DeploymentFactsOf(versioned runtime.Object) *DeploymentFacts {
	d, ok := versioned.(*appsv1.Deployment)
	if !ok || d.Spec.Replicas == nil {
		return nil
	}
	f := &DeploymentFacts{Replicas: *d.Spec.Replicas, Strategy: d.Spec.Strategy.Type}
	if ru := d.Spec.Strategy.RollingUpdate; d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType && ru != nil {
		surge, unavailable, err := deploymentutil.ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, *d.Spec.Replicas)
		if err != nil {
			return nil
		}
		f.Rolling = true
		f.MaxSurge, f.MaxUnavailable = surge, unavailable
		f.MaxUnavailableClamped = deploymentutil.MaxUnavailable(*d)
		f.MinAvailable = deploymentutil.MinAvailable(d)
	}
	return f
}
