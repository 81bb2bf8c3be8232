package lint_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
	"github.com/kubectl-workload/kubectl-workload/test/realworld"
)

// TestRolloutDowntimeAgreesWithPredict is issue 29's property: lint and predict never disagree
// on whether a Deployment's rollout can leave no pod available. For every RollingUpdate
// Deployment of the real-world corpus, of examples/ and of a grid of replicas × maxSurge ×
// maxUnavailable, lint's rollout/downtime reports "no pod available" (or "all N pods down")
// exactly when predict's plan for a template change (the first container's image changed,
// from the manifest as the fully rolled-out baseline) has a minimum of 0 available pods.
//
// The Deployment is linted and predicted alone, with the HorizontalPodAutoscalers of its file
// that target it: both then count replicas the same way.
func TestRolloutDowntimeAgreesWithPredict(t *testing.T) {
	if testing.Short() {
		t.Skip("a lint and a predict run per Deployment of the corpora")
	}
	var cases []propertyCase
	rw, err := realworld.Objects(filepath.Join("..", realworld.Dir))
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, deploymentCases(rw)...)
	examples, err := filepath.Glob(filepath.Join("..", "examples", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	top, _ := filepath.Glob(filepath.Join("..", "examples", "*.yaml"))
	var exObjs []*manifest.Object
	for _, f := range append(top, examples...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		exObjs = append(exObjs, manifest.Parse(f, data).Objects...)
	}
	cases = append(cases, deploymentCases(exObjs)...)
	cases = append(cases, gridCases()...)

	l, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	checked, zero := 0, 0
	for i, c := range cases {
		oldFile := filepath.Join(dir, fmt.Sprintf("%d-old.yaml", i))
		newFile := filepath.Join(dir, fmt.Sprintf("%d-new.yaml", i))
		if err := os.WriteFile(oldFile, joinDocs(c.deployment, c.autoscalers), 0o600); err != nil {
			t.Fatal(err)
		}
		next, err := withChangedImage(c.deployment)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := os.WriteFile(newFile, joinDocs(next, c.autoscalers), 0o600); err != nil {
			t.Fatal(err)
		}
		res := l.Run(context.Background(), lint.Options{Paths: []string{oldFile}})
		if len(res.Errors) > 0 {
			t.Fatalf("%s: lint: %v", c.name, res.Errors)
		}
		var downtime []string
		rejected := false
		for _, f := range res.Findings {
			if f.Rule == "rollout/downtime" && (strings.Contains(f.Message, "no pod available") || strings.Contains(f.Message, "pods down at once")) {
				downtime = append(downtime, f.Message)
			}
			if strings.HasPrefix(f.Rule, "api/") && f.Severity == lint.SeverityError {
				rejected = true
			}
		}
		if rejected {
			continue // the server refuses it: there is no rollout to compare
		}
		pr, err := runner.Run(context.Background(), runner.Request{Files: []string{newFile}, From: []string{oldFile}})
		if err != nil {
			t.Fatalf("%s: predict: %v", c.name, err)
		}
		var plan *runner.Prediction
		for i := range pr.Predictions {
			if pr.Predictions[i].Kind == "Deployment" {
				plan = &pr.Predictions[i]
			}
		}
		if plan == nil || plan.Plan == nil {
			t.Errorf("%s: predict made no Deployment plan (%d predictions, skipped %v)", c.name, len(pr.Predictions), pr.Skipped)
			continue
		}
		checked++
		minAvailable := plan.Plan.Summary.MinAvailable
		if minAvailable == 0 {
			zero++
		}
		switch {
		case minAvailable == 0 && len(downtime) == 0:
			t.Errorf("%s: predict's minimum is 0 available pods (peak %d), lint's rollout/downtime is silent", c.name, plan.Plan.Summary.PeakPods)
		case minAvailable > 0 && len(downtime) > 0:
			t.Errorf("%s: lint says %q, predict's minimum is %d available pods", c.name, downtime, minAvailable)
		}
	}
	if checked < 100 {
		t.Errorf("%d Deployments compared, want the corpora's (over 100)", checked)
	}
	if zero == 0 {
		t.Error("no Deployment with a minimum of 0 available: the grid should hold some")
	}
	t.Logf("%d Deployments compared, %d of them with a minimum of 0 available", checked, zero)
}

type propertyCase struct {
	name        string
	deployment  []byte
	autoscalers [][]byte
}

// deploymentCases are the RollingUpdate apps/v1 Deployments of objs, each with the
// autoscalers of its file that name it as their scale target.
func deploymentCases(objs []*manifest.Object) []propertyCase {
	var out []propertyCase
	for _, o := range objs {
		if o.Kind != "Deployment" || o.APIVersion != "apps/v1" {
			continue
		}
		var d appsv1.Deployment
		if json.Unmarshal(o.JSON, &d) != nil || d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType ||
			len(d.Spec.Template.Spec.Containers) == 0 {
			continue
		}
		c := propertyCase{name: fmt.Sprintf("%s document %d, Deployment %s", o.File, o.Document, o.Name), deployment: o.JSON}
		for _, h := range objs {
			if h.File != o.File || h.Kind != "HorizontalPodAutoscaler" || h.Namespace != o.Namespace {
				continue
			}
			var ref struct {
				Spec struct {
					ScaleTargetRef struct{ Kind, Name string } `json:"scaleTargetRef"`
				} `json:"spec"`
			}
			if json.Unmarshal(h.JSON, &ref) == nil && ref.Spec.ScaleTargetRef.Kind == "Deployment" && ref.Spec.ScaleTargetRef.Name == o.Name {
				c.autoscalers = append(c.autoscalers, h.JSON)
			}
		}
		out = append(out, c)
	}
	return out
}

// gridCases are Deployments of 1 to 5 replicas under every pair of a few maxSurge and
// maxUnavailable values, as integers and percentages, with both left out among them.
func gridCases() []propertyCase {
	values := []string{"", "0", "1", "2", "10%", "25%", "50%", "100%"}
	var out []propertyCase
	for replicas := 1; replicas <= 5; replicas++ {
		for _, surge := range values {
			for _, unavailable := range values {
				ru := map[string]any{}
				for k, v := range map[string]string{"maxSurge": surge, "maxUnavailable": unavailable} {
					switch {
					case v == "":
					case strings.HasSuffix(v, "%"):
						ru[k] = v
					default:
						var n int
						fmt.Sscan(v, &n)
						ru[k] = n
					}
				}
				d := map[string]any{
					"apiVersion": "apps/v1", "kind": "Deployment",
					"metadata": map[string]any{"name": "web", "namespace": "grid"},
					"spec": map[string]any{
						"replicas": replicas,
						"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
						"strategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": ru},
						"template": map[string]any{
							"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
							"spec":     map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx:1.27"}}},
						},
					},
				}
				data, _ := json.Marshal(d)
				out = append(out, propertyCase{name: fmt.Sprintf("grid: replicas %d, maxSurge %q, maxUnavailable %q", replicas, surge, unavailable), deployment: data})
			}
		}
	}
	return out
}

// withChangedImage is the Deployment's JSON with its first container's image changed.
func withChangedImage(data []byte) ([]byte, error) {
	var d map[string]any
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	spec, _ := d["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	pod, _ := tmpl["spec"].(map[string]any)
	containers, _ := pod["containers"].([]any)
	if len(containers) == 0 {
		return nil, fmt.Errorf("no containers")
	}
	c, _ := containers[0].(map[string]any)
	c["image"] = "registry.example/next:2"
	return json.Marshal(d)
}

func joinDocs(first []byte, rest [][]byte) []byte {
	docs := append([][]byte{first}, rest...)
	var b strings.Builder
	for i, d := range docs {
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(d)
		b.WriteString("\n")
	}
	return []byte(b.String())
}
