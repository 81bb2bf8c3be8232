// Package library_test drives lint and predict as libraries, as a program other than
// kubectl-workload would: a request of plain values in, a result value out, no cobra, no
// command line, no stream but the one the test renders the result into. Each result,
// rendered through its report package, must equal what the command prints for the same
// input (the plugin's golden files): the library is the whole of the command's judgement.
package library_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
	"github.com/kubectl-workload/kubectl-workload/internal/version"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/lint/report"
	"github.com/kubectl-workload/kubectl-workload/lint/userpolicy"
	"github.com/kubectl-workload/kubectl-workload/predict"
	"github.com/kubectl-workload/kubectl-workload/predict/planreport"
)

// inPlugin runs the test from plugin/, where the goldens' relative paths were written, and
// returns the golden file's content.
func inPlugin(t *testing.T, golden string) string {
	t.Helper()
	t.Chdir(filepath.Join("..", "..", "plugin"))
	want, err := os.ReadFile(filepath.Join("testdata", "golden", golden))
	if err != nil {
		t.Fatal(err)
	}
	return string(want)
}

// TestLintAsLibrary: lint.(*Linter).Lint on examples/broken/typos.yaml returns findings as
// data with their positions, and the Result rendered as JSON is `kubectl workload lint -o json`'s.
func TestLintAsLibrary(t *testing.T) {
	want := inPlugin(t, "typos.json")
	const path = "../examples/broken/typos.yaml"
	linter, err := lint.New(lint.Config{PolicyTimeout: userpolicy.DefaultPolicyTimeout})
	if err != nil {
		t.Fatal(err)
	}
	res, err := linter.Lint(context.Background(), lint.Request{Paths: []string{path},
		Render: helper.Options{ReleaseName: helper.DefaultReleaseName, KubeVersion: helper.DefaultKubeVersion(), LoadRestrictor: helper.LoadRestrictionsRootOnly}})
	if err != nil {
		t.Fatalf("Lint(%s) error = %v", path, err)
	}
	if len(res.Errors) > 0 || res.Files != 1 || len(res.Findings) == 0 {
		t.Fatalf("Lint(%s) = %d files, %d findings, errors %v; want 1 file, findings, no errors", path, res.Files, len(res.Findings), res.Errors)
	}
	for _, f := range res.Findings {
		if f.File != path || f.Line < 1 || f.Column < 1 {
			t.Errorf("finding %s %q at %s:%d:%d; want a position in %s", f.Rule, f.Message, f.File, f.Line, f.Column, path)
		}
	}
	if f := res.Findings[0]; f.Rule != "api/unknown-field" || f.Line != 7 || f.Column != 3 || f.Field != "spec.replcias" {
		t.Errorf("first finding = %s at %d:%d field %q; want api/unknown-field at 7:3 field spec.replcias", f.Rule, f.Line, f.Column, f.Field)
	}
	if !res.Fails(lint.SeverityError) {
		t.Errorf("Result.Fails(error) = false; want true (the command exits 1)")
	}
	builtins, err := linter.Rules()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.WriteOptions(&out, "json", res, builtins, version.Get().Kubernetes, report.Options{FailOn: lint.SeverityError}); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Errorf("the library's result as JSON differs from plugin/testdata/golden/typos.json:\n%s", out.String())
	}
}

// TestPredictAsLibrary: predict.Predict of a Deployment from old.yaml to new.yaml returns a
// plan of steps ending in a completed rollout, rendered as `kubectl workload predict -o json`.
func TestPredictAsLibrary(t *testing.T) {
	want := inPlugin(t, "predict-from.json")
	plan, err := predict.Predict(context.Background(), predict.Request{Files: []string{"testdata/predict/new.yaml"},
		From: []string{"testdata/predict/old.yaml"}, Namespace: "default", Next: predict.DefaultNext}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Problems) > 0 || len(plan.Predictions) != 1 || plan.Failed() {
		t.Fatalf("Predict = %d predictions, problems %v, failed %v; want one that completes", len(plan.Predictions), plan.Problems, plan.Failed())
	}
	p := plan.Predictions[0]
	if p.Kind != "Deployment" || p.Plan == nil || len(p.Plan.Steps) < 2 {
		t.Fatalf("prediction = %s %s, plan %v; want a Deployment's rollout in steps", p.Kind, p.Name, p.Plan)
	}
	for i := 1; i < len(p.Plan.Steps); i++ {
		if p.Plan.Steps[i].At < p.Plan.Steps[i-1].At {
			t.Errorf("step %d at %s is before step %d at %s", i, p.Plan.Steps[i].At, i-1, p.Plan.Steps[i-1].At)
		}
	}
	var out bytes.Buffer
	if err := planreport.Write(&out, "json", plan.Result, version.Get().Kubernetes, false); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Errorf("the library's plan as JSON differs from plugin/testdata/golden/predict-from.json:\n%s", out.String())
	}
}

// TestDrainAsLibrary: predict.Drain of node-1 returns a completed plan, rendered as
// `kubectl workload predict drain -o json`.
func TestDrainAsLibrary(t *testing.T) {
	want := inPlugin(t, "predict-drain-node-1.json")
	plan, err := predict.Drain(context.Background(), predict.DrainRequest{Files: []string{"testdata/predict/drain-cluster.yaml"},
		Drain: []string{"node-1"}, IgnoreDaemonSets: true, GracePeriod: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Completed || len(plan.Nodes) != 1 {
		t.Fatalf("Drain(node-1) = completed %v, %d nodes; want node-1 drained", plan.Completed, len(plan.Nodes))
	}
	var out bytes.Buffer
	if err := planreport.DrainJSON(&out, plan); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Errorf("the library's drain plan as JSON differs from plugin/testdata/golden/predict-drain-node-1.json:\n%s", out.String())
	}
}
