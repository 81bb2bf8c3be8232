package podsecurity

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/pod-security-admission/api"
)

func TestEvaluate(t *testing.T) {
	yes := true
	tests := []struct {
		name           string
		obj            runtime.Object
		wantOK         bool
		wantBaseline   string
		wantViolations []string // level field: message
	}{
		{
			name:   "a Service has no pods",
			obj:    &corev1.Service{},
			wantOK: false,
		},
		{
			name: "privileged init container and a hostPath volume, in a Deployment",
			obj: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &yes,
					SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
				InitContainers: []corev1.Container{{Name: "setup", SecurityContext: &corev1.SecurityContext{Privileged: &yes}}},
				Containers: []corev1.Container{{Name: "web", SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: new(bool), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}},
				Volumes: []corev1.Volume{{Name: "logs", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log"}}}},
			}}}},
			wantOK: true,
			// Admission's order: the checks as registered.
			wantBaseline: `hostPath volumes (volume "logs"), privileged (container "setup" must not set securityContext.privileged=true)`,
			// restrictedVolumes, which overrides hostPathVolumes, is not reported again.
			wantViolations: []string{
				`restricted spec.template.spec.initContainers[0].securityContext.allowPrivilegeEscalation: allowPrivilegeEscalation != false (container "setup" must set securityContext.allowPrivilegeEscalation=false)`,
				`restricted spec.template.spec.initContainers[0].securityContext.capabilities: unrestricted capabilities (container "setup" must set securityContext.capabilities.drop=["ALL"])`,
				`baseline spec.template.spec.volumes[0].hostPath: hostPath volumes (volume "logs")`,
				`baseline spec.template.spec.initContainers[0].securityContext.privileged: privileged (container "setup" must not set securityContext.privileged=true)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ok, err := Evaluate(tt.obj, api.LevelBaseline, api.LevelRestricted)
			if err != nil || ok != tt.wantOK {
				t.Fatalf("Evaluate() ok = %v, err = %v; want ok %v", ok, err, tt.wantOK)
			}
			if res.Detail(api.LevelBaseline) != tt.wantBaseline {
				t.Errorf("baseline detail = %q, want %q", res.Detail(api.LevelBaseline), tt.wantBaseline)
			}
			var got []string
			for _, v := range res.Violations {
				got = append(got, string(v.Level)+" "+v.Field+": "+v.Message)
			}
			if strings.Join(got, "\n") != strings.Join(tt.wantViolations, "\n") {
				t.Errorf("violations =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.wantViolations, "\n"))
			}
		})
	}
}
