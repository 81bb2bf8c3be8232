package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/predict"
	"github.com/kubectl-workload/kubectl-workload/predict/planreport"
)

// drainScenario is one real kubectl drain against budgets, compared with predict drain.
// Each scenario gets two kwok nodes of its own, tainted and labelled with its name so that
// no other test's pods land there: its Deployment is created while node b is cordoned (every
// pod on node a), then node b is opened and node a drained.
type drainScenario struct {
	name     string
	replicas int
	// budgets are PodDisruptionBudget specs (YAML under spec:, without the selector).
	budgets []string
	timeout time.Duration
	// wantDrained is whether kubectl drain exits 0.
	wantDrained bool
	// runs is how many real runs the scenario gets; 0 is drainRuns.
	runs int
	// fromManifests predicts from the manifests applied and the nodes, not from a dump of
	// the pods: predict places the pods itself, as the real scheduler did.
	fromManifests bool
}

// drainRuns is how many real runs a scenario gets, unless it says otherwise.
const drainRuns = 3

// drainRunsCap is how many real runs a scenario gets at most while none has equalled the plan.
const drainRunsCap = 15

// minAvailable2of3Runs: three pods evicted at once under minAvailable 2 vary with the API
// server's jittered conflict retry (500-550ms). The default plan takes the common outcome: the
// two that conflicted retry about 0.5s later, the first is approved and the later reads its
// approval and is refused with 429, going through on kubectl's 5s retry (2 approved/1 refused,
// then 1). Recorded before this was the default: 11 of 14 runs on an idle machine; on a loaded
// one (load average 6 to 15 on 2 cores) 9 of 27, where 16 had the retries meet (the plan's
// "can vary", --retries-meet) and 2 saw no conflict.
const minAvailable2of3Runs = 5

// recordDrainRuns, when set, runs each drain scenario that many times, logging every real run
// and how many equal the default plan (go test ./test/e2e -run TestPredictDrain
// -record-drain-runs 10); the scenario fails only when none does.
var recordDrainRuns = flag.Int("record-drain-runs", 0, "run each drain scenario this many times (instead of its own count) and log every real run and how often the default plan was the real sequence")

// drainRound is what happened in one 5s retry round: evictions approved and refused (429),
// and evictions failed with another status.
type drainRound struct{ approved, refused, failed int }

func (r drainRound) String() string {
	return fmt.Sprintf("%d approved/%d refused/%d failed", r.approved, r.refused, r.failed)
}

