package rules

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// rolloutNoReadinessProbeRule is rollout/no-readiness-probe.
var rolloutNoReadinessProbeRule = BuiltinRule{
	Meta: Rule{
		ID:       "rollout/no-readiness-probe",
		Title:    "Rolling update without any readiness probe",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet"},
		File:     "object_rollout_no_readiness_probe.go",
		Measured: "28 of 28 true on 19 inputs",
		Description: `The kubelet marks a started container without a readinessProbe ready at once
(prober manager: no readiness worker, ready), so a pod whose containers have
no readinessProbe is Ready as soon as its containers run, and available after
minReadySeconds. The rolling updates of Deployments, StatefulSets and
DaemonSets count exactly those ready or available pods: maxUnavailable (and a
StatefulSet's wait for each pod to be Running and Ready) then protects
nothing, since a new pod that does not serve yet counts as available and the
next old pod is stopped. Reported for the RollingUpdate strategy (the default
of all three kinds) when no container of the pod template has a
readinessProbe. Init containers are ignored, except sidecars (restartPolicy
Always), whose readiness counts towards the pod's. A startupProbe also keeps
its container unready until it succeeds, so a pod template with one is not
reported. Deployments and StatefulSets with 0 replicas are left out. A
container that a Service of the input sends connections to, without a
readinessProbe, in a workload this rule does not report (another
strategy, a bare Pod or ReplicationController, a startupProbe only) is
probes/readiness-missing. A pod template with a container a sidecar injector
replaces (injection/replaced-at-admission) gets the injector's readiness probe,
and is not reported.`,
		Remediation: "Add a readinessProbe to the serving container that succeeds only once it can handle requests, such as an HTTP GET on a health endpoint.",
	},
	Check: checkNoReadinessProbe,
}

// checkNoReadinessProbe reports a rolling Deployment, StatefulSet or
// DaemonSet (RollingUpdate after defaulting, replicas above 0) none of whose
// containers or sidecar init containers has a readinessProbe or a
// startupProbe; a Deployment's message gives
// deploymentutil.ResolveFenceposts' maxSurge and maxUnavailable.
func checkNoReadinessProbe(c *ObjectContext) []Finding {
	var spec *corev1.PodSpec
	var minReady int32
	var consequence string
	switch o := c.Object.(type) {
	case *appsv1.Deployment:
		if o.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ptrOr(o.Spec.Replicas, 1) <= 0 {
			return nil
		}
		spec, minReady = &o.Spec.Template.Spec, o.Spec.MinReadySeconds
		consequence = "the rolling update stops old pods while the new ones may not serve yet"
		if ru := o.Spec.Strategy.RollingUpdate; ru != nil && o.Spec.Replicas != nil {
			if maxSurge, maxUnavailable, err := deploymentutil.ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, *o.Spec.Replicas); err == nil {
				consequence = fmt.Sprintf("the rolling update (maxSurge %s = %d, maxUnavailable %s = %d of %d replicas) stops old pods while the new ones may not serve yet",
					ru.MaxSurge.String(), maxSurge, ru.MaxUnavailable.String(), maxUnavailable, *o.Spec.Replicas)
			}
		}
	case *appsv1.StatefulSet:
		if o.Spec.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType || ptrOr(o.Spec.Replicas, 1) <= 0 {
			return nil
		}
		spec, minReady = &o.Spec.Template.Spec, o.Spec.MinReadySeconds
		maxUnavailable := "1"
		if ru := o.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
			maxUnavailable = ru.MaxUnavailable.String()
		}
		consequence = fmt.Sprintf("the rolling update (maxUnavailable %s) moves on to the next pod while the replaced one may not serve yet", maxUnavailable)
	case *appsv1.DaemonSet:
		if o.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
			return nil
		}
		spec, minReady = &o.Spec.Template.Spec, o.Spec.MinReadySeconds
		maxUnavailable, maxSurge := "1", "0"
		if ru := o.Spec.UpdateStrategy.RollingUpdate; ru != nil {
			if ru.MaxUnavailable != nil {
				maxUnavailable = ru.MaxUnavailable.String()
			}
			if ru.MaxSurge != nil {
				maxSurge = ru.MaxSurge.String()
			}
		}
		consequence = fmt.Sprintf("the rolling update (maxUnavailable %s, maxSurge %s) moves on to further nodes while the new pods may not serve yet", maxUnavailable, maxSurge)
	default:
		return nil
	}
	// A container a sidecar injector replaces at admission gets the
	// injector's readiness probe (injection/replaced-at-admission).
	if len(spec.Containers) == 0 || len(injected(c.Object)) > 0 {
		return nil
	}
	var sidecars []*corev1.Container
	for i := range spec.InitContainers {
		if c := &spec.InitContainers[i]; c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars = append(sidecars, c)
		}
	}
	for i := range spec.Containers {
		if probed(&spec.Containers[i]) {
			return nil
		}
	}
	for _, c := range sidecars {
		if probed(c) {
			return nil
		}
	}
	containers := fmt.Sprintf("the only container (%s) has no readinessProbe and no startupProbe", spec.Containers[0].Name)
	if len(spec.Containers) != 1 {
		names := make([]string, len(spec.Containers))
		for i, c := range spec.Containers {
			names[i] = c.Name
		}
		containers = fmt.Sprintf("none of the %d containers (%s) has a readinessProbe or a startupProbe", len(spec.Containers), strings.Join(names, ", "))
	}
	sidecarNote := ""
	switch len(sidecars) {
	case 0:
	case 1:
		sidecarNote = " (nor does the sidecar init container)"
	default:
		sidecarNote = fmt.Sprintf(" (nor do the %d sidecar init containers)", len(sidecars))
	}
	return []Finding{{Path: "spec.template.spec.containers",
		Message: fmt.Sprintf("%s%s: a new pod is Ready as soon as its containers run and available after minReadySeconds %d, so %s",
			containers, sidecarNote, minReady, consequence)}}
}

func probed(c *corev1.Container) bool { return c.ReadinessProbe != nil || c.StartupProbe != nil }
