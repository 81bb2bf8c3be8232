package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Recording real rollouts into test data (issue 44): with KUBECTL_WORKLOAD_RECORD_RUNS naming a
// file, the Deployment differential appends one JSON line per real run of every scenario that
// an offline replay can predict again (one plain step from the old manifest: the multi-run
// scenarios and the one-step scenarios). KUBECTL_WORKLOAD_RECORD_ATTEMPTS=N records at least N
// runs of each of them. TestRecordedRollouts replays the file in every CI run, without a
// cluster: the plan must be one of each scenario's recorded sequences, and the log says how
// often each scenario's real runs took the plan's sequence.
const (
	recordRunsEnv     = "KUBECTL_WORKLOAD_RECORD_RUNS"
	recordAttemptsEnv = "KUBECTL_WORKLOAD_RECORD_ATTEMPTS"
	// recordedRunsFile is the recordings CI replays.
	recordedRunsFile = "testdata/recordings/deployment-runs.jsonl"
)

// recordedRun is one real rollout of a scenario, as its ReplicaSet watch saw it.
type recordedRun struct {
	Scenario string `json:"scenario"`
	// Sequence is every "Scaled up/down replica set NAME from A to B" in order.
	Sequence []string `json:"sequence"`
	// Load1 is the machine's one-minute load average when the run ended, Together how many
	// runs of the scenario rolled out at once, Concurrency how many scenarios could.
	Load1       float64 `json:"load1"`
	Together    int     `json:"together"`
	Concurrency int     `json:"concurrency"`
	// Recorded is the run's date, UTC.
	Recorded string `json:"recorded"`
}

var recordMu sync.Mutex

// recordAttempts is KUBECTL_WORKLOAD_RECORD_ATTEMPTS, 0 when unset or invalid.
func recordAttempts() int {
	n, err := strconv.Atoi(os.Getenv(recordAttemptsEnv))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// recordRun appends run to the file KUBECTL_WORKLOAD_RECORD_RUNS names; nothing without it.
func recordRun(t interface{ Errorf(string, ...any) }, run recordedRun) {
	path := os.Getenv(recordRunsEnv)
	if path == "" {
		return
	}
	if run.Sequence == nil {
		// A run that scaled nothing is an observation too: [] in the file.
		run.Sequence = []string{}
	}
	run.Load1 = load1()
	run.Concurrency = predictConcurrency
	run.Recorded = time.Now().UTC().Format(time.DateOnly)
	line, err := json.Marshal(run)
	if err != nil {
		t.Errorf("record run of %s: %v", run.Scenario, err)
		return
	}
	recordMu.Lock()
	defer recordMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("record run of %s: %v", run.Scenario, err)
		return
	}
	_, werr := f.Write(append(line, '\n'))
	if err := errors.Join(werr, f.Close()); err != nil {
		t.Errorf("record run of %s: %s: %v", run.Scenario, path, err)
	}
}

// load1 is the one-minute load average, 0 where /proc/loadavg cannot be read.
func load1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// readRecordedRuns reads a recordings file, one JSON object per line.
func readRecordedRuns(path string) ([]recordedRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var runs []recordedRun
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r recordedRun
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		runs = append(runs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return runs, nil
}

// heldOutRunsFile holds the real runs of heldOutScenarios: scenarios no timing rule or model
// parameter was fitted on (issue 44), kept apart from recordedRunsFile so that CI's strict
// replay (TestRecordedRollouts) covers the differential's own scenarios only, and
// TestRolloutModelCalibration scores the rules and the model on them as a check.
const heldOutRunsFile = "testdata/recordings/deployment-runs-heldout.jsonl"

// heldOutScenarios are one-step rollouts without minReadySeconds, where real runs vary,
// recorded only when KUBECTL_WORKLOAD_RECORD_RUNS is set (the differential then runs them
// too; filter with -run 'TestPredictDeploymentDifferential/held-out'). Each records its runs
// one at a time in one attempt, up to KUBECTL_WORKLOAD_RECORD_ATTEMPTS or 10.
var heldOutScenarios = []predictScenario{
	{
		// 4 replicas at 0/1: one pod at a time, the new ReplicaSet created at 0.
		name:  "held-out-4-surge0-unavailable1",
		old:   withMinReady(webManifest(4, "nginx:1.0", "  strategy:\n    rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: 1\n", ""), 0),
		steps: next(withMinReady(webManifest(4, "nginx:2.0", "  strategy:\n    rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: 1\n", ""), 0)),
		runs:  10,
	},
	{
		// 5 replicas at 25%/25% (surge 2, unavailable 1): the rollback case's arithmetic as an
		// image update, the new ReplicaSet created by the sync.
		name:  "held-out-5-default",
		old:   withMinReady(webManifest(5, "nginx:1.0", "", ""), 0),
		steps: next(withMinReady(webManifest(5, "nginx:2.0", "", ""), 0)),
		runs:  10,
	},
	{
		// 12 replicas at 25%/25% (surge 3, unavailable 3): the first sync creates 3 and
		// deletes 3.
		name:  "held-out-12-default",
		old:   withMinReady(webManifest(12, "nginx:1.0", "", ""), 0),
		steps: next(withMinReady(webManifest(12, "nginx:2.0", "", ""), 0)),
		runs:  10,
	},
	{
		// 9 replicas at 50%/0 (surge 5, unavailable 0): the first sync creates 5 pods
		// (batches 1, 2, 2) and deletes none.
		name:  "held-out-9-surge50-unavailable0",
		old:   withMinReady(webManifest(9, "nginx:1.0", "  strategy:\n    rollingUpdate:\n      maxSurge: 50%\n      maxUnavailable: 0\n", ""), 0),
		steps: next(withMinReady(webManifest(9, "nginx:2.0", "  strategy:\n    rollingUpdate:\n      maxSurge: 50%\n      maxUnavailable: 0\n", ""), 0)),
		runs:  10,
	},
}

// differentialScenarios are predictScenarios, and heldOutScenarios while recording.
func differentialScenarios() []predictScenario {
	if os.Getenv(recordRunsEnv) == "" {
		return predictScenarios
	}
	return append(slices.Clone(predictScenarios), heldOutScenarios...)
}
