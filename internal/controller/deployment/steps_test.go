package deployment

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// TestStepShowsItsOwnEvent: each step shows the ReplicaSets as its own event leaves them, not
// as the whole sync does. 10 replicas, maxSurge 3, maxUnavailable 2: the first sync scales the
// new ReplicaSet 0→3 and then the old one 10→8; the first step still shows the old one at 10.
func TestStepShowsItsOwnEvent(t *testing.T) {
	const strategy = `  strategy:
    rollingUpdate:
      maxSurge: 3
      maxUnavailable: 2`
	old := webDeployment(t, 10, "nginx:1.0", strategy)
	d := webDeployment(t, 10, "nginx:2.0", strategy)
	p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 10 * time.Second, TerminateAfter: 5 * time.Second}})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	if len(p.Steps) < 2 || !strings.Contains(p.Steps[0].Message, "from 0 to 3") || !strings.Contains(p.Steps[1].Message, "from 10 to 8") {
		t.Fatalf("first steps = %v, want the new ReplicaSet 0→3, then the old 10→8", scaleMessages(p))
	}
	size := func(s kernel.Step, name string) kernel.RevisionSize {
		for _, r := range s.Revisions {
			if r.Name == name {
				return r
			}
		}
		t.Fatalf("step %q lacks ReplicaSet %s: %+v", s.Message, name, s.Revisions)
		return kernel.RevisionSize{}
	}
	oldName, newName := rsName(old), rsName(d)
	first, second := p.Steps[0], p.Steps[1]
	if o, n := size(first, oldName), size(first, newName); o.Replicas != 10 || o.Available != 10 || n.Replicas != 3 || first.Pods != 13 || first.Available != 10 {
		t.Errorf("step 1 %q: old %+v, new %+v, pods %d, available %d; want old 10 (10 available), new 3, 13 pods, 10 available",
			first.Message, o, n, first.Pods, first.Available)
	}
	if o := size(second, oldName); o.Replicas != 8 || o.Pods != 10 || second.Available != 8 {
		t.Errorf("step 2 %q: old %+v, available %d; want old 8 with 10 pods (2 terminating), 8 available", second.Message, o, second.Available)
	}
}
