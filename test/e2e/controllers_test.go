package e2e

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// sharedPodReadyQuantum is the quantum, in seconds, of the kwok pod stages the shared
// controllers run with (KwokQuantizedPodStages). It changes nothing for pods without
// minReadySeconds: they are available as soon as they are Ready.
const sharedPodReadyQuantum = 4

// sharedNodes is how many kwok Nodes the shared controllers create.
const sharedNodes = 3

var (
	controllersOnce sync.Once
	controllers     *Controllers
	controllersErr  error
)

// sharedControllers returns kube-controller-manager, kube-scheduler and kwok running against
// the package's shared control plane (sharedCluster), starting them on first use with
// DefaultControllers, sharedNodes kwok Nodes and KwokQuantizedPodStages(sharedPodReadyQuantum).
// They run until the cluster is stopped after the last test. When the end-to-end tests are
// enabled, components that cannot start fail t.
func sharedControllers(t testing.TB) *Controllers {
	t.Helper()
	c := sharedCluster(t)
	controllersOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		start := time.Now()
		controllers, controllersErr = c.StartControllers(ctx, ControllerOptions{
			Nodes:     sharedNodes,
			PodStages: KwokQuantizedPodStages(sharedPodReadyQuantum),
		})
		if controllersErr == nil {
			fmt.Fprintf(os.Stderr, "e2e: controllers (kube-controller-manager pid %d, kube-scheduler pid %d, kwok pid %d) and %d nodes ready in %s\n",
				controllers.ControllerManager.PID(), controllers.Scheduler.PID(), controllers.Kwok.PID(),
				len(controllers.Nodes), time.Since(start).Round(10*time.Millisecond))
		}
	})
	if controllersErr != nil {
		t.Fatalf("start controllers: %v", controllersErr)
	}
	return controllers
}
