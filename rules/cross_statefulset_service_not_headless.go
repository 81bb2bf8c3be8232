package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// statefulsetServiceNotHeadlessRule is statefulset/service-not-headless.
var statefulsetServiceNotHeadlessRule = BuiltinRule{
	Meta: Rule{
		ID:       "statefulset/service-not-headless",
		Title:    "StatefulSet's governing Service is not headless",
		Severity: SeverityWarning,
		Kinds:    []string{"StatefulSet"},
		File:     "cross_statefulset_service_not_headless.go",
		Measured: "1 of 1 true",
		Description: `A StatefulSet's spec.serviceName names the governing Service that gives each
pod a stable DNS name, <pod>.<serviceName>.<namespace>.svc: the StatefulSet
controller sets each pod's hostname and subdomain to it, and cluster DNS
publishes per-pod records only for a headless Service (clusterIP: None)
whose selector selects the pods. When the Service of that name in the input
has a cluster IP (clusterIP unset, or an address) or is an ExternalName
Service, the pods get no stable DNS names, and peers that find each other
by them (databases, quorum systems) cannot.`,
		Remediation: "Set clusterIP to None in the Service that spec.serviceName names, or point spec.serviceName at a headless Service (a separate Service can keep a cluster IP for clients).",
	},
	Cross: statefulsetServiceNotHeadless,
}

// statefulsetServiceNotHeadless reports a StatefulSet whose governing
// Service in the input has a cluster IP or is an ExternalName Service.
func statefulsetServiceNotHeadless(c *CrossContext) []Finding {
	sts, ok := c.Self.Written.(*appsv1.StatefulSet)
	if !ok || sts.Spec.ServiceName == "" {
		return nil
	}
	e := c.NS.Get(Key("Service", sts.Spec.ServiceName))
	if e == nil {
		return nil
	}
	svc, ok := e.Object.(*corev1.Service)
	if !ok || headless(&svc.Spec) {
		return nil
	}
	why := "clusterIP unset, so the API server allocates one"
	switch {
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		why = "type ExternalName"
	case svc.Spec.ClusterIP != "":
		why = "clusterIP " + svc.Spec.ClusterIP
	}
	replicas := int64(1)
	if d, ok := c.Self.Object.(*appsv1.StatefulSet); ok && d.Spec.Replicas != nil {
		replicas = int64(*d.Spec.Replicas)
	}
	name, ns := c.Self.Name, c.NS.Name
	return []Finding{{
		Message: fmt.Sprintf("StatefulSet %s names Service %s in spec.serviceName, but that Service is not headless (%s): its pods (%s) get no stable DNS names such as %s-0.%s.%s.svc",
			name, sts.Spec.ServiceName, why, Quantity(replicas, "replica"), name, sts.Spec.ServiceName, ns),
		Path: "spec.serviceName",
	}}
}

// headless reports whether a Service as written is headless: clusterIP
// None, or, written with clusterIPs only, None first.
func headless(spec *corev1.ServiceSpec) bool {
	if spec.ClusterIP == corev1.ClusterIPNone {
		return true
	}
	return spec.ClusterIP == "" && len(spec.ClusterIPs) > 0 && spec.ClusterIPs[0] == corev1.ClusterIPNone
}
