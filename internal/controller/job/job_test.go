package job

import (
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

// newJob decodes a Job with the given spec fields (indented under spec:) and defaults it.
func newJob(t *testing.T, spec string, restartPolicy string) *batchv1.Job {
	t.Helper()
	m := fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata:
  name: work
spec:
%s
  template:
    spec:
      restartPolicy: %s
      containers:
      - name: work
        image: busybox
`, spec, restartPolicy)
	j := &batchv1.Job{}
	testkit.Decode(t, m, j)
	return j
}

func TestBackoffDelay(t *testing.T) {
	tests := []struct {
		failures int
		want     time.Duration
	}{
		{0, 0}, {1, 10 * time.Second}, {2, 20 * time.Second}, {3, 40 * time.Second}, {4, 80 * time.Second},
		{5, 160 * time.Second}, {6, 320 * time.Second}, {7, 10 * time.Minute}, {12, 10 * time.Minute},
	}
	for _, tt := range tests {
		if got := BackoffDelay(tt.failures); got != tt.want {
			t.Errorf("BackoffDelay(%d) = %s, want %s", tt.failures, got, tt.want)
		}
	}
}

func waves(r *Result) string {
	var parts []string
	for _, w := range r.Waves {
		s := fmt.Sprintf("%s:%d", w.At, w.Pods)
		if len(w.Indexes) > 0 {
			s += fmt.Sprint(w.Indexes)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestSimulate(t *testing.T) {
	tests := []struct {
		name          string
		spec          string
		restartPolicy string
		failure       FailureModel
		wantWaves     string
		outcome       string
		reason        string
		duration      time.Duration
	}{
		{
			name: "completions 5, parallelism 2", spec: "  completions: 5\n  parallelism: 2", restartPolicy: "Never",
			wantWaves: "0s:2 1m0s:2 2m0s:1", outcome: OutcomeComplete, reason: ReasonCompletionsReached, duration: 3 * time.Minute,
		},
		{
			name: "two failures back off 10s then 20s", spec: "  completions: 1", restartPolicy: "Never", failure: FailureModel{FailFirst: 2},
			wantWaves: "0s:1 1m10s:1 2m30s:1", outcome: OutcomeComplete, reason: ReasonCompletionsReached, duration: 3*time.Minute + 30*time.Second,
		},
		{
			name: "backoffLimit 2: the third failure ends the Job", spec: "  backoffLimit: 2", restartPolicy: "Never", failure: FailureModel{FailFirst: 100},
			wantWaves: "0s:1 1m10s:1 2m30s:1", outcome: OutcomeFailed, reason: ReasonBackoffLimitExceeded, duration: 3*time.Minute + 30*time.Second,
		},
		{
			name: "activeDeadlineSeconds ends a failing Job", spec: "  activeDeadlineSeconds: 100\n  backoffLimit: 10", restartPolicy: "Never",
			failure:   FailureModel{FailFirst: 100},
			wantWaves: "0s:1 1m10s:1", outcome: OutcomeFailed, reason: ReasonDeadlineExceeded, duration: 100 * time.Second,
		},
		{
			name: "Indexed: lowest pending indexes first", spec: "  completions: 3\n  parallelism: 2\n  completionMode: Indexed", restartPolicy: "Never",
			wantWaves: "0s:2[0 1] 1m0s:1[2]", outcome: OutcomeComplete, reason: ReasonCompletionsReached, duration: 2 * time.Minute,
		},
		{
			name: "backoffLimitPerIndex: index 0 fails twice, the others succeed", restartPolicy: "Never",
			spec:      "  completions: 3\n  parallelism: 3\n  completionMode: Indexed\n  backoffLimitPerIndex: 1",
			failure:   FailureModel{FailFirst: 4},
			wantWaves: "0s:3[0 1 2] 1m10s:3[0 1 2]", outcome: OutcomeFailed, reason: ReasonFailedIndexes, duration: 2*time.Minute + 10*time.Second,
		},
		{
			name: "no completions: done when one succeeds and none run", spec: "  parallelism: 3", restartPolicy: "Never",
			wantWaves: "0s:3", outcome: OutcomeComplete, reason: ReasonCompletionsReached, duration: time.Minute,
		},
		{
			name: "OnFailure: restarts in place count against backoffLimit", spec: "  backoffLimit: 2", restartPolicy: "OnFailure",
			failure:   FailureModel{FailFirst: 100},
			wantWaves: "0s:1", outcome: OutcomeFailed, reason: ReasonBackoffLimitExceeded, duration: 2*time.Minute + 10*time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Simulate(Input{Job: newJob(t, tt.spec, tt.restartPolicy), Failure: tt.failure, RunFor: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if got := waves(r); got != tt.wantWaves {
				t.Errorf("waves = %s, want %s", got, tt.wantWaves)
			}
			if r.Outcome != tt.outcome || r.Reason != tt.reason || r.Duration != tt.duration {
				t.Errorf("end = %s %s at %s, want %s %s at %s", r.Outcome, r.Reason, r.Duration, tt.outcome, tt.reason, tt.duration)
			}
		})
	}
}

func TestFailRateIsDeterministic(t *testing.T) {
	j := newJob(t, "  completions: 20\n  parallelism: 4\n  backoffLimit: 100", "Never")
	in := Input{Job: j, Failure: FailureModel{FailRate: 0.3, Seed: 42}, RunFor: time.Minute}
	a, err := Simulate(in)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Simulate(in)
	if waves(a) != waves(b) || a.Failed != b.Failed || a.Duration != b.Duration {
		t.Errorf("two runs with seed 42 differ: %s / %s", waves(a), waves(b))
	}
	if a.Failed == 0 || a.Outcome != OutcomeComplete || a.Succeeded != 20 {
		t.Errorf("fail rate 0.3 over 20 completions: failed %d, outcome %s, succeeded %d; want some failures and completion", a.Failed, a.Outcome, a.Succeeded)
	}
}

func TestDeadlineKillsRunningPods(t *testing.T) {
	j := newJob(t, "  parallelism: 2\n  completions: 4\n  activeDeadlineSeconds: 90", "Never")
	r, err := Simulate(Input{Job: j, RunFor: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != OutcomeFailed || r.Reason != ReasonDeadlineExceeded || r.Succeeded != 2 {
		t.Fatalf("outcome = %s %s with %d succeeded, want Failed DeadlineExceeded with 2", r.Outcome, r.Reason, r.Succeeded)
	}
	killed := 0
	for _, p := range r.Pods {
		if p.Killed {
			killed++
			if p.FinishedAt != 90*time.Second {
				t.Errorf("killed pod finished at %s, want 1m30s", p.FinishedAt)
			}
		}
	}
	if killed != 2 {
		t.Errorf("killed pods = %d, want the 2 of the second wave", killed)
	}
}

// TestSuspendedJobCreatesNoPods: a Job with spec.suspend true is not run; the controller
// creates no pods until it is resumed.
func TestSuspendedJobCreatesNoPods(t *testing.T) {
	j := newJob(t, "  completions: 3\n  suspend: true", "Never")
	res, err := Simulate(Input{Job: j, RunFor: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != OutcomeSuspended || len(res.Pods) != 0 || len(res.Waves) != 0 || res.Reason != ReasonSuspended {
		t.Errorf("Simulate(suspended) = outcome %s reason %s, %d pods, %d waves; want Suspended JobSuspended, no pods",
			res.Outcome, res.Reason, len(res.Pods), len(res.Waves))
	}
}
