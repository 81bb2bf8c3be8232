package deployment

import (
	"fmt"
	"testing"
	"time"

	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// checkRollingInvariants simulates an image update of a fully available Deployment and checks
// the rollout's invariants: ReplicaSet sizes never sum above replicas + maxSurge, available pods
// never drop below replicas − maxUnavailable, and the plan completes or reports its stall.
func checkRollingInvariants(t *testing.T, replicas int32, maxSurge, maxUnavailable string, failNew bool, readyAfter, terminateAfter time.Duration) {
	t.Helper()
	strategy := fmt.Sprintf("  strategy:\n    rollingUpdate:\n      maxSurge: %s\n      maxUnavailable: %s", maxSurge, maxUnavailable)
	old := webDeployment(t, replicas, "nginx:1.0", strategy)
	d := webDeployment(t, replicas, "nginx:2.0", strategy)
	p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: readyAfter, TerminateAfter: terminateAfter, FailNew: failNew}})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	limit := replicas + deploymentutil.MaxSurge(*d)
	minAvailable := replicas - deploymentutil.MaxUnavailable(*d)
	for _, s := range p.Steps {
		sum := int32(0)
		for _, rs := range s.Revisions {
			sum += rs.Replicas
		}
		if sum > limit {
			t.Errorf("step %q at %s: sizes sum to %d, want at most %d", s.Message, s.At, sum, limit)
		}
	}
	if p.Summary.MinAvailable < minAvailable {
		t.Errorf("Simulate().Summary.MinAvailable = %d, want at least %d", p.Summary.MinAvailable, minAvailable)
	}
	switch {
	case p.Summary.Completed && failNew:
		t.Errorf("Simulate() completed although new pods never become ready")
	case !p.Summary.Completed && !failNew:
		t.Errorf("Simulate() stalled (%s), want completed", p.Summary.StallReason)
	case !p.Summary.Completed && p.Summary.StallReason != deploymentutil.TimedOutReason:
		t.Errorf("Simulate() stalled with reason %q, want %q", p.Summary.StallReason, deploymentutil.TimedOutReason)
	}
}

// TestRollingInvariants checks the invariants over a grid of rollouts.
func TestRollingInvariants(t *testing.T) {
	values := []string{"0", "1", "2", "25%", "50%", "100%"}
	for replicas := int32(1); replicas <= 12; replicas++ {
		for _, surge := range values {
			for _, unavailable := range values {
				if surge == "0" && unavailable == "0" {
					continue // rejected by validation
				}
				for _, failNew := range []bool{false, true} {
					name := fmt.Sprintf("replicas=%d,surge=%s,unavailable=%s,failNew=%v", replicas, surge, unavailable, failNew)
					t.Run(name, func(t *testing.T) {
						checkRollingInvariants(t, replicas, surge, unavailable, failNew, 7*time.Second, 20*time.Second)
					})
				}
			}
		}
	}
}

// FuzzRollingInvariants checks the invariants over random rollouts.
func FuzzRollingInvariants(f *testing.F) {
	f.Add(uint8(3), uint8(1), uint8(0), false, uint8(10), uint8(30))
	f.Add(uint8(10), uint8(3), uint8(2), true, uint8(5), uint8(0))
	f.Add(uint8(1), uint8(0), uint8(1), false, uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, replicas, surge, unavailable uint8, failNew bool, ready, terminate uint8) {
		r := int32(replicas%60) + 1
		s, u := fmt.Sprint(surge%(uint8(r)+2)), fmt.Sprint(unavailable%(uint8(r)+2))
		if surge%3 == 0 {
			s = fmt.Sprintf("%d%%", surge%101)
		}
		if unavailable%3 == 0 {
			u = fmt.Sprintf("%d%%", unavailable%101)
		}
		if (s == "0" || s == "0%") && (u == "0" || u == "0%") {
			t.Skip("rejected by validation")
		}
		checkRollingInvariants(t, r, s, u, failNew, time.Duration(ready)*time.Second, time.Duration(terminate)*time.Second)
	})
}
