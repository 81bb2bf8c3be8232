package rules

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/disruption"
)

// pdbNoScaleRule is pdb/no-scale.
var pdbNoScaleRule = BuiltinRule{
	Meta: Rule{
		ID:       "pdb/no-scale",
		Title:    "PodDisruptionBudget needs a scale its pods' controllers do not have",
		Severity: SeverityWarning,
		Kinds:    []string{"PodDisruptionBudget"},
		File:     "cross_pdb_no_scale.go",
		Description: `With maxUnavailable, or minAvailable as a percentage, the disruption
controller counts the pods it expects from the scale of the selected pods'
controllers (getExpectedPodCount and getExpectedScale in
pkg/controller/disruption). DaemonSets, Jobs and the Jobs of CronJobs have
no scale subresource: the sync fails ("daemonsets.apps does not implement
the scale subresource"), the budget's DisruptionAllowed condition says
SyncFailed, and disruptionsAllowed stays 0. Pods that no controller owns
are left out of the count: a budget that selects only such pods expects 0
and allows 0. Either way the Eviction API refuses every eviction of the
pods it selects (429), so kubectl drain, cluster autoscalers and node
upgrades wait forever on them. An integer minAvailable counts the selected
pods themselves and needs no scale. (maxUnavailable 0 and minAvailable 100%
are pdb/zero-disruptions.)`,
		Remediation: "Give the budget an integer minAvailable, which counts the selected pods and needs no scale, or select only pods of Deployments, StatefulSets, ReplicaSets or ReplicationControllers.",
	},
	Cross: pdbNoScale,
}

// pdbNoScale reports a budget whose expected pod count the disruption
// controller cannot compute, or computes as 0: it runs disruption's
// ExpectedPodCount, the mirror of getExpectedPodCount, on one pod for each
// workload the budget selects (owned as that workload's pods are) and each
// selected Pod that no controller owns.
func pdbNoScale(c *CrossContext) []Finding {
	pdb, ok := c.Self.Written.(*policyv1.PodDisruptionBudget)
	if !ok || pdb.Spec.Selector == nil {
		return nil
	}
	var field string
	switch mu, ma := pdb.Spec.MaxUnavailable, pdb.Spec.MinAvailable; {
	case mu != nil:
		if (mu.Type == intstr.Int && mu.IntVal == 0) || (mu.Type == intstr.String && mu.StrVal == "0%") {
			return nil // pdb/zero-disruptions
		}
		field = "maxUnavailable " + mu.String()
	case ma != nil && ma.Type == intstr.String:
		if ma.StrVal == "100%" {
			return nil // pdb/zero-disruptions
		}
		field = "minAvailable " + ma.StrVal
	default:
		return nil // an integer minAvailable needs no scale
	}
	path := "spec." + strings.SplitN(field, " ", 2)[0]
	// Every budget of a selector gets the same answer (both fields above
	// resolve against the controllers' scale): in a namespace of n alike
	// budgets over n alike workloads, it is computed once (ns.Shared).
	a := c.NS.Shared("pdb/no-scale\x00"+SelectorKey(pdb.Spec.Selector), func() any {
		pods, scales, noScale, bare := selectedPods(c.NS, pdb.Spec.Selector)
		a := noScaleAnswer{selected: len(pods), noScale: noScale, bare: bare}
		// The disruption controller's count can only fail on a controller
		// without a scale, or come to 0 on bare Pods alone: otherwise it
		// is not needed (and its scale lookups are linear per pod).
		if len(pods) > 0 && (len(noScale) > 0 || len(bare) == len(pods)) {
			a.expected, _, _, a.err = disruption.ExpectedPodCount(pdb, pods, scales)
		}
		return a
	}).(noScaleAnswer)
	if a.selected == 0 {
		return nil // pdb/no-matching-workload
	}
	name, noScale, bare, expected, err := displayName(c.Self), a.noScale, a.bare, a.expected, a.err
	switch {
	case err != nil:
		return []Finding{{
			Message: fmt.Sprintf("PodDisruptionBudget %s sets %s, which the disruption controller resolves against the scale of the selected pods' controllers, and %s %s none (%v): its sync fails, disruptionsAllowed stays 0, and no pod it selects can ever be evicted",
				name, field, DescribeList(noScale), hasOrHave(len(noScale)), err),
			Path:    path,
			Related: relatedBeyondNamed(len(noScale)),
		}}
	case expected == 0 && a.selected == len(bare):
		return []Finding{{
			Message: fmt.Sprintf("PodDisruptionBudget %s sets %s, and selects only Pods that no controller owns (%s), which the disruption controller leaves out of the pods it expects: it expects 0, allows 0 disruptions, and no pod it selects can ever be evicted",
				name, field, DescribeList(bare)),
			Path:    path,
			Related: relatedBeyondNamed(len(bare)),
		}}
	}
	return nil
}

