package plugin

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPredictGolden(t *testing.T) {
	const dir = "testdata/predict/"
	tests := []struct {
		name     string
		args     []string
		wantExit int
	}{
		{name: "predict-from.txt", args: []string{"-f", dir + "new.yaml", "--from", dir + "old.yaml", "--chart"}, wantExit: 0},
		{name: "predict-from.json", args: []string{"-f", dir + "new.yaml", "--from", dir + "old.yaml", "-o", "json"}, wantExit: 0},
		{name: "predict-from.yaml", args: []string{"-f", dir + "new.yaml", "--from", dir + "old.yaml", "-o", "yaml"}, wantExit: 0},
		{name: "predict-from.svg", args: []string{"-f", dir + "new.yaml", "--from", dir + "old.yaml", "-o", "svg"}, wantExit: 0},
		{name: "predict-fail-new.txt", args: []string{"-f", dir + "new.yaml", "--from", dir + "old.yaml", "--fail-new"}, wantExit: 1},
		{name: "predict-selector-changed.txt", args: []string{"-f", dir + "selector-changed.yaml", "--from", dir + "old.yaml"}, wantExit: 1},
		{name: "predict-new.txt", args: []string{"-f", dir + "old.yaml"}, wantExit: 0},
		{name: "predict-same.txt", args: []string{"-f", dir + "old.yaml", "--from", dir + "old.yaml"}, wantExit: 0},
		{name: "predict-state-image.txt", args: []string{"--state", dir + "state.yaml", "deployment/web", "--image", "web=nginx:3.0"}, wantExit: 0},
		{name: "predict-state-undo.txt", args: []string{"--state", dir + "state.yaml", "deployment", "web", "--undo"}, wantExit: 0},
		{name: "predict-state-scale.txt", args: []string{"--state", dir + "state.yaml", "--replicas", "8"}, wantExit: 0},
		{name: "predict-state-file.txt", args: []string{"--state", dir + "state.yaml", "-f", dir + "new.yaml"}, wantExit: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append([]string{"predict"}, tt.args...)...)
			if code != tt.wantExit {
				t.Errorf("exit code = %d, want %d (stderr: %s)", code, tt.wantExit, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr = %q, want nothing", errOut)
			}
			golden(t, tt.name, out)
		})
	}
}

// TestPredictJSONShape checks the documented -o json fields a script would read.
func TestPredictJSONShape(t *testing.T) {
	out, _, code := run(t, "", "predict", "-f", "testdata/predict/new.yaml", "--from", "testdata/predict/old.yaml", "-o", "json")
	if code != 0 {
		t.Fatalf("exit code = %d, want 0", code)
	}
	var doc struct {
		SchemaVersion int `json:"schemaVersion"`
		Predictions   []struct {
			Plan struct {
				Header struct {
					MaxPods       int    `json:"maxPods"`
					NewReplicaSet string `json:"newReplicaSet"`
				} `json:"header"`
				Steps []struct {
					Message string `json:"message"`
				} `json:"steps"`
				Summary struct {
					Completed bool `json:"completed"`
				} `json:"summary"`
			} `json:"plan"`
		} `json:"predictions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("-o json is not JSON: %v", err)
	}
	if doc.SchemaVersion != 1 || len(doc.Predictions) != 1 {
		t.Fatalf("schemaVersion %d, %d predictions; want 1, 1", doc.SchemaVersion, len(doc.Predictions))
	}
	p := doc.Predictions[0].Plan
	if p.Header.MaxPods != 4 || !p.Summary.Completed || len(p.Steps) != 6 ||
		!strings.HasPrefix(p.Steps[0].Message, "Scaled up replica set "+p.Header.NewReplicaSet+" from 0 to 1") {
		t.Errorf("plan = %+v, want 6 steps starting with the new ReplicaSet from 0 to 1, at most 4 pods, completed", p)
	}
}

func TestPredictUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "nothing", args: nil, want: "nothing to predict"},
		{name: "two baselines", args: []string{"-f", "x.yaml", "--from", "a.yaml", "--state", "b.yaml"}, want: "at most one of"},
		{name: "bad image", args: []string{"--state", "testdata/predict/state.yaml", "--image", "nginx"}, want: "want NAME=IMAGE"},
		{name: "unknown container", args: []string{"--state", "testdata/predict/state.yaml", "--image", "db=postgres"}, want: `unable to find container named "db"`},
		{name: "not a deployment", args: []string{"--state", "testdata/predict/state.yaml", "statefulset/web", "--replicas", "2"}, want: "predict models Deployments"},
		{name: "missing deployment", args: []string{"--state", "testdata/predict/state.yaml", "deployment/api", "--replicas", "2"}, want: "deployment /api: not found in testdata/predict/state.yaml"},
		{name: "undo without history", args: []string{"-f", "testdata/predict/new.yaml", "--from", "testdata/predict/old.yaml", "--undo"}, want: "no rollout history found"},
		{name: "resume not paused", args: []string{"--state", "testdata/predict/state.yaml", "--resume"}, want: "is not paused"},
		{name: "bad output", args: []string{"-f", "x.yaml", "-o", "png"}, want: `--output "png"`},
		{name: "missing file", args: []string{"-f", "testdata/predict/nope.yaml"}, want: "nope.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append([]string{"predict"}, tt.args...)...)
			if code != 2 {
				t.Errorf("exit code = %d, want 2 (stdout %q)", code, out)
			}
			if !strings.Contains(errOut+out, tt.want) {
				t.Errorf("output = %q %q, want it to mention %q", out, errOut, tt.want)
			}
			if strings.Contains(errOut, "panic") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("stderr = %q, want one line", errOut)
			}
		})
	}
}
