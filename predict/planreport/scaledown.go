package planreport

import (
	"fmt"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// writeScaleDown writes a ReplicaSet's or ReplicationController's scale-down: how many pods go,
// every active pod in the controller's deletion order with the facts it ranks by and the rule
// that puts it before the next, the pods it does not count, notes and a summary.
func writeScaleDown(b *strings.Builder, p runner.Prediction) {
	s := p.ScaleDown
	row := func(k, v string) { fmt.Fprintf(b, "  %-19s %s\n", k, v) }
	row("baseline", p.Baseline)
	from := fmt.Sprintf("%d active %s", s.Active, plural(s.Active, "pod", "pods"))
	if s.CurrentReplicas != nil {
		from = fmt.Sprintf("spec.replicas %d, %s", *s.CurrentReplicas, from)
	}
	row("replicas", fmt.Sprintf("%s → %d: the controller deletes %d %s (active pods − spec.replicas)", from, s.Replicas, s.Deletes, plural(s.Deletes, "pod", "pods")))
	row("ranked at", fmt.Sprintf("%s (%s)", clock(s.At), s.AtSource))
	if s.Related != s.Active+len(s.Skipped) {
		row("colocation", fmt.Sprintf("per node, the active pods among the %d pods of the owning Deployment's ReplicaSets", s.Related))
	}
	b.WriteString("\n")
	if len(s.Order) > 0 {
		podWidth, nodeWidth := len("POD"), len("NODE")
		for _, r := range s.Order {
			podWidth, nodeWidth = max(podWidth, len(r.Pod.Name)), max(nodeWidth, len(orDash(r.Node)))
		}
		fmt.Fprintf(b, "  %3s  %-6s  %-*s  %-*s  %-9s  %-5s  %4s  %7s  %8s  %s\n", "#", "ACTION", podWidth, "POD", nodeWidth, "NODE",
			"PHASE", "READY", "COST", "ON NODE", "RESTARTS", "BEFORE THE NEXT BECAUSE")
		for i, r := range s.Order {
			action := "keep"
			if r.Deleted {
				action = "delete"
			}
			ready := "no"
			if r.Ready {
				ready = "yes"
			}
			why := "-"
			if r.Rule != "" {
				why = r.Rule + ": " + r.Reason
				if r.Random {
					why += " [random]"
				}
			}
			fmt.Fprintf(b, "  %3d  %-6s  %-*s  %-*s  %-9s  %-5s  %4d  %7d  %8d  %s\n", i+1, action, podWidth, r.Pod.Name, nodeWidth, orDash(r.Node),
				orDash(r.Phase), ready, r.DeletionCost, r.Colocated, r.Restarts, why)
		}
		b.WriteString("\n")
		b.WriteString("  (rules in the controller's order: unassigned, phase, not-ready, pod-deletion-cost, colocated, ready-time, restarts, creation-time;\n")
		b.WriteString("   [random] marks an order the real controller does not decide by anything you control)\n")
	}
	if len(s.Skipped) > 0 {
		fmt.Fprintf(b, "  not counted (terminating, Succeeded or Failed): %s\n", strings.Join(s.Skipped, ", "))
	}
	for _, n := range s.Notes {
		fmt.Fprintf(b, "  note: %s\n", n)
	}
	summary := fmt.Sprintf("deletes nothing; %d %s stay", s.Active, plural(s.Active, "pod", "pods"))
	if len(s.Deleted) > 0 {
		summary = fmt.Sprintf("deletes %s, in that order; %d %s stay", strings.Join(s.Deleted, ", "), s.Active-len(s.Deleted), plural(s.Active-len(s.Deleted), "pod", "pods"))
	}
	fmt.Fprintf(b, "  summary: %s\n", summary)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

type scaleDownDoc struct {
	CurrentReplicas *int32      `json:"currentReplicas"`
	Replicas        int32       `json:"replicas"`
	Active          int         `json:"active"`
	Deletes         int         `json:"deletes"`
	At              string      `json:"at"`
	AtSource        string      `json:"atSource"`
	Related         int         `json:"related"`
	Order           []rankedPod `json:"order"`
	Deleted         []string    `json:"deleted"`
	Skipped         []string    `json:"skipped"`
	Notes           []string    `json:"notes"`
}

type rankedPod struct {
	Pod          string `json:"pod"`
	Node         string `json:"node"`
	Phase        string `json:"phase"`
	Ready        bool   `json:"ready"`
	DeletionCost int32  `json:"deletionCost"`
	Colocated    int    `json:"colocated"`
	Restarts     int32  `json:"restarts"`
	Deleted      bool   `json:"deleted"`
	Rule         string `json:"rule"`
	Reason       string `json:"reason"`
	Random       bool   `json:"random"`
}

func toScaleDown(s *runner.ScaleDownResult) *scaleDownDoc {
	if s == nil {
		return nil
	}
	d := &scaleDownDoc{CurrentReplicas: s.CurrentReplicas, Replicas: s.Replicas, Active: s.Active, Deletes: s.Deletes,
		At: stamp(s.At), AtSource: s.AtSource, Related: s.Related, Order: []rankedPod{},
		Deleted: append([]string{}, s.Deleted...), Skipped: append([]string{}, s.Skipped...), Notes: append([]string{}, s.Notes...)}
	for _, r := range s.Order {
		d.Order = append(d.Order, rankedPod{Pod: r.Pod.Name, Node: r.Node, Phase: r.Phase, Ready: r.Ready, DeletionCost: r.DeletionCost,
			Colocated: r.Colocated, Restarts: r.Restarts, Deleted: r.Deleted, Rule: r.Rule, Reason: r.Reason, Random: r.Random})
	}
	return d
}