// TestPredictDrainDifferential runs real kubectl drains against budgets on kwok nodes and
// checks that the prediction made from a dump taken just before has the same rounds: how many
// evictions the Eviction API approved and refused in each 5s retry round, and whether the
// drain ends drained. Which pod of a round goes first is decided by kubectl's goroutines and
// is not compared. A run can vary: kubectl evicts every pod at once, and an eviction whose
// budget update conflicts with another's is retried by the API server 500-550ms later
// (jittered), which lets it through if a replacement turned Ready meanwhile, or has it read
// the other's update and be refused; each scenario therefore runs up to drainRuns times, and
// the plan must equal one run.
func TestPredictDrainDifferential(t *testing.T) {
	c := sharedCluster(t)
	sharedControllers(t)
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	scenarios := []drainScenario{
		{name: "min-available-2-of-3", replicas: 3, budgets: []string{"minAvailable: 2"}, wantDrained: true, runs: minAvailable2of3Runs},
		// Round 0: 2 approved and 2 refused; then 1 and 1; then the last (11.7s in real runs).
		{name: "max-unavailable-1-of-4", replicas: 4, budgets: []string{"maxUnavailable: 1"}, wantDrained: true},
		// A gatekeeper-like single replica under minAvailable 1, predicted from the manifests
		// (no pods): predict places the pod where the scheduler did, and the eviction is
		// refused every round until --timeout (exit 1).
		{name: "manifests-single-replica", replicas: 1, budgets: []string{"minAvailable: 1"}, timeout: 12 * time.Second, fromManifests: true, runs: 1},
		{name: "single-replica-timeout", replicas: 1, budgets: []string{"minAvailable: 1"}, timeout: 12 * time.Second},
		{name: "two-budgets", replicas: 2, budgets: []string{"maxUnavailable: 1", "minAvailable: 1"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			var seen []string
			runs := drainRuns
			if sc.runs > 0 {
				runs = sc.runs
			}
			if *recordDrainRuns > 0 {
				runs = *recordDrainRuns
			}
			// Every run is played, so that the log says how often the default plan was the
			// real sequence; while none was, more runs follow, up to drainRunsCap (real runs
			// vary with load: max-unavailable-1-of-4 matched 1 of 3 beside a busy build), and
			// the scenario fails only when none of them was.
			matched, played := 0, 0
			for attempt := 0; attempt < runs || (matched == 0 && attempt < drainRunsCap && *recordDrainRuns == 0); attempt++ {
				played++
				real, plan := runDrainScenario(t, c, cs, sc, attempt)
				if t.Failed() {
					return
				}
				if real == plan {
					t.Logf("run %d: real and predicted: %s", attempt, real)
					matched++
					continue
				}
				seen = append(seen, real)
				t.Logf("run %d: real %s, predicted %s", attempt, real, plan)
			}
			t.Logf("%s: the default plan was the real sequence in %d of %d runs", sc.name, matched, played)
			if matched == 0 {
				t.Errorf("predict drain equals none of %d real runs:\n%s", len(seen), strings.Join(seen, "\n"))
			}
		})
	}
}

