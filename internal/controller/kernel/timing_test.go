package kernel

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

func TestDeriveReadyAfter(t *testing.T) {
	probe := func(delay, period, success int32) *v1.Probe {
		return &v1.Probe{InitialDelaySeconds: delay, PeriodSeconds: period, SuccessThreshold: success}
	}
	tests := []struct {
		name       string
		containers []v1.Container
		want       time.Duration
	}{
		{name: "no probe", containers: []v1.Container{{Name: "a"}}, want: ContainerStart},
		{name: "readiness 5s", containers: []v1.Container{{Name: "a", ReadinessProbe: probe(5, 10, 1)}}, want: ContainerStart + 5*time.Second},
		{name: "readiness threshold 3", containers: []v1.Container{{Name: "a", ReadinessProbe: probe(5, 10, 3)}}, want: ContainerStart + 25*time.Second},
		{name: "startup then readiness", containers: []v1.Container{{Name: "a", StartupProbe: probe(10, 5, 1), ReadinessProbe: probe(0, 10, 1)}}, want: ContainerStart + 10*time.Second},
		{name: "slowest container decides", containers: []v1.Container{{Name: "a", ReadinessProbe: probe(3, 10, 1)}, {Name: "b", ReadinessProbe: probe(30, 10, 1)}}, want: ContainerStart + 30*time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := DeriveReadyAfter(&v1.PodTemplateSpec{Spec: v1.PodSpec{Containers: tt.containers}})
			if got != tt.want || why == "" {
				t.Errorf("DeriveReadyAfter() = %s (%s), want %s", got, why, tt.want)
			}
		})
	}
}

func TestDeriveTerminateAfter(t *testing.T) {
	grace := func(s int64) *int64 { return &s }
	sleep := func(s int64) *v1.Lifecycle {
		return &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: s}}}
	}
	tests := []struct {
		name string
		spec v1.PodSpec
		want time.Duration
	}{
		{name: "default", spec: v1.PodSpec{Containers: []v1.Container{{Name: "a"}}, TerminationGracePeriodSeconds: grace(30)}, want: DefaultTerminateAfter},
		{name: "preStop sleep 20", spec: v1.PodSpec{Containers: []v1.Container{{Name: "a", Lifecycle: sleep(20)}}, TerminationGracePeriodSeconds: grace(30)}, want: 20 * time.Second},
		{name: "grace period cuts", spec: v1.PodSpec{Containers: []v1.Container{{Name: "a", Lifecycle: sleep(20)}}, TerminationGracePeriodSeconds: grace(3)}, want: 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, why := DeriveTerminateAfter(&v1.PodTemplateSpec{Spec: tt.spec}); got != tt.want {
				t.Errorf("DeriveTerminateAfter() = %s (%s), want %s", got, why, tt.want)
			}
		})
	}
}
