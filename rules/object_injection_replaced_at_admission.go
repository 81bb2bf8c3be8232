package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// RuleInjected is injection/replaced-at-admission's id: lint keeps its
// finding about an injected container when it leaves out the others.
const RuleInjected = "injection/replaced-at-admission"

// injectionReplacedAtAdmissionRule is injection/replaced-at-admission.
var injectionReplacedAtAdmissionRule = BuiltinRule{
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
