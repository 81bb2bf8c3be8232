package rules

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RuleInjected is injection/replaced-at-admission's id: lint keeps its
// finding about an injected container when it leaves out the others.
const RuleInjected = "injection/replaced-at-admission"

// injectionReplacedAtAdmissionRule is injection/replaced-at-admission.
var injectionReplacedAtAdmissionRule = GoRule{
	Meta: Rule{
		ID:       RuleInjected,
		Title:    "Container that a sidecar injector replaces at admission; not judged as written",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		File:     "object_injection_replaced_at_admission.go",
		Description: `A mutating admission webhook rewrites some pods before the API server
stores them. A pod template marked for injection (istio's
sidecar.istio.io/inject "true" label or annotation, istio.io/rev or the
inject.istio.io/templates annotation; linkerd.io/inject, Consul's
consul.hashicorp.com/connect-inject, kuma.io/sidecar-injection) that writes
a container named like the injector's own (istio-proxy, linkerd-proxy,
consul-dataplane, kuma-sidecar), or whose image is the placeholder auto
(istio's gateway chart), gets that container from the injector: its image,
ports, probes, resources and security context are the injector's, merged
over what the manifest writes. lint does not judge that container's fields
as written: the built-in rules' findings about it are left out, and this
one information says so, once per object.`,
		Remediation: "Nothing to do; lint a pod as the cluster created it (kubectl workload lint --live) to check the injected container.",
	},
	Check: checkInjected,
}

// injectors are the well-known sidecar injectors: the pod template labels or
// annotations that mark a pod for injection (a value of "" accepts any
// value but false/disabled), and the name of the container each injects.
var injectors = []struct {
	name      string
	markers   map[string]string
	container string
}{
	{"istio", map[string]string{"sidecar.istio.io/inject": "true", "istio.io/rev": "", "inject.istio.io/templates": ""}, "istio-proxy"},
	{"linkerd", map[string]string{"linkerd.io/inject": ""}, "linkerd-proxy"},
	{"consul", map[string]string{"consul.hashicorp.com/connect-inject": "true"}, "consul-dataplane"},
	{"kuma", map[string]string{"kuma.io/sidecar-injection": ""}, "kuma-sidecar"},
}

// injectedImage is the image a container the injector replaces writes:
// istio's gateway chart's placeholder.
const injectedImage = "auto"

// podMetaOf returns the metadata of a decoded object's pods: a pod
// template's, or a Pod's own.
func podMetaOf(obj runtime.Object) *metav1.ObjectMeta {
	switch o := obj.(type) {
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.ObjectMeta
	case *appsv1.Deployment:
		return &o.Spec.Template.ObjectMeta
	case *appsv1.StatefulSet:
		return &o.Spec.Template.ObjectMeta
	case *appsv1.DaemonSet:
		return &o.Spec.Template.ObjectMeta
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.ObjectMeta
	case *corev1.ReplicationController:
		if o.Spec.Template != nil {
			return &o.Spec.Template.ObjectMeta
		}
	case *batchv1.Job:
		return &o.Spec.Template.ObjectMeta
	case *corev1.PodTemplate:
		return &o.Template.ObjectMeta
	case *corev1.Pod:
		return &o.ObjectMeta
	}
	return nil
}

// injectedContainer is a container an injector replaces, with the marks
// that say so.
type injectedContainer struct {
	pc       podContainer
	injector string
	marks    []string
}

// injected lists the containers of obj's pods that an injector replaces.
func injected(obj runtime.Object) []injectedContainer {
	m := podMetaOf(obj)
	spec, specPath := podSpecOf(obj)
	if m == nil || spec == nil {
		return nil
	}
	var out []injectedContainer
	for _, inj := range injectors {
		var marks []string
		for key, want := range inj.markers {
			for _, set := range []map[string]string{m.Labels, m.Annotations} {
				v, ok := set[key]
				if !ok || want != "" && v != want || want == "" && (v == "false" || v == "disabled") {
					continue
				}
				marks = append(marks, fmt.Sprintf("%s: %q", key, v))
				break
			}
		}
		if len(marks) == 0 {
			continue
		}
		sort.Strings(marks)
		for _, pc := range podContainers(spec, specPath) {
			if pc.field == fieldContainers && (pc.c.Name == inj.container || pc.c.Image == injectedImage) {
				out = append(out, injectedContainer{pc: pc, injector: inj.name, marks: marks})
			}
		}
	}
	return out
}

// InjectedContainerPaths are the field paths of the containers of a
// decoded object's pods that a sidecar injector replaces at admission
// (spec.template.spec.containers[0]): findings about them are left out.
func InjectedContainerPaths(obj runtime.Object) []string {
	var out []string
	for _, ic := range injected(obj) {
		out = append(out, ic.pc.path)
	}
	return out
}

// checkInjected reports, once per object, the containers an injector
// replaces.
func checkInjected(c *ObjectContext) []Finding {
	ics := injected(c.Object)
	if len(ics) == 0 {
		return nil
	}
	var names []string
	for _, ic := range ics {
		names = append(names, fmt.Sprintf("%q (image %s)", ic.pc.c.Name, ic.pc.c.Image))
	}
	first := ics[0]
	return []Finding{{Path: first.pc.path + ".image", Severity: SeverityInfo,
		Message: fmt.Sprintf("%s %s: container %s is marked for the %s sidecar injector (%s), which replaces it at admission with its own image, ports, probes, resources and security context: lint does not judge its fields as written",
			c.Kind, c.Name, strings.Join(names, ", "), first.injector, strings.Join(first.marks, ", "))}}
}
