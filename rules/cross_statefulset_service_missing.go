package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// statefulsetServiceMissingRule is statefulset/service-missing.
var statefulsetServiceMissingRule = BuiltinRule{
	Meta: Rule{
		ID:       "statefulset/service-missing",
		Title:    "StatefulSet's governing Service is missing",
		Severity: SeverityWarning,
		Kinds:    []string{"StatefulSet"},
		File:     "cross_statefulset_service_missing.go",
		OptIn:    true,
		Measured: "0 of 4 true on 4 inputs: Argo CD does not use its pods' DNS names",
		Description: `A StatefulSet's spec.serviceName names the headless Service that gives each
pod a stable DNS name, <pod>.<serviceName>.<namespace>.svc. The StatefulSet
is created without it (serviceName is optional, validated only as a DNS
label when set, and never checked against existing Services), and the
StatefulSet controller still sets each pod's subdomain to it, but cluster
DNS publishes no per-pod records until a headless Service of that name
selects the pods. Reported when the input
holds Services in the StatefulSet's namespace but none with that name;
when the input holds no Service there, the rule stays silent.`,
		Remediation: "Add a headless Service (clusterIP None) named as spec.serviceName whose selector selects the StatefulSet's pods, or correct spec.serviceName.",
	},
	Cross: statefulsetServiceMissing,
}

// statefulsetServiceMissing reports a StatefulSet whose spec.serviceName
// names no Service of its namespace, when the namespace holds Services.
func statefulsetServiceMissing(c *CrossContext) []Finding {
	sts, ok := c.Self.Written.(*appsv1.StatefulSet)
	if !ok || sts.Spec.ServiceName == "" || !c.NS.Has("Service") || c.NS.Get(Key("Service", sts.Spec.ServiceName)) != nil {
		return nil
	}
	name, svc, ns := c.Self.Name, sts.Spec.ServiceName, c.NS.Name
	hint := ""
	if services := c.NS.SelectorsMatching(c.Self.TemplateLabels, "Service"); len(services) > 0 {
		hint = fmt.Sprintf(" (%s selects its pods)", DescribeList(KeysOf(services)))
	}
	return []Finding{{
		Message: fmt.Sprintf("StatefulSet %s names Service %s in spec.serviceName, but no Service of the input in namespace %s (it holds %s) is called %s%s: its pods get no stable DNS names such as %s-0.%s.%s.svc",
			name, svc, ns, Quantity(int64(c.NS.Count("Service")), "Service"), svc, hint, name, svc, ns),
		Path: "spec.serviceName",
	}}
}
