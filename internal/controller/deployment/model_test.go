package deployment

import (
	"slices"
	"testing"
	"time"
)

// testModel is a model with the fitted delays of test/e2e's calibration.
var testModel = Model{
	Ready:  LogNormal{Median: 30 * time.Millisecond, Sigma: 0.3},
	Jitter: LogNormal{Median: time.Millisecond, Sigma: 0.3},
	API:    LogNormal{Median: 5 * time.Millisecond, Sigma: 0.3},
	Watch:  LogNormal{Median: time.Millisecond, Sigma: 0.3},
	Pickup: LogNormal{Median: 10 * time.Millisecond, Sigma: 0.3},
}

// One pod at a time (maxSurge 1, maxUnavailable 0) leaves the controllers no choice: every
// sampled run takes the deterministic plan's sequence, and the same seed the same run.
func TestSampleModelOneAtATime(t *testing.T) {
	old := webDeployment(t, 3, "nginx:1.0", "")
	d := webDeployment(t, 3, "nginx:2.0", "")
	plan, err := Simulate(Input{Deployment: d, Old: old})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range plan.Steps {
		if s.Reason == ReasonScaling {
			want = append(want, s.Message)
		}
	}
	if len(want) != 6 {
		t.Fatalf("deterministic plan: %d scaling steps, want 6: %v", len(want), want)
	}
	for seed := range uint64(20) {
		got, err := SampleModel(Input{Deployment: d, Old: old}, testModel, seed)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: %v, want %v", seed, got, want)
		}
		again, _ := SampleModel(Input{Deployment: d, Old: old}, testModel, seed)
		if !slices.Equal(got, again) {
			t.Fatalf("seed %d: two runs differ: %v, %v", seed, got, again)
		}
	}
}

// The pods of one sync are seen apart or together depending on the draws: 6 replicas at
// maxSurge 2 / maxUnavailable 0 create 2 pods (slow-start batches 1 and 1), and the old
// ReplicaSet's first step is 6→5 or 6→4. Both must occur over 100 seeds, and a model without
// spread (every delay fixed) takes one of them only.
func TestSampleModelVaries(t *testing.T) {
	strategy := "  strategy:\n    rollingUpdate:\n      maxSurge: 2\n      maxUnavailable: 0\n"
	old := webDeployment(t, 6, "nginx:1.0", strategy)
	d := webDeployment(t, 6, "nginx:2.0", strategy)
	firsts := func(m Model) map[string]int {
		seen := map[string]int{}
		for seed := range uint64(100) {
			got, err := SampleModel(Input{Deployment: d, Old: old}, m, seed)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < 2 {
				t.Fatalf("seed %d: %v", seed, got)
			}
			seen[got[1]]++
		}
		return seen
	}
	if got := firsts(testModel); len(got) < 2 {
		t.Errorf("the old ReplicaSet's first step over 100 seeds: %v, want both 6→5 and 6→4", got)
	}
	fixed := testModel
	for _, l := range []*LogNormal{&fixed.Ready, &fixed.Jitter, &fixed.API, &fixed.Watch, &fixed.Pickup} {
		l.Sigma = 0
	}
	if got := firsts(fixed); len(got) != 1 {
		t.Errorf("without spread: %v, want one first step", got)
	}
}

// Timed changes are the deterministic world's: the model refuses them.
func TestSampleModelRefusesChanges(t *testing.T) {
	d := webDeployment(t, 3, "nginx:2.0", "")
	_, err := SampleModel(Input{Deployment: d, Old: webDeployment(t, 3, "nginx:1.0", ""), Changes: []Change{{At: time.Second, Deployment: d}}}, testModel, 1)
	if err == nil {
		t.Fatal("SampleModel with a change: no error")
	}
}
