package deployment

import (
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// TestTimelineShowsPodsBetweenSteps: the plan's Timeline records the pods at every change,
// terminations and readiness between two controller events included, and ends with the pods
// the plan's Final holds.
func TestTimelineShowsPodsBetweenSteps(t *testing.T) {
	old := webDeployment(t, 3, "nginx:1.0", defaultStrategy)
	d := webDeployment(t, 3, "nginx:2.0", defaultStrategy)
	p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 7 * time.Second, TerminateAfter: 5 * time.Second}})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	steps := map[time.Duration]bool{}
	for _, s := range p.Steps {
		steps[s.At] = true
	}
	between := 0
	for i, s := range p.Timeline {
		if !steps[s.At] {
			between++
		}
		if i > 0 && s.At < p.Timeline[i-1].At {
			t.Errorf("Timeline[%d] at %s is before Timeline[%d] at %s", i, s.At, i-1, p.Timeline[i-1].At)
		}
	}
	if between == 0 {
		t.Errorf("Timeline = %+v, want samples between the steps (pods terminating, turning available)", p.Timeline)
	}
	last := p.Timeline[len(p.Timeline)-1]
	if last.Pods != 3 || last.Available != 3 || last.At != p.End {
		t.Errorf("last sample = %+v, want 3 pods, 3 available, at the plan's end %s", last, p.End)
	}
}
