package deployment

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// compact writes a plan's scale steps as "new 0→3, old 8→7, …", the notation of
// shared/reference/controllers.md.
func compact(p *kernel.Plan, oldName, newName string) string {
	var parts []string
	for _, msg := range kernel.Sequence(p) {
		var name string
		var from, to int
		var dir string
		if n, _ := fmtSscanf(msg, &dir, &name, &from, &to); n != 4 {
			parts = append(parts, msg)
			continue
		}
		who := name
		switch name {
		case oldName:
			who = "old"
		case newName:
			who = "new"
		}
		parts = append(parts, who+" "+itoa(int32(from))+"→"+itoa(int32(to)))
	}
	return strings.Join(parts, ", ")
}

// checkoutRuns are the three real runs of controllers.md ("Pods created by different syncs
// never turn Ready in the same instant"): Deployment checkout, 8 replicas, maxSurge 3,
// maxUnavailable 1, no probes, no minReadySeconds, image change, on a real v1.37.1 controller.
var checkoutRuns = []string{
	"new 0→3, old 8→7, new 3→4, old 7→4, new 4→7, old 4→3, new 7→8, old 3→0",
	"new 0→3, old 8→7, new 3→4, old 7→6, new 4→5, old 6→4, new 5→7, old 4→2, new 7→8, old 2→0",
	"new 0→3, old 8→7, new 3→4, old 7→6, new 4→5, old 6→2, new 5→8, old 2→0",
}

const surge3Unavailable1 = `  strategy:
    rollingUpdate:
      maxSurge: 3
      maxUnavailable: 1`

// checkoutPlan simulates the checkout example with kwok's timing, the control plane the real
// runs were recorded on: pods Ready about 20ms after creation, deleted pods gone after 100ms.
func checkoutPlan(t *testing.T, spread *kernel.Spread) (*kernel.Plan, string, string) {
	t.Helper()
	old := webDeployment(t, 8, "shop/checkout:1.0", surge3Unavailable1)
	d := webDeployment(t, 8, "shop/checkout:1.1", surge3Unavailable1)
	p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 20 * time.Millisecond, TerminateAfter: 100 * time.Millisecond, Spread: spread}})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	return p, rsName(old), rsName(d)
}

// TestCausalPlanIsRealRun1: the deterministic plan is exactly run 1, not the merged
// "old 7→3, new 4→8" that no real run produced.
func TestCausalPlanIsRealRun1(t *testing.T) {
	p, oldName, newName := checkoutPlan(t, nil)
	if got := compact(p, oldName, newName); got != checkoutRuns[0] {
		t.Errorf("Simulate(checkout 8 at 3/1) = %s\nwant run 1: %s", got, checkoutRuns[0])
	}
	checkBounds(t, p, 11, 7)
	// Every step is at a multiple of ReadyAfter: the causal order lives below the wall-clock time.
	for _, s := range p.Steps {
		if s.At%(20*time.Millisecond) != 0 {
			t.Errorf("step %q at %s, want a multiple of ReadyAfter", s.Message, s.At)
		}
	}
}

// TestSlowStartPlanIsTheRealMode: 6 replicas at maxSurge 2 / maxUnavailable 0, no
// minReadySeconds, image change. The first sync creates 2 pods (slow-start batches of 1 and 1)
// and deletes none: the real controller (v1.37.1, kwok) saw them Ready one by one in 16 of 20
// runs, and took this sequence in 10 of them, more than any other (issue 35); the plan that had
// them Ready together (old 6→4, new 2→4, old 4→2, new 4→6, old 2→0) was taken in 2.
func TestSlowStartPlanIsTheRealMode(t *testing.T) {
	const surge2Unavailable0 = "  strategy:\n    rollingUpdate:\n      maxSurge: 2\n      maxUnavailable: 0"
	old := webDeployment(t, 6, "nginx:1.0", surge2Unavailable0)
	d := webDeployment(t, 6, "nginx:2.0", surge2Unavailable0)
	p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 100 * time.Millisecond, TerminateAfter: 100 * time.Millisecond}})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	want := "new 0→2, old 6→5, new 2→3, old 5→4, new 3→4, old 4→3, new 4→5, old 3→2, new 5→6, old 2→1, old 1→0"
	if got := compact(p, rsName(old), rsName(d)); got != want {
		t.Errorf("Simulate(6 at 2/0) = %s\nwant the real runs' most frequent: %s", got, want)
	}
	checkBounds(t, p, 8, 6)
}

