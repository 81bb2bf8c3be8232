package planreport

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/kubectl/drain"
	"github.com/kubectl-workload/kubectl-workload/internal/safetext"
	"github.com/kubectl-workload/kubectl-workload/internal/scheduler"
	"github.com/kubectl-workload/kubectl-workload/internal/upgrade"
)

// UpgradeText writes an upgrade plan as a timeline, node by node: the new nodes as they join,
// each old node's cordon, drain (evictions, refusals with their budgets, where replacements
// go), forced deletions and deletion; then the result, the blocker and its fixes, and the pods
// no node could take.
func UpgradeText(w io.Writer, p *upgrade.Plan) error {
	var b strings.Builder
	a := p.Algorithm
	timeout := "no drain timeout"
	if a.DrainTimeout > 0 {
		timeout = fmt.Sprintf("drain timeout %s, then %s", fmtDur(a.DrainTimeout), map[string]string{upgrade.OnTimeoutFail: "the upgrade fails", upgrade.OnTimeoutForce: "the pods left are deleted anyway"}[a.OnTimeout])
	}
	fmt.Fprintf(&b, "Upgrade of %d node(s) (%s): max surge %s (%d), max unavailable %s (%d), %d node(s) at a time, %s.\n\n",
		len(p.Pool), strings.Join(p.Pool, ", "), a.MaxSurge.String(), p.Surge, a.MaxUnavailable.String(), p.Unavailable, p.BatchSize, timeout)
	if len(p.Placed) > 0 {
		fmt.Fprintf(&b, "Pods placed, not read (%d): %s.\n\n", len(p.Placed), scheduler.PlacedSummary(p.Placed))
	}
	added := 0
	joins := func(until time.Duration) {
		for ; added < len(p.NewNodes) && p.NewNodes[added].AddedAt <= until; added++ {
			n := p.NewNodes[added]
			kind := "replacement"
			if n.Surge {
				kind = "surge"
			}
			fmt.Fprintf(&b, "  %6s  node %s joins (%s, like %s)\n", fmtDur(n.AddedAt), n.Name, kind, n.Like)
			for _, e := range n.Events {
				fmt.Fprintf(&b, "  %6s  %s\n", fmtDur(e.At), upgradeLine(e))
			}
		}
	}
	for _, st := range p.Nodes {
		if st.Outcome == upgrade.NotReached {
			fmt.Fprintf(&b, "Node %s (batch %d): not reached, the upgrade stopped before it\n\n", st.Node, st.Batch)
			continue
		}
		fmt.Fprintf(&b, "Node %s (batch %d):\n", st.Node, st.Batch)
		joins(st.CordonedAt)
		fmt.Fprintf(&b, "  %6s  cordon %s\n", fmtDur(st.CordonedAt), st.Node)
		for _, e := range st.Drain.Events {
			fmt.Fprintf(&b, "  %6s  %s\n", fmtDur(e.At), upgradeLine(e))
		}
		if !st.Drain.Drained && st.Drain.Error != "" {
			fmt.Fprintf(&b, "  %6s  drain ends: %s\n", fmtDur(st.Drain.End), st.Drain.Error)
		}
		for _, e := range st.Forced {
			fmt.Fprintf(&b, "  %6s  %s\n", fmtDur(e.At), upgradeLine(e))
		}
		if st.EmptyAt >= 0 {
			fmt.Fprintf(&b, "  %6s  %s is empty\n", fmtDur(st.EmptyAt), st.Node)
		}
		if st.DeletedAt >= 0 {
			fmt.Fprintf(&b, "  %6s  node %s deleted\n", fmtDur(st.DeletedAt), st.Node)
			for _, e := range st.Deleted {
				fmt.Fprintf(&b, "  %6s  %s\n", fmtDur(e.At), upgradeLine(e))
			}
		}
		if st.Drain.Forever {
			fmt.Fprintf(&b, "  the drain of %s never ends: the refusals repeat every 5s and there is no drain timeout\n", st.Node)
		}
		b.WriteString("\n")
	}
	if added < len(p.NewNodes) {
		b.WriteString("After the last node:\n")
		joins(p.Duration)
		b.WriteString("\n")
	}
	if p.Completed {
		fmt.Fprintf(&b, "Result: the upgrade completes in %s: %d node(s) replaced.\n", fmtDur(p.Duration), len(p.Pool))
	} else {
		fmt.Fprintf(&b, "Result: the upgrade fails after %s.\n", fmtDur(p.Duration))
	}
	if bl := p.Blocker; bl != nil {
		fmt.Fprintf(&b, "Blocker: node %s at %s: %s\n", bl.Node, fmtDur(bl.At), bl.Reason)
		if len(bl.Budgets) > 0 {
			fmt.Fprintf(&b, "  budgets refusing: %s\n", strings.Join(bl.Budgets, ", "))
		}
		if len(bl.Pods) > 0 {
			fmt.Fprintf(&b, "  pods left: %s\n", strings.Join(bl.Pods, ", "))
		}
		for _, f := range bl.Fixes {
			fmt.Fprintf(&b, "  fix: %s\n", f)
		}
	}
	for _, u := range p.Unplaced {
		why := "no schedulable node fits it"
		if u.Reason != "" {
			why = strings.TrimSuffix(u.Reason, ".")
		}
		where := "no node ever takes it: " + unplacedFix(u.Reason)
		if u.Node != "" {
			where = fmt.Sprintf("placed on %s at %s", u.Node, fmtDur(u.At))
		}
		fmt.Fprintf(&b, "Pending: %s (%s) from %s: %s; %s.\n", u.Pod, u.Owner, fmtDur(u.Since), why, where)
	}
	for _, s := range p.Assumptions {
		fmt.Fprintf(&b, "Assumed: %s.\n", s)
	}
	for _, v := range p.Varies {
		fmt.Fprintf(&b, "Can vary: %s.\n", v)
	}
	_, err := io.WriteString(w, safetext.Lines(b.String())) // names come from the input (safetext)
	return err
}

