package e2e

import (
	"fmt"
	"hash/fnv"
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

// The rollout model's calibration (issue 44): deployment.Model, a physical model of the two
// controllers' work queues and delays, sampled per scenario; its most frequent sequence is
// scored as a plan under the strict rule (is it a real run; is it the most frequent real run)
// against the same score of the default plan (the per-scenario rules of world.go).
//
// Held out: the recorded scenarios are split by name (calibrationHalf), the model's parameters
// are fitted on the calibration half only (KUBECTL_WORKLOAD_CALIBRATE_MODEL=N runs the grid
// with N samples per scenario and cell), and scored on the check half, on all, and on
// heldOutScenarios (heldOutRunsFile), recorded after the fit.

// fittedModel is the grid cell that scored best on the calibration half (ties: the first in
// grid order; fitModel's stage 1, 72 cells, then stage 2, a sync's Work of 5 or 15ms, which
// scored lower: Work stays 0). See docs/predict.md for the fit.
var fittedModel = deployment.Model{
	Ready:  deployment.LogNormal{Median: 30 * time.Millisecond, Sigma: 0.3},
	Jitter: deployment.LogNormal{Median: 1 * time.Millisecond, Sigma: 0.3},
	API:    deployment.LogNormal{Median: 5 * time.Millisecond, Sigma: 0.3},
	Watch:  deployment.LogNormal{Median: 1 * time.Millisecond, Sigma: 0.3},
	Pickup: deployment.LogNormal{Median: 10 * time.Millisecond, Sigma: 0.3},
}

// modelSamples is how many runs of the model make a scenario's modal sequence in CI: the
// scores at 300 are those at 1000 (at 100, one new scenario's near-tie fell the other way).
const modelSamples = 300

// calibrationHalf reports whether a scenario is in the calibration half: the low bit of the
// FNV-1a hash of its name. The other half is the check half.
func calibrationHalf(name string) bool {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()%2 == 0
}

// modelScenario is a recorded scenario with its real runs, most frequent first.
type modelScenario struct {
	sc     predictScenario
	real   [][]string
	counts []sequenceCount
}

// score is a plan source's result on a set of scenarios: in how many the plan is a real run,
// in how many the most frequent one, and which missed.
type score struct {
	n, inReal, top int
	misses, notTop []string
}

func (s score) String() string {
	m := ""
	if len(s.misses) > 0 {
		m = "; not a real run: " + strings.Join(s.misses, " ")
	}
	if len(s.notTop) > 0 {
		m += "; a real run, not the most frequent: " + strings.Join(s.notTop, " ")
	}
	return fmt.Sprintf("a real run in %2d of %2d, the most frequent in %2d%s", s.inReal, s.n, s.top, m)
}

func (s *score) add(ms modelScenario, plan []string) {
	s.n++
	hit := false
	for _, got := range ms.real {
		hit = hit || planMatches(ms.sc, got, plan)
	}
	if hit {
		s.inReal++
	} else {
		s.misses = append(s.misses, ms.sc.name)
	}
	switch {
	case hit && planMatches(ms.sc, ms.counts[0].seq, plan):
		s.top++
	case hit:
		s.notTop = append(s.notTop, ms.sc.name)
	}
}

// loadModelScenarios reads the recordings of scenarios from path.
func loadModelScenarios(t *testing.T, path string, scenarios []predictScenario) []modelScenario {
	t.Helper()
	runs, err := readRecordedRuns(path)
	if err != nil {
		t.Fatalf("recordings: %v", err)
	}
	by := map[string][][]string{}
	for _, r := range runs {
		by[r.Scenario] = append(by[r.Scenario], r.Sequence)
	}
	var out []modelScenario
	for _, sc := range scenarios {
		if !sc.replayable() || len(by[sc.name]) == 0 {
			continue
		}
		out = append(out, modelScenario{sc: sc, real: by[sc.name], counts: countSequences(by[sc.name])})
	}
	return out
}

// modelModal is the most frequent sequence of n runs of the model for sc (ties: the sequence a
// lower seed drew first).
func modelModal(t *testing.T, sc predictScenario, m deployment.Model, n int) []string {
	modal, _ := modelRuns(t, sc, m, n)
	return modal
}

// modelRuns is modelModal and the set of every sequence the n runs took.
func modelRuns(t *testing.T, sc predictScenario, m deployment.Model, n int) ([]string, map[string]bool) {
	t.Helper()
	r := &rolloutRun{t: &scenarioT{}, sc: sc, ns: "replay"}
	step := sc.steps[0]
	d := r.decode(step.manifest)
	in := deployment.Input{Deployment: d, Old: r.decode(sc.old), Timing: r.timing(d, step.fail), Start: replayStart}
	count := map[string]int{}
	first := map[string]int{}
	seqs := map[string][]string{}
	for seed := range n {
		seq, err := deployment.SampleModel(in, m, uint64(seed)+1)
		if err != nil {
			t.Fatalf("%s: seed %d: %v", sc.name, seed+1, err)
		}
		k := strings.Join(seq, "\n")
		if _, ok := count[k]; !ok {
			first[k] = seed
			seqs[k] = seq
		}
		count[k]++
	}
	best := ""
	for k := range count {
		if best == "" && count[k] > 0 || count[k] > count[best] || count[k] == count[best] && first[k] < first[best] {
			best = k
		}
	}
	seen := map[string]bool{}
	for k := range count {
		seen[k] = true
	}
	return seqs[best], seen
}

// spreadModelRuns is the set of sequences n runs of the spread model (--ready-spread, as the e2e's
// envelope: envelopeReadyAfter plus a spread of envelopeSpreads[0]) took for sc.
func spreadModelRuns(t *testing.T, sc predictScenario, n int) map[string]bool {
	t.Helper()
	r := &rolloutRun{t: &scenarioT{}, sc: sc, ns: "replay"}
	d := r.decode(sc.steps[0].manifest)
	seen := map[string]bool{}
	for seed := range uint64(n) {
		tm := kernel.Timing{ReadyAfter: envelopeReadyAfter, TerminateAfter: predictTerminateAfter, FailNew: sc.steps[0].fail, Spread: kernel.NewSpread(envelopeSpreads[0], seed+1)}
		plan, err := deployment.Simulate(deployment.Input{Deployment: d, Old: r.decode(sc.old), Timing: tm, Start: replayStart})
		if err != nil {
			t.Fatalf("deployment.Simulate: %v", err)
		}
		seen[strings.Join(scalingMessages(plan), "\n")] = true
	}
	return seen
}

// coverage counts the real runs of scenarios whose sequence is in the sampled set of runs
// (the envelope --runs shows), for the scenarios whose runs vary (more than one sequence).
func coverage(scenarios []modelScenario, runs func(predictScenario) map[string]bool) (covered, total int) {
	for _, ms := range scenarios {
		if len(ms.counts) < 2 {
			continue
		}
		seen := runs(ms.sc)
		for _, r := range ms.real {
			total++
			if seen[strings.Join(r, "\n")] {
				covered++
			}
		}
	}
	return covered, total
}

// halves scores plan on the calibration half, the check half and all of scenarios.
func halves(scenarios []modelScenario, plan func(predictScenario) []string) (cal, check, all score) {
	for _, ms := range scenarios {
		p := plan(ms.sc)
		if calibrationHalf(ms.sc.name) {
			cal.add(ms, p)
		} else {
			check.add(ms, p)
		}
		all.add(ms, p)
	}
	return cal, check, all
}

// TestRolloutModelCalibration scores the default plan (the rules) and the fitted model on
// the recordings, without a cluster, and fails if either falls below what was measured when
// the model was fitted (docs/predict.md), so that a change of the rules or the model that
// loses a scenario shows. It also logs how many of the varying scenarios' real runs the
// model's samples and the spread model's (--ready-spread) hold: the envelope --runs would
// show. With KUBECTL_WORKLOAD_CALIBRATE_MODEL=N it first fits the model's grid on the
// calibration half, N samples per scenario and cell, and logs every cell (about 5 minutes
// with N=100 on a loaded 2-core machine). The seeds are fixed: the scores are deterministic.
func TestRolloutModelCalibration(t *testing.T) {
	recorded := loadModelScenarios(t, recordedRunsFile, predictScenarios)
	heldOut := loadModelScenarios(t, heldOutRunsFile, heldOutScenarios)
	var cal, check []string
	for _, ms := range recorded {
		if calibrationHalf(ms.sc.name) {
			cal = append(cal, ms.sc.name)
		} else {
			check = append(check, ms.sc.name)
		}
	}
	t.Logf("split by FNV-1a(name) mod 2: calibration half %v; check half %v", cal, check)
	if n, _ := strconv.Atoi(os.Getenv("KUBECTL_WORKLOAD_CALIBRATE_MODEL")); n > 0 {
		fitModel(t, recorded, n)
	}
	rules := func(sc predictScenario) []string { return replayPlan(t, sc) }
	model := func(sc predictScenario) []string { return modelModal(t, sc, fittedModel, modelSamples) }
	rc, rk, ra := halves(recorded, rules)
	mc, mk, ma := halves(recorded, model)
	_, _, rh := halves(heldOut, rules)
	_, _, mh := halves(heldOut, model)
	t.Logf("rules:  calibration %s\n        check       %s\n        all         %s\n        held out    %s", rc, rk, ra, rh)
	all := append(slices.Clone(recorded), heldOut...)
	mcov, n := coverage(all, func(sc predictScenario) map[string]bool {
		_, s := modelRuns(t, sc, fittedModel, modelSamples)
		return s
	})
	scov, _ := coverage(all, func(sc predictScenario) map[string]bool { return spreadModelRuns(t, sc, modelSamples) })
	t.Logf("envelope of %d samples, the real runs of the scenarios whose runs vary (recorded and held out) that it holds: model %d of %d, spread model (--ready-spread %s) %d", modelSamples, mcov, n, envelopeSpreads[0], scov)
	t.Logf("model (%s, modal of %d):\n        calibration %s\n        check       %s\n        all         %s\n        held out    %s", fittedModel, modelSamples, mc, mk, ma, mh)
	// The scores measured when the model was fitted (docs/predict.md): a change that loses a
	// scenario fails here. The rules are the default plan, so they must also hold every
	// held-out scenario; the model must not fall below its fit.
	for _, c := range []struct {
		what      string
		got       score
		real, top int
	}{
		{"rules, held out", rh, 4, 3},
		{"model, all recorded", ma, 24, 23},
		{"model, check half", mk, 10, 9},
		{"model, held out", mh, 2, 2},
	} {
		if c.got.inReal < c.real || c.got.top < c.top {
			t.Errorf("%s: %s; measured at the fit: a real run in %d, the most frequent in %d", c.what, c.got, c.real, c.top)
		}
	}
}

// fitModel logs every cell of the grid, scored on the calibration half, best first.
func fitModel(t *testing.T, recorded []modelScenario, n int) {
	t.Helper()
	var calib []modelScenario
	for _, ms := range recorded {
		if calibrationHalf(ms.sc.name) {
			calib = append(calib, ms)
		}
	}
	type cell struct {
		m deployment.Model
		s score
		i int
	}
	var cells []cell
	ms := time.Millisecond
	i := 0
	try := func(m deployment.Model) score {
		var s score
		for _, x := range calib {
			s.add(x, modelModal(t, x.sc, m, n))
		}
		cells = append(cells, cell{m, s, i})
		i++
		return s
	}
	better := func(a, b score) bool { return a.inReal > b.inReal || a.inReal == b.inReal && a.top > b.top }
	// Stage 1: the four delays and one sigma for all, no Work.
	var best deployment.Model
	var bestScore score
	for _, ready := range []time.Duration{30 * ms, 60 * ms, 100 * ms} {
		for _, jitter := range []time.Duration{1 * ms, 5 * ms, 15 * ms} {
			for _, api := range []time.Duration{2 * ms, 5 * ms} {
				for _, pickup := range []time.Duration{2 * ms, 10 * ms} {
					for _, sigma := range []float64{0.3, 0.6} {
						m := deployment.Model{
							Ready:  deployment.LogNormal{Median: ready, Sigma: sigma},
							Jitter: deployment.LogNormal{Median: jitter, Sigma: sigma},
							API:    deployment.LogNormal{Median: api, Sigma: sigma},
							Watch:  deployment.LogNormal{Median: 1 * ms, Sigma: sigma},
							Pickup: deployment.LogNormal{Median: pickup, Sigma: sigma},
						}
						if s := try(m); i == 1 || better(s, bestScore) {
							best, bestScore = m, s
						}
					}
				}
			}
		}
	}
	// Stage 2: a sync's own Work on the best of stage 1.
	for _, work := range []time.Duration{5 * ms, 15 * ms} {
		m := best
		m.Work = deployment.LogNormal{Median: work, Sigma: m.API.Sigma}
		try(m)
	}
	sort.SliceStable(cells, func(a, b int) bool {
		if cells[a].s.inReal != cells[b].s.inReal {
			return cells[a].s.inReal > cells[b].s.inReal
		}
		return cells[a].s.top > cells[b].s.top
	})
	var lines []string
	for _, c := range cells {
		lines = append(lines, fmt.Sprintf("  %s: %s", c.m, c.s))
	}
	t.Logf("model grid on the calibration half, %d samples, best first:\n%s", n, strings.Join(lines, "\n"))
}
