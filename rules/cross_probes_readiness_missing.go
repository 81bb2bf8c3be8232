package rules

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// probesReadinessMissingRule is probes/readiness-missing.
var probesReadinessMissingRule = BuiltinRule{
	Meta: Rule{
		ID:       "probes/readiness-missing",
		Title:    "Container behind a Service without a readiness probe",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Pod"},
		File:     "cross_probes_readiness_missing.go",
		OptIn:    true,
		Measured: "0 of 3 true on 3 inputs: metrics scrape targets, not user traffic",
		Description: `A Service sends connections to the pods it selects once they are Ready,
and the kubelet marks a running container without a readinessProbe
ready at once and for as long as it runs (a startupProbe only delays the
first time): the EndpointSlice controller then keeps the pod among the
Service's endpoints while its container starts up, warms up, is
overloaded or has lost its database, and clients get errors instead of
being sent to another pod. Reported for each container a Service of the
input in the workload's namespace targets (the container declaring the
Service port's targetPort, by name or number; the only container of the
pod when none declares a numeric one) that has no readinessProbe.
rollout/no-readiness-probe reports a rolling update whose pods have no
readiness or startup probe at all; this rule leaves those workloads to
it. Objects owned by a controller are left to their owner, and workloads
with 0 replicas are left out.`,
		Remediation: "Add a readinessProbe to the container that fails while it cannot serve requests (an HTTP GET on a health endpoint that checks what the container needs).",
	},
	Cross: probesReadinessMissing,
}

