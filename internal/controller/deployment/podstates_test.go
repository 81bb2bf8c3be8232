package deployment

import (
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// TestTimelineSplitsPodsByState: every sample's revisions split their pods into available,
// ready, not ready and terminating consistently with the sample's totals, and the pods the
// strategy bounds (those not terminating) never exceed MaxPods, while all pods do (the
// picture draws the bound on the first quantity; issue 33). 8 replicas, maxSurge 3,
// maxUnavailable 1: at most 11 pods not terminating, 16 in all at the peak.
func TestTimelineSplitsPodsByState(t *testing.T) {
	strategy := `  strategy:
    rollingUpdate:
      maxSurge: 3
      maxUnavailable: 1
`
	old := webDeployment(t, 8, "nginx:1.0", strategy)
	d := webDeployment(t, 8, "nginx:2.0", strategy)
	p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 4 * time.Second, TerminateAfter: 5 * time.Second}})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	if p.Header.MaxPods != 11 {
		t.Fatalf("MaxPods = %d, want 11", p.Header.MaxPods)
	}
	peak, peakActive, sawTerminating, sawNotReady := int32(0), int32(0), false, false
	for i, s := range p.Timeline {
		var pods, available, terminating int32
		for _, r := range s.Revisions {
			if r.Available > r.Ready || r.Ready > r.Pods-r.Terminating || r.Terminating > r.Pods {
				t.Errorf("Timeline[%d] %s: available %d, ready %d, terminating %d of %d pods: not nested", i, r.Name, r.Available, r.Ready, r.Terminating, r.Pods)
			}
			pods += r.Pods
			available += r.Available
			terminating += r.Terminating
			sawNotReady = sawNotReady || r.Pods-r.Terminating > r.Ready
		}
		if pods != s.Pods || available != s.Available {
			t.Errorf("Timeline[%d] at %s: revisions hold %d pods, %d available; the sample %d, %d", i, s.At, pods, available, s.Pods, s.Available)
		}
		sawTerminating = sawTerminating || terminating > 0
		peak = max(peak, pods)
		peakActive = max(peakActive, pods-terminating)
	}
	if peakActive > p.Header.MaxPods || peak <= p.Header.MaxPods || !sawTerminating || !sawNotReady {
		t.Errorf("peak %d pods, %d not terminating, terminating seen %v, not ready seen %v; want at most %d not terminating, more in all",
			peak, peakActive, sawTerminating, sawNotReady, p.Header.MaxPods)
	}
}
