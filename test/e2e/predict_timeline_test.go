package e2e

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// timelineEnv names the multi-run Deployment scenario TestPredictTimeline records; the test is
// skipped without it. timelineRunsEnv is how many runs (default predictMinRuns).
const (
	timelineEnv     = "KUBECTL_WORKLOAD_TIMELINE"
	timelineRunsEnv = "KUBECTL_WORKLOAD_TIMELINE_RUNS"
	// timelineParallelEnv is how many runs are recorded at once (default 1): the differential
	// test runs predictConcurrency scenarios at once on one controller-manager.
	timelineParallelEnv = "KUBECTL_WORKLOAD_TIMELINE_PARALLEL"
)

// TestPredictTimeline records a Deployment scenario of predictScenarios several times with a
// watch on its pods and ReplicaSets, and logs, per run, every pod's creation and Ready, every
// ReplicaSet write (spec and status replicas, ready, available) in milliseconds from the
// apply, and the run's scale sequence. It is the calibration tool of the deterministic plan's
// timing (issue 35): it checks nothing, and runs only when KUBECTL_WORKLOAD_TIMELINE names a
// scenario.
func TestPredictTimeline(t *testing.T) {
	name := os.Getenv(timelineEnv)
	if name == "" {
		t.Skipf("set %s to a scenario name to record its timeline", timelineEnv)
	}
	runs := predictMinRuns
	if s := os.Getenv(timelineRunsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", timelineRunsEnv, s)
		}
		runs = n
	}
	parallel := 1
	if s := os.Getenv(timelineParallelEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", timelineParallelEnv, s)
		}
		parallel = n
	}
	var sc *predictScenario
	for i := range predictScenarios {
		if predictScenarios[i].name == name {
			sc = &predictScenarios[i]
		}
	}
	if sc == nil || len(sc.steps) != 1 {
		t.Fatalf("%s=%q: no one-step scenario of that name", timelineEnv, name)
	}
	c := sharedCluster(t)
	sharedControllers(t)
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatalf("clientset: %v", err)
	}
	st := &scenarioT{}
	defer st.replay(t)
	run := predictRuns.Add(1)
	var (
		mu     sync.Mutex
		counts = map[string]int{}
		logs   = make([]string, runs+1)
		wg     sync.WaitGroup
		slots  = make(chan struct{}, parallel)
	)
	for k := 1; k <= runs; k++ {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			r := &rolloutRun{t: st, c: c, cs: cs, sc: *sc, ns: fmt.Sprintf("timeline-%d-%s-%d", run, sc.name, k)}
			load, _ := os.ReadFile("/proc/loadavg")
			seq, lines := r.timeline()
			mu.Lock()
			defer mu.Unlock()
			counts[seq]++
			logs[k] = fmt.Sprintf("run %d (load %s): %s\n  %s", k, strings.Join(strings.Fields(string(load))[:3], " "), seq, strings.Join(lines, "\n  "))
		}()
	}
	wg.Wait()
	for _, l := range logs[1:] {
		t.Logf("%s", l)
	}
	var keys []string
	for s := range counts {
		keys = append(keys, s)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	for _, s := range keys {
		fmt.Fprintf(&b, "  %2d  %s\n", counts[s], s)
	}
	t.Logf("%s: %d runs, %d at a time, distinct sequences:\n%s", sc.name, runs, parallel, b.String())
}