// runDrainScenario sets up sc on fresh nodes, predicts the drain from a dump, runs the real
// drain, and returns both as "rounds; drained".
func runDrainScenario(t *testing.T, c *Cluster, cs kubernetes.Interface, sc drainScenario, attempt int) (real, plan string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id := fmt.Sprintf("%s-%d", sc.name, attempt)
	ns, nodeA, nodeB := "drain-"+id, "drain-"+id+"-a", "drain-"+id+"-b"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct {
		name     string
		cordoned bool
	}{{nodeA, false}, {nodeB, true}} {
		if err := createDrainNode(ctx, cs, n.name, id, n.cordoned); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(context.Background(), n.name, metav1.DeleteOptions{}) })
	}
	t.Cleanup(func() { _, _ = c.Kubectl(context.Background(), "delete", "namespace", ns, "--wait=false") })
	if err := waitFor(ctx, nil, time.Minute, "node "+nodeA+" ready", func() (bool, error) { return nodeReadyUntainted(ctx, cs, nodeA) }); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	manifest := drainManifest(ns, id, sc)
	if err := os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.Kubectl(ctx, "apply", "-f", filepath.Join(dir, "app.yaml")); err != nil {
		t.Fatalf("apply: %v: %s", err, out)
	}
	// Every pod Ready on node a, and every budget counted by the disruption controller.
	err := waitFor(ctx, nil, time.Minute, "pods ready and budgets observed", func() (bool, error) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		ready := 0
		for _, p := range pods.Items {
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil {
					ready++
				}
			}
		}
		if ready != sc.replicas || len(pods.Items) != sc.replicas {
			return false, nil
		}
		pdbs, err := cs.PolicyV1().PodDisruptionBudgets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		// With two budgets over the same pods, the disruption controller re-syncs only one
		// of them on a pod change (getPdbForPod picks one, "arbitrarily"), so the other's
		// counts can stay stale: only its first sync is awaited. The Eviction API refuses
		// such pods before it reads any count.
		for _, b := range pdbs.Items {
			if b.Status.ObservedGeneration != b.Generation || (len(sc.budgets) == 1 && b.Status.CurrentHealthy != int32(sc.replicas)) {
				return false, nil
			}
		}
		return len(pdbs.Items) == len(sc.budgets), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	uncordon := `{"spec":{"unschedulable":false}}`
	if _, err := cs.CoreV1().Nodes().Patch(ctx, nodeB, types.MergePatchType, []byte(uncordon), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, nil, time.Minute, "node "+nodeB+" ready", func() (bool, error) { return nodeReadyUntainted(ctx, cs, nodeB) }); err != nil {
		t.Fatal(err)
	}
	// The dump predict reads: the namespace's objects and the two nodes.
	state, err := c.Kubectl(ctx, "get", "pods,pdb,deploy,rs", "-n", ns, "-o", "yaml")
	if err != nil {
		t.Fatalf("dump: %v: %s", err, state)
	}
	nodes, err := c.Kubectl(ctx, "get", "nodes", nodeA, nodeB, "-o", "yaml")
	if err != nil {
		t.Fatalf("dump nodes: %v: %s", err, nodes)
	}
	statePath, nodesPath := filepath.Join(dir, "state.yaml"), filepath.Join(dir, "nodes.yaml")
	if err := os.WriteFile(statePath, state, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nodesPath, nodes, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	// kwok readies a bound pod and removes a deleted one within milliseconds (its quantized
	// stages date only the Ready condition's lastTransitionTime, which budgets do not read).
	o := predict.DrainRequest{Files: []string{statePath}, NodesFile: nodesPath, IgnoreDaemonSets: true, DeleteEmptyDirData: true,
		GracePeriod: -1, Timeout: sc.timeout, ReadyAfter: 100 * time.Millisecond, TerminateAfter: 100 * time.Millisecond,
		Drain: []string{nodeA}}
	if sc.fromManifests {
		o.Files = []string{filepath.Join(dir, "app.yaml")}
	}
	drain := func(c *live.Client) {
		t.Helper()
		p, err := predict.Drain(ctx, o, c)
		if err != nil {
			t.Fatalf("predict drain: %v", err)
		}
		out.Reset()
		if err := planreport.DrainJSON(&out, p); err != nil {
			t.Fatal(err)
		}
	}
	drain(nil)
	plan = planRounds(t, out.Bytes())
	if sc.fromManifests {
		if placed := planPlaced(t, out.Bytes()); placed != sc.replicas {
			t.Errorf("predict drain from manifests placed %d pods on %s, want %d", placed, nodeA, sc.replicas)
		}
		stopWatch := watchDrain(t, ctx, cs, ns)
		real = realDrain(t, ctx, c, nodeA, sc.timeout)
		stopWatch()
		return real, plan
	}
	// The same prediction from the cluster itself (list requests only) sees the same world.
	getter := genericclioptions.NewConfigFlags(false)
	getter.KubeConfig = &c.Kubeconfig
	client, err := live.Connect(ctx, getter, func(string) {})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	o.Files, o.NodesFile = nil, ""
	drain(client)
	if livePlan := planRounds(t, out.Bytes()); livePlan != plan {
		t.Errorf("predict drain from the cluster = %s, from the dump %s", livePlan, plan)
	}
	stopWatch := watchDrain(t, ctx, cs, ns)
	real = realDrain(t, ctx, c, nodeA, sc.timeout)
	stopWatch()
	return real, plan
}