// upgradeLine is a drain line, with the upgrade's own events.
func upgradeLine(e drain.Event) string {
	switch e.Kind {
	case drain.EventScheduled:
		return fmt.Sprintf("%s: the Pending %s now fits on %s", e.Owner, e.Pod, e.Node)
	case drain.EventDelete:
		if e.Message != "" {
			return fmt.Sprintf("delete %s (%s): %s", e.Pod, e.Owner, e.Message)
		}
	}
	return drainLine(e)
}

// UpgradeSchemaVersion is the version of predict upgrade's JSON (docs/predict-output.md):
// fields are only ever added within a version. Version 2 gives every time and duration in
// seconds (version 1 gave them in nanoseconds, as Go's time.Duration).
const UpgradeSchemaVersion = 2

// The upgrade's JSON: the plan's own fields, each time and duration in seconds as a number
// (-1 where the plan says never), a node's drain as predict drain's JSON gives it.
type (
	upgradeDoc struct {
		SchemaVersion int                `json:"schemaVersion"`
		Kind          string             `json:"kind"`
		Algorithm     upgradeAlgDoc      `json:"algorithm"`
		Surge         int                `json:"surge"`
		Unavailable   int                `json:"unavailable"`
		BatchSize     int                `json:"batchSize"`
		Pool          []string           `json:"pool"`
		Nodes         []upgradeNodeDoc   `json:"nodes"`
		NewNodes      []upgradeNewDoc    `json:"newNodes"`
		Completed     bool               `json:"completed"`
		Duration      float64            `json:"duration"`
		Blocker       *upgradeBlockerDoc `json:"blocker,omitempty"`
		Unplaced      []upgradeUnplaced  `json:"unplaced,omitempty"`
		Assumptions   []string           `json:"assumptions,omitempty"`
		Varies        []string           `json:"canVary,omitempty"`
		Placed        []scheduler.Placed `json:"placed,omitempty"`
		// DurationSeconds is Duration, as version 1 named it.
		DurationSeconds float64 `json:"durationSeconds"`
	}
	upgradeAlgDoc struct {
		upgrade.Algorithm
		DrainTimeout   float64 `json:"drainTimeout"`
		NodeReadyAfter float64 `json:"nodeReadyAfter,omitempty"`
	}
	upgradeNodeDoc struct {
		upgrade.NodeStep
		CordonedAt float64         `json:"cordonedAt"`
		EmptyAt    float64         `json:"emptyAt"`
		DeletedAt  float64         `json:"deletedAt"`
		Drain      drainNodeDoc    `json:"drain"`
		Forced     []drainEventDoc `json:"forced,omitempty"`
		Deleted    []drainEventDoc `json:"deleted,omitempty"`
	}
	upgradeNewDoc struct {
		upgrade.NewNode
		AddedAt float64         `json:"addedAt"`
		Events  []drainEventDoc `json:"events,omitempty"`
	}
	upgradeBlockerDoc struct {
		*upgrade.Blocker
		At float64 `json:"at"`
	}
	upgradeUnplaced struct {
		upgrade.Unplaced
		Since float64 `json:"since"`
		At    float64 `json:"at,omitempty"`
	}
)

