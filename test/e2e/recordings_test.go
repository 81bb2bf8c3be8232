package e2e

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/deployment"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// replayStart is the wall clock of every replayed plan: a quantum boundary plus the phase the
// differential applies at (align), so that condition seconds fall as they did.
var replayStart = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC).Add(predictApplyLag)

// sequenceCount is one distinct real sequence of a scenario and how many runs took it.
type sequenceCount struct {
	seq   []string
	count int
}

// TestRecordedRollouts replays the real rollouts recorded on the v1.37.1 control plane with kwok
// (testdata/recordings, written by the Deployment differential under KUBECTL_WORKLOAD_RECORD_RUNS)
// without a cluster: for every scenario an offline replay can predict, the default plan must be
// one of its recorded sequences (the strict rule: the plan is what a real run did), and every
// such scenario must have recordings. The log is the model's report card: per scenario, how
// many runs were recorded, how many distinct sequences, how often the real runs took the plan's
// sequence and how often they took the most frequent one.
func TestRecordedRollouts(t *testing.T) {
	runs, err := readRecordedRuns(recordedRunsFile)
	if err != nil {
		t.Fatalf("recordings: %v", err)
	}
	byScenario := map[string][][]string{}
	for _, r := range runs {
		byScenario[r.Scenario] = append(byScenario[r.Scenario], r.Sequence)
	}
	var report []string
	planTop, scenarios := 0, 0
	for _, sc := range predictScenarios {
		if !sc.replayable() {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			real := byScenario[sc.name]
			if len(real) == 0 {
				t.Fatalf("no recorded run of %s in %s: record it (KUBECTL_WORKLOAD_RECORD_RUNS, see record_runs_test.go)", sc.name, recordedRunsFile)
			}
			want := replayPlan(t, sc)
			counts := countSequences(real)
			matches := 0
			for _, got := range real {
				if planMatches(sc, got, want) {
					matches++
				}
			}
			scenarios++
			if matches > 0 && planMatches(sc, counts[0].seq, want) {
				planTop++
			}
			report = append(report, fmt.Sprintf("  %-44s runs %3d  distinct %2d  plan %3d (%3.0f%%)  most frequent %3d",
				sc.name, len(real), len(counts), matches, 100*float64(matches)/float64(len(real)), counts[0].count))
			if matches == 0 {
				var seen []string
				for _, c := range counts {
					seen = append(seen, fmt.Sprintf("%d× %s", c.count, strings.Join(c.seq, ", ")))
				}
				t.Errorf("the plan is none of %d recorded runs:\nplan: %s\nrecorded:\n  %s", len(real), strings.Join(want, ", "), strings.Join(seen, "\n  "))
			}
		})
	}
	sort.Strings(report)
	t.Logf("recorded rollouts (%s): the plan is the most frequent real sequence in %d of %d scenarios\n%s", recordedRunsFile, planTop, scenarios, strings.Join(report, "\n"))
}

// replayPlan is the scenario's default plan, as the differential makes it for its first step.
func replayPlan(t *testing.T, sc predictScenario) []string {
	t.Helper()
	st := &scenarioT{}
	r := &rolloutRun{t: st, sc: sc, ns: "replay"}
	step := sc.steps[0]
	d := r.decode(step.manifest)
	plan, err := deployment.Simulate(deployment.Input{Deployment: d, Old: r.decode(sc.old), Timing: r.timing(d, step.fail), Start: replayStart})
	if err != nil {
		t.Fatalf("deployment.Simulate: %v", err)
	}
	return scalingMessages(plan)
}

// planMatches is the differential's rule: the whole sequence, or its first matchSteps steps.
func planMatches(sc predictScenario, got, want []string) bool {
	if n := sc.matchSteps; n > 0 && len(got) >= n && len(want) >= n {
		return slices.Equal(got[:n], want[:n])
	}
	return slices.Equal(got, want)
}

