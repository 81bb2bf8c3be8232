package planreport

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/garbagecollector"
	"github.com/kubectl-workload/kubectl-workload/internal/safetext"
)

// DeleteText writes a delete plan: the steps in order (steps of one number happen
// together), then the deleted, orphaned, kept, waiting and recreated objects.
func DeleteText(w io.Writer, p *garbagecollector.Plan) error {
	var b strings.Builder
	fmt.Fprintf(&b, "kubectl delete %s --cascade=%s:\n", p.Target, p.Propagation)
	for _, s := range p.Steps {
		fmt.Fprintf(&b, "  %2d  %-22s %s: %s\n", s.Order, s.Action, s.Object, s.Reason)
	}
	b.WriteString("\n")
	for _, l := range []struct {
		name string
		ids  []string
	}{{"Deleted", p.Deleted}, {"Orphaned", p.Orphaned}, {"Kept", p.Kept}, {"Waiting", p.Waiting}, {"Recreated", p.Recreated}, {"Created", p.Created}} {
		if len(l.ids) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s (%d): %s\n", l.name, len(l.ids), strings.Join(l.ids, ", "))
	}
	for _, a := range p.Assumptions {
		fmt.Fprintf(&b, "Assumed: %s.\n", a)
	}
	_, err := io.WriteString(w, safetext.Lines(b.String())) // names come from the input (safetext)
	return err
}

// DeleteSchemaVersion is the version of predict delete's JSON (docs/predict-output.md):
// fields are only ever added within a version.
const DeleteSchemaVersion = 1

type deleteDoc struct {
	SchemaVersion int    `json:"schemaVersion"`
	Kind          string `json:"kind"`
	*garbagecollector.Plan
}

type deleteListDoc struct {
	SchemaVersion int                      `json:"schemaVersion"`
	Kind          string                   `json:"kind"`
	Items         []*garbagecollector.Plan `json:"items"`
}

// DeleteJSON writes a delete plan as indented JSON: a DeletePlan, or with several objects
// named, a DeletePlanList of one plan each, in the order named.
func DeleteJSON(w io.Writer, plans ...*garbagecollector.Plan) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if len(plans) == 1 {
		return enc.Encode(deleteDoc{SchemaVersion: DeleteSchemaVersion, Kind: "DeletePlan", Plan: plans[0]})
	}
	return enc.Encode(deleteListDoc{SchemaVersion: DeleteSchemaVersion, Kind: "DeletePlanList", Items: plans})
}