// TestFirstThreeThenTheRest: 25 replicas at maxSurge 8 / maxUnavailable 2, no
// minReadySeconds, image change. The first sync creates 8 pods (batches 1, 2, 4, 1) while the
// old ReplicaSet deletes 2, and the next creates 2 more; the real controller (v1.37.1, kwok,
// runs rolled out several at once with a pod watch, issue 35) saw the first three Ready alone
// (old 23→20) in 2 of the 6 runs and 14 of our 175, then the other 7 (old 20→13) in 9
// of those 14, and took this whole sequence twice, the only sequence of that branch taken more
// than once. The plan that saw the 8 together (old 23→15) was taken by none of the
// issue's 6 runs.
func TestFirstThreeThenTheRest(t *testing.T) {
	const surge8Unavailable2 = "  strategy:\n    rollingUpdate:\n      maxSurge: 8\n      maxUnavailable: 2"
	old := webDeployment(t, 25, "nginx:1.0", surge8Unavailable2)
	d := webDeployment(t, 25, "nginx:2.0", surge8Unavailable2)
	p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 100 * time.Millisecond, TerminateAfter: 100 * time.Millisecond}})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	want := "new 0→8, old 25→23, new 8→10, old 23→20, new 10→13, old 20→13, new 13→20, " +
		"old 13→10, new 20→23, old 10→7, new 23→25, old 7→3, old 3→0"
	if got := compact(p, rsName(old), rsName(d)); got != want {
		t.Errorf("Simulate(25 at 8/2) = %s\nwant the recorded real run: %s", got, want)
	}
	checkBounds(t, p, 33, 23)
}

// TestReadySpreadReachesEveryRealRun: with pods of one batch turning Ready up to 100ms apart,
// the simulator produces runs 2 and 3 too; every run keeps the first sync's steps, the bounds
// and the final sizes.
func TestReadySpreadReachesEveryRealRun(t *testing.T) {
	det, oldName, newName := checkoutPlan(t, nil)
	seen := map[string]int{}
	detSeq := kernel.Sequence(det)
	for seed := range uint64(300) {
		p, _, _ := checkoutPlan(t, kernel.NewSpread(100*time.Millisecond, seed))
		seen[compact(p, oldName, newName)]++
		seq := kernel.Sequence(p)
		if !slices.Equal(seq[:3], detSeq[:3]) {
			t.Errorf("seed %d: first sync %v, want %v", seed, seq[:3], detSeq[:3])
		}
		checkBounds(t, p, 11, 7)
		if !slices.Equal(p.Final, det.Final) || !p.Summary.Completed {
			t.Errorf("seed %d: final %v (completed %v), want %v", seed, p.Final, p.Summary.Completed, det.Final)
		}
	}
	for i, run := range checkoutRuns {
		if seen[run] == 0 {
			t.Errorf("real run %d (%s) never produced in 300 spread runs; produced:\n%v", i+1, run, seen)
		}
	}
}

func TestDistribute(t *testing.T) {
	det, _, _ := checkoutPlan(t, nil)
	dist, err := kernel.Distribute(200, 7, 100*time.Millisecond, det, func(s *kernel.Spread) (*kernel.Plan, error) {
		p, _, _ := checkoutPlan(t, s)
		return p, nil
	})
	if err != nil {
		t.Fatalf("Distribute() error: %v", err)
	}
	if dist.Runs != 200 || dist.Completed != 200 {
		t.Errorf("Distribute() runs %d, completed %d; want 200, 200", dist.Runs, dist.Completed)
	}
	if dist.MinAvailable < 7 {
		t.Errorf("Distribute() min available %d, want at least 7", dist.MinAvailable)
	}
	// Every run is counted once, under one sequence; the most frequent come first; the plan's
	// own sequence is marked with the runs that took it.
	total, planMarked := 0, 0
	for i, sc := range dist.Sequences {
		total += sc.Runs
		if i > 0 && sc.Runs > dist.Sequences[i-1].Runs {
			t.Errorf("Sequences[%d] has %d runs, more than Sequences[%d] (%d): want the most frequent first", i, sc.Runs, i-1, dist.Sequences[i-1].Runs)
		}
		if sc.Plan {
			planMarked++
			if sc.Runs != dist.DeterministicRuns || !slices.Equal(sc.Steps, kernel.Sequence(det)) {
				t.Errorf("the sequence marked Plan has %d runs and steps %v, want %d runs and the plan's %v", sc.Runs, sc.Steps, dist.DeterministicRuns, kernel.Sequence(det))
			}
		}
	}
	if total != dist.Runs || planMarked > 1 || (planMarked == 1) != (dist.DeterministicRuns > 0) {
		t.Errorf("Sequences count %d runs with %d marked Plan, want %d runs and one mark iff the plan was taken (%d runs)", total, planMarked, dist.Runs, dist.DeterministicRuns)
	}
	if len(dist.Sequences) < 3 {
		t.Errorf("Distribute() found %d sequences, want at least the 3 real ones", len(dist.Sequences))
	}
	if dist.CompletionP50 > dist.CompletionP95 || dist.CompletionP50 < det.Summary.Duration {
		t.Errorf("Distribute() p50 %s, p95 %s; want det %s ≤ p50 ≤ p95", dist.CompletionP50, dist.CompletionP95, det.Summary.Duration)
	}
	again, _ := kernel.Distribute(200, 7, 100*time.Millisecond, det, func(s *kernel.Spread) (*kernel.Plan, error) {
		p, _, _ := checkoutPlan(t, s)
		return p, nil
	})
	if !reflect.DeepEqual(again.Sequences, dist.Sequences) || again.CompletionP95 != dist.CompletionP95 {
		t.Errorf("Distribute() with the same seed differs: %+v, then %+v", dist, again)
	}
}

