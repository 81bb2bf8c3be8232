package planreport

import (
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/garbagecollector"
	"github.com/kubectl-workload/kubectl-workload/internal/kubectl/drain"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// forged is what hostile input puts in names and files: a line of its own
// that a GitHub Actions runner would execute, and terminal control.
const forged = "\n::error file=x::forged\r\x1b[31m\u2028"

// checkForged fails when out has a line starting with "::" or a raw
// control character.
func checkForged(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\r\x1b\u2028") {
		t.Errorf("%s holds a raw control character:\n%q", what, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "::") {
			t.Errorf("%s has a forged line %q", what, l)
		}
	}
	if !strings.Contains(out, "forged") {
		t.Errorf("%s does not show the value at all:\n%s", what, out)
	}
}

// TestNoForgedLines: predict's text, its drain and its delete plans print
// names, namespaces, files and messages from the input escaped.
func TestNoForgedLines(t *testing.T) {
	res := &runner.Result{
		Predictions: []runner.Prediction{{File: "f" + forged + ".yaml", Pos: manifest.Pos{Line: 1, Column: 1},
			Kind: "Deployment" + forged, Namespace: "ns" + forged, Name: "web" + forged,
			Rejected: []runner.Rejection{{Rule: "api/invalid", Field: "spec" + forged, Message: "bad" + forged}}}},
		Skipped:  []runner.SkippedObject{{File: "::" + forged, Ref: "ConfigMap x" + forged, Reason: "r" + forged}},
		Problems: []manifest.Problem{{Source: manifest.Source{File: "::p" + forged}, Message: "m" + forged}},
	}
	var b strings.Builder
	if err := Text(&b, res, false); err != nil {
		t.Fatal(err)
	}
	checkForged(t, "predict's text", b.String())

	b.Reset()
	if err := DrainText(&b, &drain.Plan{Nodes: []drain.NodePlan{{Node: "node" + forged, Error: "e" + forged}}}); err != nil {
		t.Fatal(err)
	}
	checkForged(t, "the drain plan", b.String())

	b.Reset()
	if err := DeleteText(&b, &garbagecollector.Plan{Target: "deployment/web" + forged, Deleted: []string{"Pod x" + forged}}); err != nil {
		t.Fatal(err)
	}
	checkForged(t, "the delete plan", b.String())
}