// probesReadinessMissing reports each container without a readinessProbe
// that a Service of the input sends connections to.
func probesReadinessMissing(c *CrossContext) []Finding {
	switch c.Self.Kind {
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Pod":
	default:
		return nil
	}
	if ownedByController(c.Self) {
		return nil
	}
	// The inventory's entry of the key (of two objects with one Kind/name,
	// the last), read only when it carries the object's own pod labels.
	me := c.NS.Get(c.Self.Key)
	podLabels, podSpecPath := c.Self.TemplateLabels, "spec.template.spec"
	if c.Self.Kind == "Pod" {
		podLabels, podSpecPath = nil, "spec"
		if m, err := meta.Accessor(c.Self.Written); err == nil {
			podLabels = m.GetLabels()
		}
	}
	if me == nil || me.Pods == nil || !maps.Equal(me.PodLabels(), podLabels) {
		return nil
	}
	pods := me.Pods
	replicas, rolling := int32(1), false
	switch t := c.Self.Object.(type) {
	case *appsv1.Deployment:
		replicas, _ = derefInt32(t.Spec.Replicas)
		rolling = t.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
	case *appsv1.StatefulSet:
		replicas, _ = derefInt32(t.Spec.Replicas)
		rolling = t.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType
	case *appsv1.DaemonSet:
		rolling = t.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType
	case *appsv1.ReplicaSet:
		replicas, _ = derefInt32(t.Spec.Replicas)
	case *corev1.ReplicationController:
		replicas, _ = derefInt32(t.Spec.Replicas)
	}
	// A rolling update whose pods have neither readiness nor startup
	// probes is rollout/no-readiness-probe's.
	if replicas <= 0 || len(pods.Unready) == 0 || (rolling && !pods.Probed) {
		return nil
	}
	names := readinessTargets(c.NS, me.PodLabels(), pods)
	var out []Finding
	for i, svcs := range names {
		if len(svcs) == 0 {
			continue
		}
		ct := pods.Unready[i]
		text := strings.Join(svcs[:min(len(svcs), maxRelatedNamed)], ", ")
		if len(svcs) > maxRelatedNamed {
			text += fmt.Sprintf(" and %d more", len(svcs)-maxRelatedNamed)
		}
		label, serviceWord, sendWord := "container", "Service", "sends"
		if ct.Field != "containers" {
			label = "sidecar init container"
		}
		if len(svcs) != 1 {
			serviceWord, sendWord = "Services", "send"
		}
		phrase := "starts, is overloaded or cannot reach what it depends on"
		if ct.Startup {
			phrase = "is overloaded or cannot reach what it depends on, once its startupProbe has succeeded"
		}
		f := Finding{
			Message: fmt.Sprintf("%s %q has no readinessProbe, but %s %s %s connections to it: the pod stays among the endpoints while the container %s, so clients get errors instead of another pod",
				label, ct.Name, serviceWord, text, sendWord, phrase),
			Path: fmt.Sprintf("%s.%s[%d]", podSpecPath, ct.Field, ct.Index),
		}
		if len(svcs) > maxRelatedNamed {
			f.Related = len(svcs)
		}
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// readinessTargets returns, for each container of pods without a
// readinessProbe (pods.Unready), the sorted names of the Services of ns
// whose selector selects podLabels and that send connections to it. The
// answer is computed once per distinct pod labels and pod summary
// (Namespace.Shared): in a namespace of n alike workloads and Services,
// each of the n workloads would otherwise match all n Services.
func readinessTargets(ns *Namespace, podLabels map[string]string, pods *podSummary) [][]string {
	var key strings.Builder
	key.WriteString("probes/readiness-missing\x00")
	writeLabelsKey(&key, podLabels)
	writePodSummaryKey(&key, pods)
	return ns.Shared(key.String(), func() any {
		sets := make([]map[string]bool, len(pods.Unready))
		for _, svc := range ns.SelectorsMatching(podLabels, "Service") {
			s, ok := svc.Object.(*corev1.Service)
			if !ok {
				continue
			}
			for _, sp := range s.Spec.Ports {
				for i, ct := range pods.Unready {
					if targetsContainer(sp, ct, pods) {
						if sets[i] == nil {
							sets[i] = map[string]bool{}
						}
						sets[i][svc.Name] = true
					}
				}
			}
		}
		names := make([][]string, len(sets))
		for i, set := range sets {
			if len(set) > 0 {
				names[i] = sortedKeys(set)
			}
		}
		return names
	}).([][]string)
}

// writePodSummaryKey writes, as a memo key, what targetsContainer reads of
// a pod summary: its ports, its regular container count and, for each
// container without a readinessProbe, its field and ports.
func writePodSummaryKey(b *strings.Builder, pods *podSummary) {
	b.WriteByte(0)
	for _, n := range pods.PortNames {
		writeKeyString(b, n)
	}
	b.WriteByte(0)
	for _, n := range pods.PortNumbers {
		b.WriteString(strconv.FormatInt(n, 10))
		b.WriteByte(',')
	}
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(pods.Regular))
	for _, ct := range pods.Unready {
		b.WriteByte(0)
		writeKeyString(b, ct.Field)
		for _, n := range ct.PortNames {
			writeKeyString(b, n)
		}
		b.WriteByte(';')
		for _, n := range ct.PortNumbers {
			b.WriteString(strconv.FormatInt(n, 10))
			b.WriteByte(',')
		}
	}
}

// targetsContainer reports whether the Service port sp sends to container
// ct of a pod summarized by pods: ct declares its named targetPort (name
// and protocol, as podutil.FindPort matches them), or its numeric one, or
// no container declares that number and ct is the pod's only container.
func targetsContainer(sp corev1.ServicePort, ct containerSummary, pods *podSummary) bool {
	target := sp.TargetPort
	if target.Type == intstr.Int && target.IntVal == 0 {
		target = intstr.FromInt32(sp.Port) // unset: the port itself
	}
	if target.Type == intstr.String {
		proto := string(sp.Protocol)
		if proto == "" {
			proto = string(corev1.ProtocolTCP)
		}
		return slices.Contains(ct.PortNames, target.StrVal+"/"+proto)
	}
	n := int64(target.IntVal)
	if slices.Contains(ct.PortNumbers, n) {
		return true
	}
	return !slices.Contains(pods.PortNumbers, n) && pods.Regular == 1 && ct.Field == "containers"
}

// derefInt32 is *p, 1 when p is nil (the default replica count), and
// whether p was set.
func derefInt32(p *int32) (int32, bool) {
	if p == nil {
		return 1, false
	}
	return *p, true
}