// noScaleAnswer is what pdbNoScale learns of a selector: how many pods
// stand in for what it selects (selectedPods), the disruption controller's
// expected count or its error, and the keys of the workloads without a
// scale and of the bare Pods.
type noScaleAnswer struct {
	selected      int
	expected      int32
	err           error
	noScale, bare []string
}

// relatedBeyondNamed is a finding's Related for a list of n that
// DescribeList renders: the full count when it says "and N more", else 0.
func relatedBeyondNamed(n int) int {
	if n > 5 {
		return n
	}
	return 0
}

func hasOrHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// selectedPods stands in for the pods a budget's selector selects: one pod
// per selected workload, with the controllerRef its pods carry (a
// Deployment's through a ReplicaSet it owns, a CronJob's through a Job), and
// each selected Pod that no controller owns. scales answers for the
// workloads as the disruption controller's finders do. noScale are the keys
// of the workloads without a scale subresource (DaemonSets, Jobs,
// CronJobs), bare those of the Pods; both sorted.
func selectedPods(ns *Namespace, sel *metav1.LabelSelector) (pods []*corev1.Pod, scales disruption.StateScales, noScale, bare []string) {
	uid := func(key string) types.UID { return types.UID("uid:" + key) }
	controlled := func(kind, apiVersion, name string, u types.UID) []metav1.OwnerReference {
		yes := true
		return []metav1.OwnerReference{{Kind: kind, APIVersion: apiVersion, Name: name, UID: u, Controller: &yes}}
	}
	pod := func(e *Entry, refs []metav1.OwnerReference) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: e.Name, Namespace: e.Namespace, OwnerReferences: refs}}
	}
	// The controllers are shallow copies given a UID: StateScales and the
	// disruption controller's mirror only read them (a deep copy of each
	// was a tenth of the cross-resource rules' CPU on a namespace of
	// thousands of alike workloads).
	for _, e := range ns.TemplatesSelectedBy(sel) {
		switch t := e.Object.(type) {
		case *appsv1.Deployment:
			d := ptrTo(*t)
			d.UID, d.Namespace = uid(e.Key), e.Namespace
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: e.Name + "-rs", Namespace: e.Namespace, UID: uid(e.Key + "/rs"),
				OwnerReferences: controlled("Deployment", "apps/v1", d.Name, d.UID)}}
			scales.Deployments = append(scales.Deployments, d)
			scales.ReplicaSets = append(scales.ReplicaSets, rs)
			pods = append(pods, pod(e, controlled("ReplicaSet", "apps/v1", rs.Name, rs.UID)))
		case *appsv1.ReplicaSet:
			if _, hashed := e.TemplateLabels[appsv1.DefaultDeploymentUniqueLabelKey]; e.Owned || hashed {
				continue // a Deployment's: counted through it
			}
			rs := ptrTo(*t)
			rs.UID, rs.Namespace = uid(e.Key), e.Namespace
			scales.ReplicaSets = append(scales.ReplicaSets, rs)
			pods = append(pods, pod(e, controlled("ReplicaSet", "apps/v1", rs.Name, rs.UID)))
		case *appsv1.StatefulSet:
			ss := ptrTo(*t)
			ss.UID, ss.Namespace = uid(e.Key), e.Namespace
			scales.StatefulSets = append(scales.StatefulSets, ss)
			pods = append(pods, pod(e, controlled("StatefulSet", "apps/v1", ss.Name, ss.UID)))
		case *corev1.ReplicationController:
			rc := ptrTo(*t)
			rc.UID, rc.Namespace = uid(e.Key), e.Namespace
			scales.ReplicationControllers = append(scales.ReplicationControllers, rc)
			pods = append(pods, pod(e, controlled("ReplicationController", "v1", rc.Name, rc.UID)))
		default:
			switch e.Kind {
			case "DaemonSet":
				pods = append(pods, pod(e, controlled("DaemonSet", "apps/v1", e.Name, uid(e.Key))))
			case "Job", "CronJob":
				pods = append(pods, pod(e, controlled("Job", "batch/v1", e.Name, uid(e.Key))))
			default:
				continue
			}
			noScale = append(noScale, e.Key)
		}
	}
	for _, p := range ns.PodsSelectedBy(sel) {
		if !p.Owned {
			pods = append(pods, pod(p, nil))
			bare = append(bare, p.Key)
		}
	}
	sort.Strings(noScale)
	sort.Strings(bare)
	return pods, scales, noScale, bare
}

// ptrTo returns a pointer to a copy of v.
func ptrTo[T any](v T) *T { return &v }