// fmtSscanf parses "Scaled up replica set NAME from A to B" (or down).
func fmtSscanf(msg string, dir, name *string, from, to *int) (int, error) {
	return fmt.Sscanf(msg, "Scaled %s replica set %s from %d to %d", dir, name, from, to)
}

// checkBounds checks the strategy's promise at every step: at most maxPods replicas asked for
// (terminating pods are not counted, as the controller does not count them) and at least
// minAvailable available.
func checkBounds(t *testing.T, p *kernel.Plan, maxPods, minAvailable int32) {
	t.Helper()
	for _, s := range p.Steps {
		n := int32(0)
		for _, rs := range s.Revisions {
			n += rs.Replicas
		}
		if n > maxPods || s.Available < minAvailable {
			t.Errorf("step %q: %d replicas, %d available; want at most %d and at least %d", s.Message, n, s.Available, maxPods, minAvailable)
		}
	}
	if p.Summary.MinAvailable < minAvailable {
		t.Errorf("min available %d, want at least %d", p.Summary.MinAvailable, minAvailable)
	}
}

// TestRolloverStuckPodsDoNotJoin: 6 replicas at maxSurge 2 / maxUnavailable 0, no
// minReadySeconds, v3 applied while v2's 2 pods cannot be scheduled. v3's first sync deletes
// v2's pods (never Ready, deleted at once) and creates 2 pods in batches of 1 and 1, which turn
// Ready on their own: old 6→5, then single steps, as every run recorded for issue 35 and 3 of
// our 12 (9 of 12 took 6→5 first; 1 took 6→4 and pairs, the sequence this plan had when a
// deletion of pods that were never Ready still made a sync's batches turn Ready together).
func TestRolloverStuckPodsDoNotJoin(t *testing.T) {
	const surge2Unavailable0 = "  strategy:\n    rollingUpdate:\n      maxSurge: 2\n      maxUnavailable: 0"
	want := "web-v2 2→0, new 0→2, old 6→5, new 2→3, old 5→4, new 3→4, old 4→3, new 4→5, old 3→2, new 5→6, old 2→1, old 1→0"
	if got := stuckRollover(t, 6, surge2Unavailable0, 6, 2); got != want {
		t.Errorf("Simulate(rollover, 6 at 2/0) = %s\nwant the recorded real run: %s", got, want)
	}
}

// TestRolloverFirstPodThenTheRest: 10 replicas at the default 25%/25%, no minReadySeconds, v3
// applied while v2's 5 pods cannot be scheduled. v3's first sync creates 5 pods in batches of
// 1, 2 and 2, deleting none that turn Ready: the first pod turns Ready alone (old 8→7), the
// other 4 together (old 7→3), as 4 of 6 real runs took the whole sequence below.
func TestRolloverFirstPodThenTheRest(t *testing.T) {
	want := "web-v2 5→0, new 0→5, old 8→7, new 5→6, old 7→3, new 6→10, old 3→2, old 2→0"
	if got := stuckRollover(t, 10, defaultStrategy, 8, 5); got != want {
		t.Errorf("Simulate(rollover, 10 at 25%%/25%%) = %s\nwant the recorded real run: %s", got, want)
	}
}