// timeline runs the scenario once in r.ns with the pod and ReplicaSet watch.
func (r *rolloutRun) timeline() (string, []string) {
	t := r.t
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := r.c.EnsureNamespace(ctx, r.ns); err != nil {
		t.Fatalf("%v", err)
	}
	rec := r.startFromOld(ctx)
	defer rec.stop()
	var (
		mu    sync.Mutex
		lines []string
		t0    time.Time
	)
	names := map[string]string{}
	for n := range rec.initialSizes() {
		names[n] = "old"
	}
	short := func(rs string) string {
		if s, ok := names[rs]; ok {
			return s
		}
		return "new"
	}
	log := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		at := time.Since(t0)
		lines = append(lines, fmt.Sprintf("%7.1fms %s", float64(at.Microseconds())/1000, fmt.Sprintf(format, args...)))
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	pw, err := r.cs.CoreV1().Pods(r.ns).Watch(wctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch pods: %v", err)
	}
	rw, err := r.cs.AppsV1().ReplicaSets(r.ns).Watch(wctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch replica sets: %v", err)
	}
	// The watches start with every existing object as Added: skip what is there before t0.
	var started sync.WaitGroup
	started.Add(2)
	ready := map[string]bool{}
	go func() {
		for ev := range pw.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			owner := ""
			if len(p.OwnerReferences) > 0 {
				owner = short(p.OwnerReferences[0].Name)
			}
			isReady := false
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					isReady = true
				}
			}
			mu.Lock()
			was, known := ready[p.Name]
			ready[p.Name] = isReady
			zero := t0.IsZero()
			mu.Unlock()
			if zero {
				continue
			}
			switch {
			case ev.Type == watch.Added:
				log("pod %s %s created", owner, p.Name)
			case ev.Type == watch.Deleted:
			case p.DeletionTimestamp != nil:
			case isReady && (!was || !known):
				log("pod %s %s Ready", owner, p.Name)
			}
		}
	}()
	go func() {
		for ev := range rw.ResultChan() {
			rs, ok := ev.Object.(*appsv1.ReplicaSet)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			mu.Lock()
			zero := t0.IsZero()
			mu.Unlock()
			if zero {
				continue
			}
			s := rs.Status
			log("rs %s spec %d status replicas %d ready %d available %d", short(rs.Name), *rs.Spec.Replicas, s.Replicas, s.ReadyReplicas, s.AvailableReplicas)
		}
	}()
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	t0 = time.Now()
	mu.Unlock()
	r.apply(ctx, r.sc.steps[0].manifest)
	log("applied")
	err = r.waitRolledOut(ctx, rec)
	if err != nil {
		t.Errorf("%v", err)
	}
	stop()
	mu.Lock()
	defer mu.Unlock()
	return compactScaling(rec.messages(), rec.initialSizes()), append([]string(nil), lines...)
}

// dsTimelineEnv names the DaemonSet scenario of dsScenarios TestPredictDaemonSetTimeline
// records (timelineRunsEnv runs, timelineParallelEnv at once); the test is skipped without it.
const dsTimelineEnv = "KUBECTL_WORKLOAD_DS_TIMELINE"

// TestPredictDaemonSetTimeline records a DaemonSet scenario several times and logs how many
// runs took each wave sequence, and the plan's: the calibration tool of the DaemonSet plan's
// timing (issue 35). Besides runDaemonSet's own checks (totals, first wave, revision hash) it
// checks nothing, and runs only when KUBECTL_WORKLOAD_DS_TIMELINE names a scenario.
func TestPredictDaemonSetTimeline(t *testing.T) {
	name := os.Getenv(dsTimelineEnv)
	if name == "" {
		t.Skipf("set %s to a DaemonSet scenario name to record its waves", dsTimelineEnv)
	}
	runs, parallel := predictMinRuns, 1
	for env, v := range map[string]*int{timelineRunsEnv: &runs, timelineParallelEnv: &parallel} {
		if s := os.Getenv(env); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				t.Fatalf("%s=%q: want a positive number", env, s)
			}
			*v = n
		}
	}
	var sc *dsScenario
	for i := range dsScenarios {
		if dsScenarios[i].name == name {
			sc = &dsScenarios[i]
		}
	}
	if sc == nil {
		t.Fatalf("%s=%q: no DaemonSet scenario of that name", dsTimelineEnv, name)
	}
	c := sharedCluster(t)
	sharedControllers(t)
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatalf("clientset: %v", err)
	}
	run := predictRuns.Add(1)
	var (
		mu     sync.Mutex
		counts = map[string]int{}
		plan   string
	)
	t.Run("runs", func(t *testing.T) {
		slots := make(chan struct{}, parallel)
		for k := 1; k <= runs; k++ {
			t.Run(strconv.Itoa(k), func(t *testing.T) {
				t.Parallel()
				slots <- struct{}{}
				defer func() { <-slots }()
				load, _ := os.ReadFile("/proc/loadavg")
				got, want := runDaemonSet(t, c, cs, *sc, fmt.Sprintf("dstl-%d-%s-%d", run, sc.name, k))
				t.Logf("load %s: %s", strings.Join(strings.Fields(string(load))[:3], " "), strings.Join(got, ", "))
				mu.Lock()
				defer mu.Unlock()
				counts[strings.Join(got, ", ")]++
				plan = strings.Join(want, ", ")
			})
		}
	})
	var keys []string
	for s := range counts {
		keys = append(keys, s)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	for _, s := range keys {
		fmt.Fprintf(&b, "  %2d  %s\n", counts[s], s)
	}
	t.Logf("%s: %d runs, %d at a time, distinct wave sequences:\n%splan: %s", sc.name, runs, parallel, b.String(), plan)
}
