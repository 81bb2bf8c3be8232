package kernel

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Distribution is what N simulations with a ready spread (--ready-spread D --runs N) give: the
// spread of completion times, the extreme bounds reached, and every distinct step sequence the
// controllers took, with how many runs took it.
type Distribution struct {
	// Runs is N, Seed the first run's seed (run i uses Seed+i), Spread D.
	Runs   int
	Seed   uint64
	Spread time.Duration
	// Completed counts the runs that completed; the percentiles are over those.
	Completed     int
	CompletionP50 time.Duration
	CompletionP95 time.Duration
	// PeakPods is the most pods any run had at once; MinAvailable the fewest available pods
	// in any run. Neither crosses the strategy's bounds.
	PeakPods     int32
	MinAvailable int32
	// Sequences are every distinct step sequence the runs took, with how many runs took each:
	// the most frequent first, and among equals the one a lower seed found first.
	Sequences []SequenceCount
	// DeterministicRuns counts the runs whose sequence is the deterministic causal plan's.
	DeterministicRuns int
}

// SequenceCount is one distinct step sequence of a Distribution and how many runs took it.
type SequenceCount struct {
	// Steps are the sequence's step messages (Sequence).
	Steps []string
	Runs  int
	// Plan marks the deterministic plan's own sequence.
	Plan bool
}

// Sequence is a plan's controller steps without their times: the reason and message of each,
// in order. Two runs took the same steps exactly when their sequences are equal.
func Sequence(p *Plan) []string {
	out := make([]string, 0, len(p.Steps))
	for _, s := range p.Steps {
		if s.Reason == ReasonChange {
			continue
		}
		out = append(out, s.Message)
	}
	return out
}

// Distribute runs simulate n times, run i with a ready spread of d drawn from seed+i, and
// summarizes the plans. deterministic is the plan without a spread, whose sequence the runs
// are compared with.
//
// Example: 8 replicas at maxSurge 3, maxUnavailable 1, pods Ready 2s after creation, d 100ms:
// most runs take the deterministic plan's 8 steps; some split a batch and take 10.
func Distribute(n int, seed uint64, d time.Duration, deterministic *Plan, simulate func(*Spread) (*Plan, error)) (Distribution, error) {
	if n < 1 {
		return Distribution{}, fmt.Errorf("predict: runs %d: want at least 1", n)
	}
	if d <= 0 {
		return Distribution{}, fmt.Errorf("predict: ready spread %s: want a positive duration", d)
	}
	dist := Distribution{Runs: n, Seed: seed, Spread: d}
	counts := map[string]int{}
	firstSeen := map[string]int{}
	var keys []string
	var completions []time.Duration
	want := strings.Join(Sequence(deterministic), "\n")
	for i := range n {
		p, err := simulate(NewSpread(d, seed+uint64(i)))
		if err != nil {
			return Distribution{}, fmt.Errorf("predict: run %d (seed %d): %w", i+1, seed+uint64(i), err)
		}
		if i == 0 {
			dist.PeakPods, dist.MinAvailable = p.Summary.PeakPods, p.Summary.MinAvailable
		}
		dist.PeakPods = max(dist.PeakPods, p.Summary.PeakPods)
		dist.MinAvailable = min(dist.MinAvailable, p.Summary.MinAvailable)
		if p.Summary.Completed {
			dist.Completed++
			completions = append(completions, p.Summary.Duration)
		}
		key := strings.Join(Sequence(p), "\n")
		if _, ok := counts[key]; !ok {
			firstSeen[key] = len(keys)
			keys = append(keys, key)
		}
		counts[key]++
		if key == want {
			dist.DeterministicRuns++
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return firstSeen[keys[i]] < firstSeen[keys[j]]
	})
	for _, k := range keys {
		sc := SequenceCount{Steps: []string{}, Runs: counts[k], Plan: k == want}
		if k != "" {
			sc.Steps = strings.Split(k, "\n")
		}
		dist.Sequences = append(dist.Sequences, sc)
	}
	slices.Sort(completions)
	dist.CompletionP50 = percentile(completions, 50)
	dist.CompletionP95 = percentile(completions, 95)
	return dist, nil
}

// percentile is the nearest-rank percentile of sorted values: the smallest value with at least
// p% of the values at or below it; 0 for none.
//
// Example: the 95th percentile of 20 values is the 19th (⌈0.95 × 20⌉ = 19).
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100
	return sorted[max(rank, 1)-1]
}
