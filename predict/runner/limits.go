package runner

import (
	"fmt"
)

// Limits on what one prediction simulates. The StatefulSet, DaemonSet and
// Job controllers are simulated pod by pod (each pod's ordinal, node or
// index has its own state and steps), and --runs repeats a whole
// simulation: a StatefulSet of 10^9 replicas, a Job running 10^9 pods at
// once or --runs 10000 on 10^6 replicas would run for hours or out of
// memory, to print a plan of more steps than anyone reads. Over a limit, the
// workload is an error naming the limit; the other workloads are still
// predicted.
const (
	// MaxPods is the most pods a StatefulSet (replicas), a DaemonSet (nodes)
	// or a Job (pods running at once: parallelism, at most completions) is
	// simulated with. It is the Job simulation's own stop: it ends after
	// creating this many pods.
	MaxPods = 10_000
	// MaxPodRuns bounds --runs times the workload's pods (a Deployment's or
	// StatefulSet's replicas, a DaemonSet's nodes): each spread run draws a
	// readiness time per pod.
	MaxPodRuns = 1_000_000
	// MaxNext is the most scheduled times of a CronJob listed (--next).
	MaxNext = 1_000
)

// checkPods refuses a workload of kind whose simulation would hold more than
// MaxPods pods; what names the field the count comes from.
func checkPods(kind, what string, pods int64) error {
	if pods > MaxPods {
		return fmt.Errorf("%s %s %d: predict simulates a %s pod by pod, and at most %d pods (runner.MaxPods); a plan of %d pods would be too long to read",
			kind, what, pods, kind, MaxPods, pods)
	}
	return nil
}

// checkRuns refuses --runs on a workload with so many pods that the runs
// together would draw more than MaxPodRuns readiness times.
func checkRuns(req Request, pods int64) error {
	if req.Runs > 0 && req.ReadySpread > 0 && int64(req.Runs)*pods > MaxPodRuns {
		return fmt.Errorf("--runs %d on %d pods: at most %d runs × pods (runner.MaxPodRuns); give at most --runs %d for this workload",
			req.Runs, pods, MaxPodRuns, max(MaxPodRuns/pods, 1))
	}
	return nil
}

// sizeOf checks a StatefulSet's or DaemonSet's pods against MaxPods and
// --runs against MaxPodRuns.
func sizeOf(req Request, kind, what string, pods int64) error {
	if err := checkPods(kind, what, pods); err != nil {
		return err
	}
	return checkRuns(req, pods)
}
