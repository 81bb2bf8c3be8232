package rules

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// pdbZeroDisruptionsRule is pdb/zero-disruptions.
var pdbZeroDisruptionsRule = BuiltinRule{
	Meta: Rule{
		ID:       "pdb/zero-disruptions",
		Title:    "PodDisruptionBudget allows no disruption",
		Severity: SeverityWarning,
		Kinds:    []string{"PodDisruptionBudget"},
		File:     "cross_pdb_zero_disruptions.go",
		Description: `The disruption controller allows status.disruptionsAllowed = healthy pods −
desired healthy pods, and the eviction API refuses every eviction while it
is 0. With maxUnavailable 0 (or 0%), or minAvailable 100%, it is always 0.
With an integer minAvailable the desired count is minAvailable itself,
against the pods the selector matches; with a percentage, minAvailable is
rounded up against the replicas of the pods' controllers
(GetScaledValueFromIntOrPercent with roundUp). So minAvailable at or above
the selected workloads' replicas (spec.replicas after defaulting, 1 when
unset, plus any bare Pod selected) allows no disruption either. kubectl
drain, cluster autoscalers and node upgrades then wait forever on those
pods. A workload that a HorizontalPodAutoscaler of the input scales is
counted at the autoscaler's minReplicas (1 when unset), the fewest pods it
runs: a minAvailable at or above that allows no disruption while the load
keeps it there. DaemonSets, Jobs and CronJobs, whose pod count the input
does not give, are only checked against the forms that allow nothing
whatever the count.`,
		Remediation: "Allow at least one eviction, with maxUnavailable set to 1 (or a percentage above 0) or with minAvailable below the number of replicas.",
	},
	Cross: pdbZeroDisruptions,
}

// pdbZeroDisruptions reports a budget that allows no disruption: a
// maxUnavailable of 0, a minAvailable of 100%, or a minAvailable at least
// the number of pods it selects (the selected templates' replicas and bare
// Pods, when no autoscaler makes the count vary).
func pdbZeroDisruptions(c *CrossContext) []Finding {
	pdb, ok := c.Self.Written.(*policyv1.PodDisruptionBudget)
	if !ok || pdb.Spec.Selector == nil {
		return nil
	}
	z := zeroDisruptionsSelection(c.NS, pdb.Spec.Selector)
	if c.NS.Workloads() > 0 && z.none {
		return nil // pdb/no-matching-workload reports it
	}
	ofSelected := z.ofSelected
	name := displayName(c.Self)
	var out []Finding
	if mu := pdb.Spec.MaxUnavailable; mu != nil && ((mu.Type == intstr.Int && mu.IntVal == 0) || (mu.Type == intstr.String && mu.StrVal == "0%")) {
		out = append(out, Finding{
			Message: fmt.Sprintf("PodDisruptionBudget %s sets maxUnavailable %s: no pod%s may ever be evicted, so node drains wait forever", name, mu.String(), ofSelected),
			Path:    "spec.maxUnavailable",
		})
	}
	ma := pdb.Spec.MinAvailable
	if ma == nil {
		return out
	}
	if ma.Type == intstr.String && ma.StrVal == "100%" {
		return append(out, Finding{
			Message: fmt.Sprintf("PodDisruptionBudget %s sets minAvailable 100%%: no pod%s may ever be evicted, so node drains wait forever", name, ofSelected),
			Path:    "spec.minAvailable",
		})
	}
	// The pods the selected templates run, when every count is known (a
	// Deployment's ReplicaSets count through the Deployment), and the
	// selected Pods no controller owns.
	known, templateReplicas, autoscaled, bare, countedList := z.known, z.templateReplicas, z.autoscaled, z.bare, z.countedList
	if !known || templateReplicas <= 0 {
		return out
	}
	if autoscaled {
		return append(out, atAutoscalerFloor(name, ma, z)...)
	}
	total := templateReplicas + float64(bare)
	switch {
	case ma.Type == intstr.Int:
		if n := float64(ma.IntVal); n >= templateReplicas && n >= total {
			out = append(out, Finding{
				Message: fmt.Sprintf("PodDisruptionBudget %s sets minAvailable %d, and the pods it selects number %s (%s): 0 disruptions are allowed, so node drains wait forever",
					name, ma.IntVal, strconv.FormatFloat(total, 'f', -1, 64), countedList),
				Path: "spec.minAvailable",
			})
		}
	case strings.HasSuffix(ma.StrVal, "%"):
		pct, err := strconv.ParseFloat(strings.TrimSuffix(ma.StrVal, "%"), 64)
		if err != nil {
			return out
		}
		if desired := math.Ceil(pct * total / 100); math.Ceil(pct*templateReplicas/100) >= templateReplicas && desired >= total {
			out = append(out, Finding{
				Message: fmt.Sprintf("PodDisruptionBudget %s sets minAvailable %s, which rounds up to %s of the %s pods it selects (%s): 0 disruptions are allowed, so node drains wait forever",
					name, ma.StrVal, strconv.FormatFloat(desired, 'f', -1, 64), strconv.FormatFloat(total, 'f', -1, 64), countedList),
				Path: "spec.minAvailable",
			})
		}
	}
	return out
}

