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
)

// DrainText writes a drain plan as a timeline: each node's evictions and refusals in time
// order with the budget that decided, the replacements, and how the node's drain ends.
func DrainText(w io.Writer, p *drain.Plan) error {
	var b strings.Builder
	if len(p.Placed) > 0 {
		fmt.Fprintf(&b, "Pods placed, not read (%d): the input holds no pods for these workloads; their controllers' mirrors made them and the scheduler mirror placed them:\n", len(p.Placed))
		for _, pl := range p.Placed {
			node := pl.Node
			if node == "" {
				node = "no node fits it: Pending"
			}
			fmt.Fprintf(&b, "  %s (%s) on %s\n", pl.Pod, pl.Owner, node)
		}
		b.WriteString("\n")
	}
	for _, np := range p.Nodes {
		fmt.Fprintf(&b, "Drain of node %s", np.Node)
		if np.Error != "" && len(np.Events) == 0 {
			fmt.Fprintf(&b, ": %s\n\n", np.Error)
			continue
		}
		fmt.Fprintf(&b, " (from %s):\n", fmtDur(np.Start))
		for _, e := range np.Events {
			fmt.Fprintf(&b, "  %6s  %s\n", fmtDur(e.At), drainLine(e))
		}
		switch {
		case np.Drained:
			fmt.Fprintf(&b, "  node/%s drained after %s\n", np.Node, fmtDur(np.End-np.Start))
		case np.Forever:
			fmt.Fprintf(&b, "  the drain of %s never ends: kubectl retries every 5s forever (no --timeout)\n", np.Node)
		default:
			fmt.Fprintf(&b, "  error: unable to drain node %q due to error: %s\n", np.Node, np.Error)
		}
		if len(np.Left) > 0 {
			fmt.Fprintf(&b, "  left on the node: %s\n", strings.Join(np.Left, ", "))
		}
		for _, f := range np.Fixes {
			fmt.Fprintf(&b, "  fix: %s\n", f)
		}
		b.WriteString("\n")
	}
	if p.Completed {
		fmt.Fprintf(&b, "Result: every node drained, in %s.\n", fmtDur(p.Duration))
	} else {
		forever := false
		for _, np := range p.Nodes {
			forever = forever || np.Forever
		}
		if forever {
			b.WriteString("Result: the drain does not complete: kubectl never returns (give --timeout to make it exit 1).\n")
		} else {
			b.WriteString("Result: the drain does not complete (kubectl exits 1).\n")
		}
	}
	for _, a := range p.Assumptions {
		fmt.Fprintf(&b, "Assumed: %s.\n", a)
	}
	for _, v := range p.Varies {
		fmt.Fprintf(&b, "Can vary: %s.\n", v)
	}
	_, err := io.WriteString(w, safetext.Lines(b.String())) // names come from the input (safetext)
	return err
}

func drainLine(e drain.Event) string {
	owner := ""
	if e.Owner != "" {
		owner = " (" + e.Owner + ")"
	}
	switch e.Kind {
	case drain.EventCordon:
		return "cordon " + e.Node
	case drain.EventWarning:
		return "Warning: " + e.Message
	case drain.EventFiltered:
		return "cannot drain: " + e.Message
	case drain.EventEvict:
		s := "evict " + e.Pod + owner + ": approved"
		if e.Retried {
			s = "evict " + e.Pod + owner + ": approved on the API server's retry after a conflict"
		}
		if e.Budget != "" {
			if e.Allowed != nil {
				s += fmt.Sprintf(" by budget %s (disruptionsAllowed now %d)", e.Budget, *e.Allowed)
			} else {
				s += fmt.Sprintf(", budget %s does not guard an unready pod", e.Budget)
			}
		}
		return s
	case drain.EventDelete:
		return "delete " + e.Pod + owner + " (--disable-eviction: no budget)"
	case drain.EventRefused:
		if e.Retried {
			return fmt.Sprintf("evict %s: refused %d on the API server's retry after a conflict, by budget %s: %s (retry in 5s)", e.Pod, e.Code, e.Budget, e.Cause)
		}
		return fmt.Sprintf("evict %s: refused %d by budget %s: %s (retry in 5s)", e.Pod, e.Code, e.Budget, e.Cause)
	case drain.EventFailed:
		return fmt.Sprintf("evict %s: refused %d (budgets %s): %s (not retried)", e.Pod, e.Code, e.Budget, e.Message)
	case drain.EventEvicted:
		return "pod/" + strings.SplitN(e.Pod, "/", 2)[1] + " evicted"
	case drain.EventCreated:
		return fmt.Sprintf("%s creates %s on %s", e.Owner, e.Pod, e.Node)
	case drain.EventPending:
		return fmt.Sprintf("%s creates %s: Pending, %s", e.Owner, e.Pod, e.Message)
	case drain.EventReady:
		return fmt.Sprintf("%s Ready on %s", e.Pod, e.Node)
	case drain.EventRepeats:
		if e.Count < 0 {
			return e.Message
		}
		return fmt.Sprintf("%s, %d more times", e.Message, e.Count)
	case drain.EventTimeout:
		return e.Message
	}
	return e.Kind
}

// fmtDur prints whole seconds as "1m5s" and "0s".
func fmtDur(d time.Duration) string { return d.Round(time.Millisecond).String() }

type drainEventDoc struct {
	drain.Event
	AtSeconds float64 `json:"at"`
}

type drainNodeDoc struct {
	drain.NodePlan
	StartSeconds float64         `json:"start"`
	EndSeconds   float64         `json:"end"`
	Events       []drainEventDoc `json:"events"`
}

// nodeDoc is a node's drain with its times in seconds (events nil when it has none).
func nodeDoc(np drain.NodePlan) drainNodeDoc {
	return drainNodeDoc{NodePlan: np, StartSeconds: np.Start.Seconds(), EndSeconds: np.End.Seconds(), Events: eventDocs(np.Events)}
}

// DrainSchemaVersion is the version of predict drain's JSON (docs/predict-output.md): fields
// are only ever added within a version.
const DrainSchemaVersion = 1

type drainDoc struct {
	SchemaVersion   int                `json:"schemaVersion"`
	Kind            string             `json:"kind"`
	Nodes           []drainNodeDoc     `json:"nodes"`
	Completed       bool               `json:"completed"`
	DurationSeconds float64            `json:"durationSeconds"`
	Assumptions     []string           `json:"assumptions,omitempty"`
	Varies          []string           `json:"canVary,omitempty"`
	Placed          []scheduler.Placed `json:"placed,omitempty"`
}

// DrainJSON writes a drain plan as JSON, times in seconds from the start.
func DrainJSON(w io.Writer, p *drain.Plan) error {
	d := drainDoc{SchemaVersion: DrainSchemaVersion, Kind: "DrainPlan", Completed: p.Completed, DurationSeconds: p.Duration.Seconds(), Assumptions: p.Assumptions, Varies: p.Varies, Placed: p.Placed, Nodes: []drainNodeDoc{}}
	for _, np := range p.Nodes {
		nd := nodeDoc(np)
		if nd.Events == nil {
			nd.Events = []drainEventDoc{}
		}
		d.Nodes = append(d.Nodes, nd)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}
