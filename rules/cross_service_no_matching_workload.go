package rules

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serviceNoMatchingWorkloadRule is service/no-matching-workload.
var serviceNoMatchingWorkloadRule = BuiltinRule{
	Meta: Rule{
		ID:       "service/no-matching-workload",
		Title:    "Service selects no workload",
		Severity: SeverityWarning,
		Kinds:    []string{"Service"},
		File:     "cross_service_no_matching_workload.go",
		Description: `A Service with a selector gets its endpoints from the pods that the selector
matches (the EndpointSlice controller lists pods in the Service's namespace
by spec.selector, every key=value pair required). When no workload of the
input in that namespace (the pod template of a Deployment, ReplicaSet,
StatefulSet, DaemonSet, Job, CronJob or ReplicationController, or a Pod's
labels) carries every label of the selector, the Service has no endpoints
and connections to it are refused: usually a typo or a label changed on one
side only. Services without a selector (ExternalName, or endpoints managed
by hand) are not checked. The rule reports only when the input shows which
workload the Service was meant for: one named like the Service, or one
whose pod template carries every key=value pair of the selector but one.
When the input holds no such workload in the namespace (none at all, or
only unrelated ones, as when the Service fronts pods of a separately
installed chart or operator), it stays silent: the Service's pods are
defined elsewhere. A selector whose value is a few edits away from a
workload's label (chekout for checkout) is reported with a "did you mean".
Labels the workload's own controller adds to every pod it creates
(statefulset.kubernetes.io/pod-name, pod-template-hash, job-name, ...)
count as carried. A selector whose extra label the pod template does not
set at all (role=primary) is reported as information only: an operator
(a database operator marking its primary, a leader election) may set it
on the running pods, which no manifest shows, so the rule cannot tell a
forgotten label from one set at run time.`,
		Remediation: "Make spec.selector match the pod template labels of the workload the Service is for.",
	},
	Cross: serviceNoMatchingWorkload,
}

// controllerLabels are the labels Kubernetes' own controllers add to the
// pods they create, which pod templates do not carry: the Deployment
// controller's pod-template-hash, the StatefulSet controller's
// controller-revision-hash, statefulset.kubernetes.io/pod-name and
// apps.kubernetes.io/pod-index, the DaemonSet controller's
// controller-revision-hash, and the Job controller's job-name,
// controller-uid and completion index.
var controllerLabels = func() map[string]map[string]bool {
	job := map[string]bool{"job-name": true, "controller-uid": true, "batch.kubernetes.io/job-name": true,
		"batch.kubernetes.io/controller-uid": true, "batch.kubernetes.io/job-completion-index": true}
	return map[string]map[string]bool{
		"Deployment":  {appsDefaultDeploymentUniqueLabelKey: true},
		"StatefulSet": {"controller-revision-hash": true, "statefulset.kubernetes.io/pod-name": true, "apps.kubernetes.io/pod-index": true},
		"DaemonSet":   {"controller-revision-hash": true},
		"Job":         job,
		"CronJob":     job,
	}
}()

const appsDefaultDeploymentUniqueLabelKey = "pod-template-hash"

// serviceNoMatchingWorkload reports a Service whose selector selects no
// workload's pods, when the input shows what it was meant for: as info when
// the workload lacks only labels an operator may set at run time, and not
// at all when it lacks only labels its own controller adds.
func serviceNoMatchingWorkload(c *CrossContext) []Finding {
	svc, ok := c.Self.Written.(*corev1.Service)
	if !ok || svc.Spec.Type == corev1.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 || c.NS.Workloads() == 0 {
		return nil
	}
	selector := svc.Spec.Selector
	if c.NS.SelectsWorkload(&metav1.LabelSelector{MatchLabels: selector}) {
		return nil
	}
	shown, count := c.NS.Intended(selector, c.Self.Name)
	hint := c.NS.typoHint(&metav1.LabelSelector{MatchLabels: selector})
	prefix := fmt.Sprintf("Service %s selects %s", displayName(c.Self), FormatLabels(selector))
	matchesNothing := fmt.Sprintf("%s, which matches no pod template or Pod of the %s in namespace %s, so the Service has no endpoints",
		prefix, Quantity(int64(c.NS.Workloads()), "workload"), c.NS.Name)
	if count == 0 {
		if hint == "" {
			return nil
		}
		return []Finding{{Message: matchesNothing + hint, Path: "spec.selector"}}
	}
	// lacking are the selector's keys a workload's pod labels do not set;
	// differing those they set to another value.
	lacking := func(key string) (lacking []string, differing int) {
		labels := c.NS.Get(key).PodLabels()
		for k, v := range selector {
			got, ok := labels[k]
			switch {
			case !ok:
				lacking = append(lacking, k)
			case got != v:
				differing++
			}
		}
		sort.Strings(lacking)
		return lacking, differing
	}
	operator := ""
	for _, key := range shown {
		l, d := lacking(key)
		if d > 0 || len(l) == 0 {
			continue
		}
		kind, _, _ := strings.Cut(key, "/")
		atRunTime := true
		for _, k := range l {
			atRunTime = atRunTime && controllerLabels[kind][k]
		}
		if atRunTime {
			return nil // its own controller adds the labels: the Service selects the pods once they run
		}
		if operator == "" {
			operator = key
		}
	}
	if operator != "" {
		l, _ := lacking(operator)
		return []Finding{{
			Message: fmt.Sprintf("%s; %s carries every label of it but %s, which its pod template does not set: the Service has endpoints only if something (an operator) labels the pods at run time",
				prefix, Describe(operator), strings.Join(l, ", ")),
			Path:     "spec.selector",
			Severity: SeverityInfo,
		}}
	}
	return []Finding{{
		Message: fmt.Sprintf("%s; it was probably meant for %s%s", matchesNothing, c.NS.DescribeIntended(shown, count), hint),
		Path:    "spec.selector",
	}}
}