// watchDrain logs, from a watch started now, each change of the namespace's budgets
// (disruptionsAllowed, currentHealthy, disruptedPods) and pods (Ready, deleting, gone) with
// its time, so that a run's log shows the server's side of the drain: which eviction
// decremented a budget when, and when the disruption controller recomputed it. The returned
// function stops the watch and writes the log.
func watchDrain(t *testing.T, ctx context.Context, cs kubernetes.Interface, ns string) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	start := time.Now()
	var mu sync.Mutex
	var log strings.Builder
	var wg sync.WaitGroup
	note := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&log, "%8s ", time.Since(start).Round(time.Millisecond))
		fmt.Fprintf(&log, format+"\n", args...)
	}
	pw, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bw, err := cs.PolicyV1().PodDisruptionBudgets(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		for ev := range pw.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			ready := false
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodReady {
					ready = cond.Status == corev1.ConditionTrue
				}
			}
			note("pod %s %s node=%q phase=%s ready=%v deleting=%v", ev.Type, p.Name, p.Spec.NodeName, p.Status.Phase, ready, p.DeletionTimestamp != nil)
		}
	}()
	go func() {
		defer wg.Done()
		for ev := range bw.ResultChan() {
			b, ok := ev.Object.(*policyv1.PodDisruptionBudget)
			if !ok {
				continue
			}
			var disrupted []string
			for name := range b.Status.DisruptedPods {
				disrupted = append(disrupted, name)
			}
			sort.Strings(disrupted)
			note("budget %s %s rv=%s allowed=%d healthy=%d/%d disrupted=%v", ev.Type, b.Name, b.ResourceVersion, b.Status.DisruptionsAllowed, b.Status.CurrentHealthy, b.Status.DesiredHealthy, disrupted)
		}
	}()
	return func() {
		cancel()
		pw.Stop()
		bw.Stop()
		wg.Wait()
		t.Logf("pods and budgets during the drain:\n%s", log.String())
	}
}

func createDrainNode(ctx context.Context, cs kubernetes.Interface, name, scenario string, cordoned bool) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("1000"), corev1.ResourceMemory: resource.MustParse("1Ti"), corev1.ResourcePods: resource.MustParse("1000"),
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels:      map[string]string{"type": "kwok", "kubernetes.io/hostname": name, "drain-e2e": scenario},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}},
		Spec:   corev1.NodeSpec{Unschedulable: cordoned, Taints: []corev1.Taint{{Key: "drain-e2e", Value: scenario, Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
	_, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	return err
}

// nodeReadyUntainted: Ready, and the node-lifecycle controller has lifted its not-ready taint.
func nodeReadyUntainted(ctx context.Context, cs kubernetes.Interface, name string) (bool, error) {
	n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	for _, t := range n.Spec.Taints {
		if t.Key == "node.kubernetes.io/not-ready" || t.Key == "node.kubernetes.io/unreachable" {
			return false, nil
		}
	}
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
			return true, nil
		}
	}
	return false, nil
}

func drainManifest(ns, scenario string, sc drainScenario) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: %[1]s}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}}
    spec:
      nodeSelector: {drain-e2e: %[3]s}
      tolerations: [{key: drain-e2e, operator: Equal, value: %[3]s, effect: NoSchedule}]
      terminationGracePeriodSeconds: 1
      containers: [{name: app, image: nginx}]
`, ns, sc.replicas, scenario)
	for i, spec := range sc.budgets {
		fmt.Fprintf(&b, `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: budget-%d, namespace: %s}
spec:
  %s
  selector: {matchLabels: {app: app}}
`, i, ns, spec)
	}
	return b.String()
}

// planPlaced counts the pods predict drain placed (not read) on the drained node.
func planPlaced(t *testing.T, js []byte) int {
	t.Helper()
	var doc struct {
		Nodes  []struct{ Node string } `json:"nodes"`
		Placed []struct{ Node string } `json:"placed"`
	}
	if err := json.Unmarshal(js, &doc); err != nil || len(doc.Nodes) != 1 {
		t.Fatalf("predict drain -o json: %v:\n%s", err, js)
	}
	n := 0
	for _, p := range doc.Placed {
		if p.Node == doc.Nodes[0].Node {
			n++
		}
	}
	return n
}

// planRounds summarises predict drain's JSON as rounds and the ending.
func planRounds(t *testing.T, js []byte) string {
	t.Helper()
	var doc struct {
		Nodes []struct {
			Drained bool `json:"drained"`
			Events  []struct {
				At    float64 `json:"at"`
				Kind  string  `json:"kind"`
				Count int     `json:"count"`
			} `json:"events"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(js, &doc); err != nil || len(doc.Nodes) != 1 {
		t.Fatalf("predict drain -o json: %v:\n%s", err, js)
	}
	var rounds []drainRound
	at := func(sec float64) *drainRound {
		i := int(sec/5 + 0.5)
		for len(rounds) <= i {
			rounds = append(rounds, drainRound{})
		}
		return &rounds[i]
	}
	for _, e := range doc.Nodes[0].Events {
		switch e.Kind {
		case "evict":
			at(e.At).approved++
		case "refused":
			at(e.At).refused++
		case "failed":
			at(e.At).failed++
		case "repeats":
			last := rounds[len(rounds)-1]
			for range e.Count {
				rounds = append(rounds, drainRound{refused: last.refused})
			}
		}
	}
	return summariseRounds(rounds, doc.Nodes[0].Drained)
}