// stuckRollover simulates v3 of a Deployment of replicas (strategy, no minReadySeconds)
// applied while v1 has available pods and v2 stuck ones (they cannot be scheduled), with pods
// Ready 100ms after creation, and returns the plan's scale steps in compact's notation (v2 by
// its name, web-v2).
func stuckRollover(t *testing.T, replicas int32, strategy string, available, stuck int32) string {
	t.Helper()
	v1 := webDeployment(t, replicas, "nginx:1.0", strategy)
	v2 := webDeployment(t, replicas, "nginx:2.0", strategy)
	v3 := webDeployment(t, replicas, "nginx:3.0", strategy)
	for _, d := range []*apps.Deployment{v1, v2, v3} {
		d.Spec.MinReadySeconds = 0
	}
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	p, err := Simulate(Input{
		Deployment: v3,
		Start:      start,
		Timing:     kernel.Timing{ReadyAfter: 100 * time.Millisecond, TerminateAfter: 100 * time.Millisecond},
		ReplicaSets: []ReplicaSetState{
			{ReplicaSet: stateRS("web-v1", v1, available, "1", start.Add(-2*time.Hour)), Pods: []PodGroup{{Phase: PodAvailable, Count: available}}},
			{ReplicaSet: stateRS("web-v2", v2, stuck, "2", start.Add(-time.Hour)), Pods: []PodGroup{{Phase: PodStuck, Count: stuck}}},
		},
	})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	return compact(p, "web-v1", rsName(v3))
}

// rollbackRuns are the sequences of the 10 real runs of issue 44's rollback: 5 replicas at the
// default 25%/25% (maxSurge 2, maxUnavailable 1), no minReadySeconds, v1 → v2 complete, then
// `kubectl rollout undo` (predicted with --undo from the state dump): the first in 7 runs, the
// second in 1, the third in 2 (on a loaded machine).
var rollbackRuns = []string{
	"new 0→2, old 5→4, new 2→3, old 4→2, new 3→5, old 2→1, old 1→0",
	"new 0→2, old 5→4, new 2→3, old 4→2, new 3→5, old 2→0",
	"new 0→2, old 5→4, new 2→3, old 4→3, new 3→4, old 3→1, new 4→5, old 1→0",
}

// TestRollbackScaledUpThenDownTogether: a rollback whose new ReplicaSet (v1, at 0) exists
// scales it up (new 0→2, 2 pods in batches of 1 and 1) in one sync and the old one down (old
// 5→4) in the next, at the same wall-clock time: the 2 pods turn Ready together (old 4→2), as
// in 7 of the 10 real runs, and as the 3 pods of 8 at 3/1, whose one sync creates the new
// ReplicaSet at 3 and scales the old one down, do (TestCausalPlanIsRealRun1). From d0a5404 to
// regroup the plan took old 4→3, 3→2 (each batch alone), which none of the 10 runs took.
func TestRollbackScaledUpThenDownTogether(t *testing.T) {
	for _, readyAfter := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, time.Second, 2 * time.Second} {
		p := rollbackPlan(t, kernel.Timing{ReadyAfter: readyAfter, TerminateAfter: 5 * time.Second})
		if got := compact(p, "web-v2", "web-v1"); got != rollbackRuns[0] {
			t.Errorf("Simulate(rollback, 5 at 25%%/25%%, ready after %s) = %s\nwant the real runs' most frequent: %s", readyAfter, got, rollbackRuns[0])
		}
		checkBounds(t, p, 7, 4)
	}
}

// TestRollbackEnvelopeHasEveryRealRun: with kwok's Ready delay (20ms and a spread of 100ms,
// as the e2e's envelope), 500 seeds produce each of the 3 sequences the 10 real runs took.
func TestRollbackEnvelopeHasEveryRealRun(t *testing.T) {
	seen := map[string]int{}
	for seed := range uint64(500) {
		p := rollbackPlan(t, kernel.Timing{ReadyAfter: 20 * time.Millisecond, TerminateAfter: 100 * time.Millisecond, Spread: kernel.NewSpread(100*time.Millisecond, seed+1)})
		seen[compact(p, "web-v2", "web-v1")]++
		checkBounds(t, p, 7, 4)
	}
	for _, run := range rollbackRuns {
		if seen[run] == 0 {
			t.Errorf("real run %s never produced in 500 spread runs; produced:\n%v", run, seen)
		}
	}
}

// rollbackPlan simulates the rollback of rollbackRuns from the state the real runs' dump
// held: v1's ReplicaSet at 0 (revision 1), v2's with 5 available pods (revision 2), the
// Deployment back at v1's template.
func rollbackPlan(t *testing.T, timing kernel.Timing) *kernel.Plan {
	t.Helper()
	v1 := webDeployment(t, 5, "nginx:1.0", defaultStrategy)
	v2 := webDeployment(t, 5, "nginx:2.0", defaultStrategy)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	p, err := Simulate(Input{
		Deployment: v1,
		Start:      start,
		Timing:     timing,
		ReplicaSets: []ReplicaSetState{
			{ReplicaSet: stateRS("web-v1", v1, 0, "1", start.Add(-2*time.Hour))},
			{ReplicaSet: stateRS("web-v2", v2, 5, "2", start.Add(-time.Hour)), Pods: []PodGroup{{Phase: PodAvailable, Count: 5}}},
		},
	})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	return p
}