// atAutoscalerFloor is pdbZeroDisruptions for selected workloads that
// HorizontalPodAutoscalers of the input scale: the disruption controller
// expects their current scale, which the autoscalers move between their
// minReplicas and maxReplicas; at the floor, each autoscaled workload at
// its autoscalers' smallest minReplicas (smallestMinReplicas, as
// availability/no-pdb counts it), a minAvailable at or above the pods then
// selected allows no disruption for as long as the load keeps them there.
//
// Example: a Deployment that an autoscaler scales from minReplicas 2, under
// minAvailable 2: at 2 pods, disruptionsAllowed is 2 − 2 = 0.
func atAutoscalerFloor(name string, ma *intstr.IntOrString, z *zeroDisruptions) []Finding {
	floorTotal := z.floorReplicas + float64(z.bare)
	if z.floorReplicas <= 0 || len(z.autoscalers) == 0 {
		return nil
	}
	verb := "scales"
	if len(z.autoscalers) > 1 {
		verb = "scale"
	}
	switch {
	case ma.Type == intstr.Int:
		if n := float64(ma.IntVal); n >= z.floorReplicas && n >= floorTotal {
			return []Finding{{
				Message: fmt.Sprintf("PodDisruptionBudget %s sets minAvailable %d, and %s %s the pods it selects down to %s at minReplicas: 0 disruptions are allowed then, so node drains wait until the load scales them up",
					name, ma.IntVal, DescribeList(z.autoscalers), verb, strconv.FormatFloat(floorTotal, 'f', -1, 64)),
				Path: "spec.minAvailable",
			}}
		}
	case strings.HasSuffix(ma.StrVal, "%"):
		pct, err := strconv.ParseFloat(strings.TrimSuffix(ma.StrVal, "%"), 64)
		if err != nil {
			return nil
		}
		if desired := math.Ceil(pct * floorTotal / 100); math.Ceil(pct*z.floorReplicas/100) >= z.floorReplicas && desired >= floorTotal {
			return []Finding{{
				Message: fmt.Sprintf("PodDisruptionBudget %s sets minAvailable %s, and %s %s the pods it selects down to %s at minReplicas, of which it rounds up to %s: 0 disruptions are allowed then, so node drains wait until the load scales them up",
					name, ma.StrVal, DescribeList(z.autoscalers), verb, strconv.FormatFloat(floorTotal, 'f', -1, 64), strconv.FormatFloat(desired, 'f', -1, 64)),
				Path: "spec.minAvailable",
			}}
		}
	}
	return nil
}

// replicasOf is a replica count and whether it is known.
func replicasOf(p *int32) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

