package kernel

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
)

// The documented timing defaults of the simulated world.
const (
	// ContainerStart is how long a created pod takes to have its containers running: image
	// pull from a warm node cache, sandbox and container start. Readiness probes count from it.
	ContainerStart = 2 * time.Second
	// DefaultTerminateAfter is how long a deleted pod keeps running when it has no preStop
	// sleep: the time a well-behaved server takes to drain on SIGTERM. It is bounded by
	// terminationGracePeriodSeconds.
	DefaultTerminateAfter = 5 * time.Second
)

// DeriveReadyAfter is when a new pod of tpl becomes Ready, from its probes: ContainerStart, then
// for each container its startup probe (initialDelaySeconds + (successThreshold−1) ×
// periodSeconds) and its readiness probe (the same), the slowest container deciding. It returns
// the duration and how it was derived.
//
// Example: a readiness probe with initialDelaySeconds 5, periodSeconds 10, successThreshold 3
// gives 2s + 5s + 2 × 10s = 27s.
func DeriveReadyAfter(tpl *v1.PodTemplateSpec) (time.Duration, string) {
	slowest := time.Duration(0)
	why := "no readiness probe"
	for _, c := range tpl.Spec.Containers {
		d := time.Duration(0)
		var parts []string
		if p := c.StartupProbe; p != nil {
			pd := probeDelay(p)
			d += pd
			parts = append(parts, fmt.Sprintf("startupProbe %s", explainProbe(p, pd)))
		}
		if p := c.ReadinessProbe; p != nil {
			pd := probeDelay(p)
			d += pd
			parts = append(parts, fmt.Sprintf("readinessProbe %s", explainProbe(p, pd)))
		}
		if len(parts) > 0 && (d > slowest || why == "no readiness probe") {
			slowest = d
			why = fmt.Sprintf("container %s: %s", c.Name, strings.Join(parts, ", "))
		}
	}
	return ContainerStart + slowest, fmt.Sprintf("container start %s + %s", ContainerStart, why)
}

// probeDelay is when a probe first reaches successThreshold successes after the container
// starts: the first probe runs after initialDelaySeconds, then one every periodSeconds.
func probeDelay(p *v1.Probe) time.Duration {
	threshold := max(p.SuccessThreshold, 1)
	return time.Duration(p.InitialDelaySeconds)*time.Second + time.Duration(threshold-1)*time.Duration(p.PeriodSeconds)*time.Second
}

func explainProbe(p *v1.Probe, d time.Duration) string {
	threshold := max(p.SuccessThreshold, 1)
	if threshold == 1 {
		return fmt.Sprintf("initialDelaySeconds %d = %s", p.InitialDelaySeconds, d)
	}
	return fmt.Sprintf("initialDelaySeconds %d + (successThreshold %d − 1) × periodSeconds %d = %s", p.InitialDelaySeconds, threshold, p.PeriodSeconds, d)
}

// DeriveTerminateAfter is how long a deleted pod of tpl keeps running: DefaultTerminateAfter,
// or the longest preStop sleep when that is longer, never beyond terminationGracePeriodSeconds
// (after which the kubelet kills it).
//
// Example: a preStop sleep of 20s with the default grace period of 30s gives 20s; a grace
// period of 3s gives 3s.
func DeriveTerminateAfter(tpl *v1.PodTemplateSpec) (time.Duration, string) {
	d, why := DefaultTerminateAfter, "default drain time"
	for _, c := range tpl.Spec.Containers {
		if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
			continue
		}
		if s := time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second; s > d {
			d, why = s, fmt.Sprintf("container %s: preStop sleep %s", c.Name, s)
		}
	}
	if g := tpl.Spec.TerminationGracePeriodSeconds; g != nil {
		if grace := time.Duration(*g) * time.Second; grace < d {
			return grace, fmt.Sprintf("%s, cut to terminationGracePeriodSeconds %d", why, *g)
		}
	}
	return d, why
}

// BoundTerminateAfter bounds a terminating time given with --terminate-after by tpl's
// terminationGracePeriodSeconds, as the kubelet kills a pod at the end of its grace period.
// It returns the duration and how it was decided.
//
// Example: --terminate-after 1m with the default grace period of 30s gives 30s.
func BoundTerminateAfter(tpl *v1.PodTemplateSpec, d time.Duration) (time.Duration, string) {
	if g := tpl.Spec.TerminationGracePeriodSeconds; g != nil {
		if grace := time.Duration(*g) * time.Second; grace < d {
			return grace, fmt.Sprintf("--terminate-after %s, cut to terminationGracePeriodSeconds %d", d, *g)
		}
	}
	return d, "--terminate-after"
}