// secondsOrNever is d in seconds; a negative d (never) is -1.
func secondsOrNever(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return d.Seconds()
}

// eventDocs are events with their times in seconds.
func eventDocs(events []drain.Event) []drainEventDoc {
	if events == nil {
		return nil
	}
	out := make([]drainEventDoc, 0, len(events))
	for _, e := range events {
		out = append(out, drainEventDoc{Event: e, AtSeconds: e.At.Seconds()})
	}
	return out
}

// UpgradeJSON writes an upgrade plan as JSON, every time and duration in seconds from the
// upgrade's start (docs/predict-output.md).
func UpgradeJSON(w io.Writer, p *upgrade.Plan) error {
	d := upgradeDoc{SchemaVersion: UpgradeSchemaVersion, Kind: "UpgradePlan",
		Algorithm: upgradeAlgDoc{Algorithm: p.Algorithm, DrainTimeout: p.Algorithm.DrainTimeout.Seconds(), NodeReadyAfter: p.Algorithm.NodeReadyAfter.Seconds()},
		Surge:     p.Surge, Unavailable: p.Unavailable, BatchSize: p.BatchSize, Pool: p.Pool, Completed: p.Completed,
		Duration: p.Duration.Seconds(), DurationSeconds: p.Duration.Seconds(),
		Assumptions: p.Assumptions, Varies: p.Varies, Placed: p.Placed,
		Nodes: []upgradeNodeDoc{}, NewNodes: []upgradeNewDoc{}}
	for _, st := range p.Nodes {
		d.Nodes = append(d.Nodes, upgradeNodeDoc{NodeStep: st, CordonedAt: secondsOrNever(st.CordonedAt), EmptyAt: secondsOrNever(st.EmptyAt), DeletedAt: secondsOrNever(st.DeletedAt),
			Drain:  nodeDoc(st.Drain),
			Forced: eventDocs(st.Forced), Deleted: eventDocs(st.Deleted)})
	}
	for _, n := range p.NewNodes {
		d.NewNodes = append(d.NewNodes, upgradeNewDoc{NewNode: n, AddedAt: n.AddedAt.Seconds(), Events: eventDocs(n.Events)})
	}
	if p.Blocker != nil {
		d.Blocker = &upgradeBlockerDoc{Blocker: p.Blocker, At: p.Blocker.At.Seconds()}
	}
	for _, u := range p.Unplaced {
		d.Unplaced = append(d.Unplaced, upgradeUnplaced{Unplaced: u, Since: u.Since.Seconds(), At: u.At.Seconds()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// unplacedFix is the change that lets a Pending pod's scheduler reason pass: more nodes in
// other topology domains for anti-affinity and spread constraints, else capacity.
func unplacedFix(reason string) string {
	switch {
	case strings.Contains(reason, "anti-affinity"):
		return "add nodes in another topology domain of its anti-affinity (hostname, zone), or relax the anti-affinity"
	case strings.Contains(reason, "topology spread"):
		return "add nodes in the topology domains its spread constraints count, or raise maxSkew or use whenUnsatisfiable: ScheduleAnyway"
	case strings.Contains(reason, "pod affinity"):
		return "the pods it must be next to are gone: relax its pod affinity"
	}
	return "add capacity to the pool (or surge), or lower the pod's requests"
}