// zeroDisruptions is what pdb/zero-disruptions reads of a selector's
// namespace: the same for every budget with that selector, so it is
// computed once per distinct selector (Namespace.Shared).
type zeroDisruptions struct {
	none             bool // the selector selects no pod template and no Pod
	ofSelected       string
	known            bool
	templateReplicas float64
	autoscaled       bool
	bare             int
	countedList      string
	// floorReplicas is templateReplicas with each autoscaled template at
	// its autoscalers' smallest minReplicas (smallestMinReplicas), and
	// autoscalers the keys of those autoscalers, sorted.
	floorReplicas float64
	autoscalers   []string
}

func zeroDisruptionsSelection(ns *Namespace, sel *metav1.LabelSelector) *zeroDisruptions {
	return ns.Shared("pdb/zero-disruptions\x00"+SelectorKey(sel), func() any {
		var templates, pods []*Entry
		for _, e := range ns.TemplatesSelectedBy(sel) {
			if templateWorkloadKinds[e.Kind] {
				templates = append(templates, e)
			}
		}
		pods = ns.PodsSelectedBy(sel)
		z := &zeroDisruptions{none: len(templates)+len(pods) == 0}
		selected := templates
		if len(selected) == 0 {
			selected = pods
		}
		if len(selected) > 0 {
			names := make([]string, 0, maxRelatedNamed)
			for _, e := range selected[:min(len(selected), maxRelatedNamed)] {
				names = append(names, Describe(e.Key))
			}
			z.ofSelected = " of " + strings.Join(names, ", ")
			if len(selected) > maxRelatedNamed {
				z.ofSelected += fmt.Sprintf(" and %d more", len(selected)-maxRelatedNamed)
			}
		}
		known := len(templates) > 0
		templateReplicas := 0.0
		autoscaled := false
		var counted []string
		floor := 0.0
		hpas := map[string]bool{}
		for _, e := range templates {
			n, isNum := 0.0, false
			switch t := e.Object.(type) {
			case *appsv1.Deployment:
				n, isNum = replicasOf(t.Spec.Replicas)
			case *appsv1.StatefulSet:
				n, isNum = replicasOf(t.Spec.Replicas)
			case *appsv1.ReplicaSet:
				n, isNum = replicasOf(t.Spec.Replicas)
			case *corev1.ReplicationController:
				n, isNum = replicasOf(t.Spec.Replicas)
			}
			known = known && isNum
			if _, hashed := e.TemplateLabels[appsv1.DefaultDeploymentUniqueLabelKey]; e.Kind == "ReplicaSet" && (e.Owned || hashed) {
				n = 0
			}
			templateReplicas += n
			if n > 0 {
				counted = append(counted, fmt.Sprintf("%s with %s", Describe(e.Key), quantity(n, "replica")))
			}
			if as := ns.AutoscalersTargeting(e.Kind, e.Name, e.APIVersion); len(as) > 0 && n > 0 {
				autoscaled = true
				n = float64(smallestMinReplicas(as))
				for _, h := range as {
					hpas[h.Key] = true
				}
			} else if len(as) > 0 {
				autoscaled = true
			}
			floor += n
		}
		sort.Strings(counted)
		bare := 0
		var barePods []string
		for _, p := range pods {
			if !p.Owned {
				bare++
				barePods = append(barePods, Describe(p.Key))
			}
		}
		sort.Strings(barePods)
		counted = append(counted, barePods...)
		countedList := strings.Join(counted[:min(len(counted), maxRelatedNamed)], ", ")
		if len(counted) > maxRelatedNamed {
			countedList += fmt.Sprintf(" and %d more", len(counted)-maxRelatedNamed)
		}
		z.known, z.templateReplicas, z.autoscaled, z.bare, z.countedList = known, templateReplicas, autoscaled, bare, countedList
		z.floorReplicas, z.autoscalers = floor, sortedKeys(hpas)
		return z
	}).(*zeroDisruptions)
}
