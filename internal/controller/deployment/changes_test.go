package deployment

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// TestPauseEditsResume: pause, two template edits, then resume make exactly one new revision:
// the paused Deployment creates no ReplicaSet for the intermediate template, and resuming rolls
// out the last one.
func TestPauseEditsResume(t *testing.T) {
	old := webDeployment(t, 3, "nginx:1.0", defaultStrategy)
	paused := webDeployment(t, 3, "nginx:1.0", defaultStrategy+"  paused: true")
	edit1 := webDeployment(t, 3, "nginx:2.0", defaultStrategy+"  paused: true")
	edit2 := webDeployment(t, 3, "nginx:3.0", defaultStrategy+"  paused: true")
	resumed := webDeployment(t, 3, "nginx:3.0", defaultStrategy)
	p, err := Simulate(Input{
		Deployment: old.DeepCopy(), Old: old,
		Timing: kernel.Timing{ReadyAfter: 10 * time.Second, TerminateAfter: 5 * time.Second},
		Changes: []Change{
			{At: 1 * time.Second, Deployment: paused, Description: "pause"},
			{At: 2 * time.Second, Deployment: edit1, Description: "image nginx:2.0"},
			{At: 3 * time.Second, Deployment: edit2, Description: "image nginx:3.0"},
			{At: 4 * time.Second, Deployment: resumed, Description: "resume"},
		},
	})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	created := map[string]bool{}
	for _, m := range scaleMessages(p) {
		if strings.HasPrefix(m, "Scaled up replica set ") && strings.Contains(m, " from 0 to ") {
			created[strings.Fields(m)[4]] = true
		}
	}
	if len(created) != 1 || !created[rsName(resumed)] {
		t.Errorf("ReplicaSets scaled up from 0 = %v, want only %s (nginx:3.0)", created, rsName(resumed))
	}
	if p.Header.OldRevision != "1" || p.Header.NewRevision != "2" {
		t.Errorf("revisions %q → %q, want 1 → 2", p.Header.OldRevision, p.Header.NewRevision)
	}
	if p.TargetRevision != rsName(resumed) || !p.Summary.Completed {
		t.Errorf("Simulate() = new RS %q, completed %v; want %s, true", p.TargetRevision, p.Summary.Completed, rsName(resumed))
	}
	for _, s := range p.Steps {
		if s.Reason == ReasonScaling && s.At < 4*time.Second {
			t.Errorf("scaling step %q at %s, before the resume at 4s", s.Message, s.At)
		}
	}
}

// TestRolloverChange: v1 → v2 with v2's pods never ready, then v3 is applied at 20s. v3 is
// created at once, v2's unready pods are cleaned up first, v1 drains, and v3 completes.
func TestRolloverChange(t *testing.T) {
	v1 := webDeployment(t, 10, "nginx:1.0", defaultStrategy)
	v2 := webDeployment(t, 10, "nginx:2.0", defaultStrategy)
	v3 := webDeployment(t, 10, "nginx:3.0", defaultStrategy)
	p, err := Simulate(Input{
		Deployment: v2, Old: v1,
		Timing:  kernel.Timing{ReadyAfter: 30 * time.Second, TerminateAfter: 5 * time.Second},
		Changes: []Change{{At: 20 * time.Second, Deployment: v3, Description: "apply v3"}},
	})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	got := scaleMessages(p)
	want := []string{
		"Scaled up replica set " + rsName(v2) + " from 0 to 3",
		"Scaled down replica set " + rsName(v1) + " from 10 to 8",
		// At 20s v2's 3 pods are not ready: reconcileNew cannot scale v3 up (13 pods), and
		// cleanupUnhealthyReplicas scales v2 down by maxScaledDown = 13 − 8 − 3 = 2.
	}
	if len(got) < 2 || !equal(got[:2], want) {
		t.Fatalf("first events = %q, want %q", got, want)
	}
	var sawChange bool
	for _, s := range p.Steps {
		if s.Reason == kernel.ReasonChange {
			sawChange = s.At == 20*time.Second && s.Message == "apply v3"
		}
	}
	if !sawChange {
		t.Errorf("no Change step at 20s in %+v", p.Steps)
	}
	if p.TargetRevision != rsName(v3) || !p.Summary.Completed || p.Header.NewRevision != "3" {
		t.Errorf("Simulate() = new RS %q, completed %v, revision %q; want %s, true, 3", p.TargetRevision, p.Summary.Completed, p.Header.NewRevision, rsName(v3))
	}
	last := p.Steps[len(p.Steps)-1]
	for _, r := range last.Revisions {
		if r.Name != rsName(v3) && r.Replicas != 0 {
			t.Errorf("%s ends at %d replicas, want 0", r.Name, r.Replicas)
		}
	}
}

func TestDeploymentHeader(t *testing.T) {
	tests := []struct {
		name                   string
		replicas               int32
		strategy               string
		wantSurge, wantUnavail string
		wantMax, wantMin       int32
	}{
		{name: "default 25% of 10", replicas: 10, strategy: defaultStrategy,
			wantSurge: "25% of 10 = 2.5 → 3 (rounded up)", wantUnavail: "25% of 10 = 2.5 → 2 (rounded down)", wantMax: 13, wantMin: 8},
		{name: "25% of 4 is exact", replicas: 4, strategy: defaultStrategy,
			wantSurge: "25% of 4 = 1", wantUnavail: "25% of 4 = 1", wantMax: 5, wantMin: 3},
		{name: "integers", replicas: 10, strategy: surge3Strategy, wantSurge: "3", wantUnavail: "2", wantMax: 13, wantMin: 8},
		{name: "surge 0 and 25% of 3 rounds to 0", replicas: 3, strategy: surge0Strategy,
			wantSurge: "0", wantUnavail: "25% of 3 = 0.75 → 0 (rounded down); maxSurge is also 0, so the controller uses 1", wantMax: 3, wantMin: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := DeploymentHeader(webDeployment(t, tt.replicas, "nginx:1.0", tt.strategy))
			if len(h.Settings) != 2 || h.Settings[0].Arithmetic != tt.wantSurge || h.Settings[1].Arithmetic != tt.wantUnavail {
				t.Errorf("DeploymentHeader().Settings = %+v, want %q and %q", h.Settings, tt.wantSurge, tt.wantUnavail)
			}
			if h.MaxPods != tt.wantMax || h.MinAvailable != tt.wantMin {
				t.Errorf("DeploymentHeader() bounds = %d/%d, want %d/%d", h.MaxPods, h.MinAvailable, tt.wantMax, tt.wantMin)
			}
		})
	}
	h := DeploymentHeader(webDeployment(t, 5, "nginx:1.0", recreateStrategy))
	if h.Strategy != "Recreate" || h.MaxPods != 5 || h.MinAvailable != 0 || len(h.Settings) != 0 {
		t.Errorf("DeploymentHeader(Recreate) = %+v, want at most 5 pods, at least 0 available", h)
	}
}