func summariseRounds(rounds []drainRound, drained bool) string {
	// A trailing empty round is kubectl's last wake-up after --timeout, which sends nothing.
	for len(rounds) > 0 && rounds[len(rounds)-1] == (drainRound{}) {
		rounds = rounds[:len(rounds)-1]
	}
	var parts []string
	for _, r := range rounds {
		parts = append(parts, r.String())
	}
	return fmt.Sprintf("[%s] drained=%v", strings.Join(parts, ", "), drained)
}

var (
	evictingRe = regexp.MustCompile(`^evicting pod (\S+)/(\S+)$`)
	retryRe    = regexp.MustCompile(`^error when evicting pods/"([^"]+)" -n "([^"]+)" \(will retry after 5s\)`)
	failedRe   = regexp.MustCompile(`error when evicting pods/"([^"]+)" -n "([^"]+)": ([^,\]]+)`)
)

// realDrain runs kubectl drain on node, timestamping each line of its output, and
// summarises it as rounds: each "evicting pod" starts an attempt in the round of its time; a
// "will retry" line refuses it, an error line fails it, and otherwise it was approved.
func realDrain(t *testing.T, ctx context.Context, c *Cluster, node string, timeout time.Duration) string {
	t.Helper()
	bin := filepath.Join(c.BinDir, "kubectl")
	args := []string{"--kubeconfig=" + c.Kubeconfig, "drain", node, "--ignore-daemonsets", "--delete-emptydir-data"}
	if timeout > 0 {
		args = append(args, "--timeout="+timeout.String())
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	type line struct {
		at   time.Duration
		text string
	}
	var mu sync.Mutex
	var lines []line
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, r := range []io.Reader{stdout, stderr} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				mu.Lock()
				lines = append(lines, line{time.Since(start), sc.Text()})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	err := cmd.Wait()
	var rounds []drainRound
	var log strings.Builder
	round := func(d time.Duration) *drainRound {
		i := int((d + 2500*time.Millisecond) / (5 * time.Second))
		for len(rounds) <= i {
			rounds = append(rounds, drainRound{})
		}
		return &rounds[i]
	}
	// Each attempt is approved unless a refusal line for the same pod follows it.
	pendingAttempt := map[string]time.Duration{}
	for _, l := range lines {
		fmt.Fprintf(&log, "%8s %s\n", l.at.Round(time.Millisecond), l.text)
		if m := evictingRe.FindStringSubmatch(l.text); m != nil {
			pendingAttempt[m[1]+"/"+m[2]] = l.at
			round(l.at).approved++
			continue
		}
		if m := retryRe.FindStringSubmatch(l.text); m != nil {
			key := m[2] + "/" + m[1]
			if at, ok := pendingAttempt[key]; ok {
				r := round(at)
				r.approved--
				r.refused++
				delete(pendingAttempt, key)
			}
			continue
		}
		// A failed attempt: another status than 429, or the attempt after the timeout,
		// which kubectl announces and then abandons without a request.
		for _, m := range failedRe.FindAllStringSubmatch(l.text, -1) {
			key := m[2] + "/" + m[1]
			if at, ok := pendingAttempt[key]; ok {
				r := round(at)
				r.approved--
				if !strings.HasPrefix(m[3], "global timeout reached") {
					r.failed++
				}
				delete(pendingAttempt, key)
			}
		}
	}
	t.Logf("kubectl drain %s (exit %v):\n%s", node, err, log.String())
	return summariseRounds(rounds, err == nil)
}
