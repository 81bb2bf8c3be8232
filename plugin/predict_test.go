package plugin

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
		{name: "predict-statefulset.txt", args: []string{"-f", dir + "sts-new.yaml", "--from", dir + "sts-old.yaml"}, wantExit: 0},
		{name: "predict-statefulset.json", args: []string{"-f", dir + "sts-new.yaml", "--from", dir + "sts-old.yaml", "-o", "json"}, wantExit: 0},
		{name: "predict-daemonset.txt", args: []string{"-f", dir + "ds-new.yaml", "--from", dir + "ds-old.yaml", "--nodes", "5"}, wantExit: 0},
		{name: "predict-daemonset-default-nodes.txt", args: []string{"-f", dir + "ds-new.yaml", "--from", dir + "ds-old.yaml"}, wantExit: 0},
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

// TestPredictBaseRef: the old version of the file comes from git, so a changed image predicts a
// rollout from the committed version, and a file new since the ref is a creation.
func TestPredictBaseRef(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	gitCmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	old, err := os.ReadFile("testdata/predict/old.yaml")
	if err != nil {
		t.Fatal(err)
	}
	next, err := os.ReadFile("testdata/predict/new.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "web.yaml")
	gitCmd("init", "-q")
	if err := os.WriteFile(file, old, 0o644); err != nil {
		t.Fatal(err)
	}
	gitCmd("add", "web.yaml")
	gitCmd("commit", "-q", "-m", "v1")
	if err := os.WriteFile(file, next, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "", "predict", "-f", file, "--base-ref", "HEAD")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "web.yaml at HEAD (assumed fully rolled out and available)") || !strings.Contains(out, "1 → 2") ||
		!strings.Contains(out, "from 0 to 1") {
		t.Errorf("predict --base-ref HEAD =\n%s\nwant a rollout from the committed version", out)
	}
	added := filepath.Join(dir, "added.yaml")
	if err := os.WriteFile(added, next, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = run(t, "", "predict", "-f", added, "--base-ref", "HEAD")
	if code != 0 || !strings.Contains(out, "does not exist at HEAD") || !strings.Contains(out, "from 0 to 3") {
		t.Errorf("predict of a file new since HEAD = exit %d\n%s\nwant a creation", code, out)
	}
	_, errOut, code = run(t, "", "predict", "-f", file, "--base-ref", "no-such-ref")
	if code != 2 || !strings.Contains(errOut, "no-such-ref") {
		t.Errorf("predict --base-ref no-such-ref = exit %d, stderr %q; want 2 naming the ref", code, errOut)
	}
}
