package rules

import (
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// daemonsetSurgeWithHostportRule is daemonset/surge-with-hostport.
var daemonsetSurgeWithHostportRule = BuiltinRule{
	Meta: Rule{
		ID:       "daemonset/surge-with-hostport",
		Title:    "DaemonSet surges pods that need a host port",
		Severity: SeverityError,
		Kinds:    []string{"DaemonSet"},
		File:     "object_daemonset_surge_with_hostport.go",
		Description: `With a RollingUpdate maxSurge other than 0 (an integer above 0 or a
percentage above 0%, which SurgeCount rounds up against the number of
nodes), the DaemonSet controller creates the updated pod on a node while the
old, available pod still runs there, and deletes the old pod only once the
new one is available (maxUnavailable must then be 0). A pod that asks for a
host port cannot share a node with another pod holding the same port: the
scheduler's NodePorts filter rejects the node, and since a DaemonSet pod may
only go to its own node, the new pod stays Pending, the old one is never
deleted, and the rollout stalls on the first maxSurge nodes. Host ports are
the hostPort of the ports of containers and of sidecar init containers
(restartPolicy Always), which the scheduler counts; with hostNetwork every
containerPort is also a host port (the API server defaults hostPort to it).`,
		Remediation: "Use maxSurge 0 with maxUnavailable 1 (the default) for DaemonSets whose pods take host ports, so that the old pod frees the port before the new one starts.",
	},
	Check: checkSurgeWithHostPort,
}

// checkSurgeWithHostPort reports each host port (hostPort written, or every
// containerPort under hostNetwork) of the containers and sidecar init
// containers of a DaemonSet that surges (maxSurge above 0 after defaulting)
// in a RollingUpdate.
func checkSurgeWithHostPort(c *ObjectContext) []Finding {
	ds, ok := c.Object.(*appsv1.DaemonSet)
	if !ok || ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
		return nil
	}
	surge := intstr.FromInt32(0)
	if ru := ds.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxSurge != nil {
		surge = *ru.MaxSurge
	}
	if !positive(surge) {
		return nil
	}
	spec := &ds.Spec.Template.Spec
	written, _ := podSpecOf(c.Written())
	var out []Finding
	for _, pc := range podContainers(spec, []string{"spec", "template", "spec"}) {
		label := "container"
		if pc.field == fieldInitContainers {
			if pc.c.RestartPolicy == nil || *pc.c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
				continue
			}
			label = "sidecar init container"
		}
		for j, p := range pc.c.Ports {
			// The defaulted object copies containerPort to hostPort under
			// hostNetwork; the message tells the two apart, as written.
			hostPort, via, field := writtenHostPort(written, pc, j), "", "hostPort"
			if hostPort <= 0 {
				if !spec.HostNetwork {
					continue
				}
				hostPort, via, field = p.ContainerPort, ", a host port because of hostNetwork", "containerPort"
			}
			// The defaulted protocol: TCP unless written.
			protocol := p.Protocol
			out = append(out, Finding{
				Path: fmt.Sprintf("spec.template.spec.%s[%d].ports[%d].%s", pc.field, pc.index, j, field),
				Message: fmt.Sprintf("maxSurge %s makes the controller start the updated pod on a node while the old one still runs there, but both need host port %d/%s (%s %q%s): the scheduler leaves the new pod Pending, the old pod is deleted only once the new one is available, so the rollout stalls",
					surge.String(), hostPort, protocol, label, pc.c.Name, via),
			})
		}
	}
	return out
}

// positive is true for an integer above 0 or a percentage above 0%.
func positive(v intstr.IntOrString) bool {
	if v.Type == intstr.Int {
		return v.IntVal > 0
	}
	s, ok := strings.CutSuffix(v.StrVal, "%")
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f > 0
}

// writtenHostPort is the hostPort of port j of container pc as written, 0
// when it is not: under hostNetwork the defaulted object copies every
// containerPort to hostPort, and the message tells the two apart.
func writtenHostPort(written *corev1.PodSpec, pc podContainer, j int) int32 {
	if written == nil {
		return 0
	}
	list := written.Containers
	if pc.field == fieldInitContainers {
		list = written.InitContainers
	}
	if pc.index >= len(list) || j >= len(list[pc.index].Ports) {
		return 0
	}
	return list[pc.index].Ports[j].HostPort
}