// countSequences is the distinct sequences of runs, most frequent first (ties in text order).
func countSequences(runs [][]string) []sequenceCount {
	n := map[string]int{}
	seqs := map[string][]string{}
	for _, r := range runs {
		k := strings.Join(r, "\n")
		n[k]++
		seqs[k] = r
	}
	var out []sequenceCount
	for k, c := range n {
		out = append(out, sequenceCount{seqs[k], c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].count != out[j].count {
			return out[i].count > out[j].count
		}
		return slices.Compare(out[i].seq, out[j].seq) < 0
	})
	return out
}

// modalSequence is the most frequent sequence of n simulations of the scenario with a ready
// spread (the envelope's model), for the report.
func modalSequence(t *testing.T, sc predictScenario, readyAfter, spread time.Duration, n int) ([]string, int) {
	t.Helper()
	r := &rolloutRun{t: &scenarioT{}, sc: sc, ns: "replay"}
	d := r.decode(sc.steps[0].manifest)
	var runs [][]string
	for seed := range uint64(n) {
		tm := kernel.Timing{ReadyAfter: readyAfter, TerminateAfter: predictTerminateAfter, Spread: kernel.NewSpread(spread, seed+1)}
		plan, err := deployment.Simulate(deployment.Input{Deployment: d, Old: r.decode(sc.old), Timing: tm, Start: replayStart})
		if err != nil {
			t.Fatalf("deployment.Simulate: %v", err)
		}
		runs = append(runs, scalingMessages(plan))
	}
	c := countSequences(runs)
	return c[0].seq, c[0].count
}

// calibrateEnv, set to a number of seeds, makes TestCalibrateSpreadModel report how the
// sampled model's most frequent sequence fares on the recordings at each ready delay and
// spread of a grid: the calibration of the one model (issue 44). It checks nothing.
const calibrateEnv = "KUBECTL_WORKLOAD_CALIBRATE"

func TestCalibrateSpreadModel(t *testing.T) {
	seeds, _ := strconv.Atoi(os.Getenv(calibrateEnv))
	if seeds <= 0 {
		t.Skipf("set %s to a number of seeds to calibrate the spread model on %s", calibrateEnv, recordedRunsFile)
	}
	runs, err := readRecordedRuns(recordedRunsFile)
	if err != nil {
		t.Fatalf("recordings: %v", err)
	}
	byScenario := map[string][][]string{}
	for _, r := range runs {
		byScenario[r.Scenario] = append(byScenario[r.Scenario], r.Sequence)
	}
	type cell struct{ readyAfter, spread time.Duration }
	var grid []cell
	for _, ra := range []time.Duration{20, 50, 100} {
		for _, sp := range []time.Duration{25, 50, 100, 200, 400} {
			grid = append(grid, cell{ra * time.Millisecond, sp * time.Millisecond})
		}
	}
	var lines []string
	for _, g := range grid {
		inReal, top, n := 0, 0, 0
		var misses []string
		for _, sc := range predictScenarios {
			real := byScenario[sc.name]
			if !sc.replayable() || len(real) == 0 {
				continue
			}
			n++
			modal, _ := modalSequence(t, sc, g.readyAfter, g.spread, seeds)
			counts := countSequences(real)
			hit := false
			for _, got := range real {
				hit = hit || planMatches(sc, got, modal)
			}
			if hit {
				inReal++
			} else {
				misses = append(misses, sc.name)
			}
			if planMatches(sc, counts[0].seq, modal) {
				top++
			}
		}
		lines = append(lines, fmt.Sprintf("  ready %5s spread %5s: modal is a real run in %2d of %d, the most frequent in %2d; misses %s",
			g.readyAfter, g.spread, inReal, n, top, strings.Join(misses, " ")))
	}
	t.Logf("spread model, most frequent of %d seeds:\n%s", seeds, strings.Join(lines, "\n"))
}
