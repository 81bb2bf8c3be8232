package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-workload/kubectl-workload/internal/kubectl/drain"
	"github.com/kubectl-workload/kubectl-workload/internal/upgrade"
	"github.com/kubectl-workload/kubectl-workload/predict"
)

// upgradeScenario is a node-pool upgrade played on the real control plane (kwok nodes, the real
// kube-scheduler, kube-controller-manager and kubectl drain) and predicted by predict upgrade
// from a dump taken just before. Each run gets nodes of its own, labelled upgrade-e2e=ID and
// tainted upgrade-e2e=ID:NoSchedule, and its pods select and tolerate them, so that no other
// test's pods land there and its pods land nowhere else.
type upgradeScenario struct {
	name string
	// pool are the pool's nodes (agentpool=pool), upgraded in name order.
	pool      []upgradeNode
	workloads []upgradeWorkload
	budgets   []upgradeBudget
	// surge and unavailable are --max-surge and --max-unavailable; drainTimeout
	// --drain-timeout (and kubectl drain's --timeout), with --on-timeout fail.
	surge, unavailable int
	drainTimeout       time.Duration
	// runs is how many real runs a live scenario plays while none has equalled the plan, and
	// how many a recording plays.
	runs int
	// live scenarios run in every e2e run; the others only when recording
	// (KUBECTL_WORKLOAD_RECORD_UPGRADES) and in the replay of the recordings.
	live bool
}

// upgradeNode is a kwok node of a scenario: allocatable cpu, memory and pods, a zone, taints.
type upgradeNode struct {
	suffix      string
	cpu, memory string
	pods        int64
	zone        string
	taints      []corev1.Taint
}

// upgradeWorkload is a Deployment whose pods request cpu and memory.
type upgradeWorkload struct {
	name        string
	replicas    int32
	cpu, memory string
	tolerations []corev1.Toleration
	// antiAffinity is required pod anti-affinity on hostname among the workload's pods;
	// zoneSpread a DoNotSchedule topology spread over zones, maxSkew 1.
	antiAffinity, zoneSpread bool
}

// upgradeBudget is a PodDisruptionBudget over a workload's pods.
type upgradeBudget struct {
	workload                     string
	minAvailable, maxUnavailable *intstr.IntOrString
}

func intOrStr(i int) *intstr.IntOrString { v := intstr.FromInt32(int32(i)); return &v }

// node shapes: 4 cpu and 8Gi hold four pods of 1 cpu and 2Gi (cpu and memory in the same
// proportion, so the real scheduler's NodeResourcesBalancedAllocation scores every node alike).
func poolNodes(cpu, memory string, zones []string, suffixes ...string) []upgradeNode {
	var out []upgradeNode
	for i, s := range suffixes {
		n := upgradeNode{suffix: s, cpu: cpu, memory: memory, pods: 110}
		if len(zones) > 0 {
			n.zone = zones[i%len(zones)]
		}
		out = append(out, n)
	}
	return out
}

var dedicatedTaint = corev1.Taint{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule}

// upgradeScenarios are the upgrades the e2e plays and the recordings hold.
var upgradeScenarios = []upgradeScenario{
	{
		// Each old node's surge node joins first: the two pods of each node go to it, one
		// approved at once and the other when the budget allows.
		name: "surge1-unavailable0", pool: poolNodes("4", "8Gi", nil, "a", "b", "c"),
		workloads:    []upgradeWorkload{{name: "web", replicas: 6, cpu: "1", memory: "2Gi"}},
		budgets:      []upgradeBudget{{workload: "web", maxUnavailable: intOrStr(1)}},
		surge:        1,
		drainTimeout: 60 * time.Second, runs: 8,
	},
	{
		// No surge: node a's pods go to b and c, its replacement joins empty after it is
		// deleted and takes all of b's, and b's replacement all of c's.
		name: "surge0-unavailable1", pool: poolNodes("4", "8Gi", nil, "a", "b", "c"),
		workloads:   []upgradeWorkload{{name: "web", replicas: 6, cpu: "1", memory: "2Gi"}},
		unavailable: 1, drainTimeout: 60 * time.Second, runs: 3, live: true,
	},
	{
		// minAvailable = replicas: the first node's eviction is refused every 5s until the
		// drain timeout; the upgrade stops there.
		name: "budget-blocks", pool: poolNodes("4", "8Gi", nil, "a", "b", "c"),
		workloads:    []upgradeWorkload{{name: "web", replicas: 3, cpu: "1", memory: "2Gi"}},
		budgets:      []upgradeBudget{{workload: "web", minAvailable: intOrStr(3)}},
		surge:        1,
		drainTimeout: 7 * time.Second, runs: 3, live: true,
	},
	{
		// Full nodes and no surge: each drained node's pods stay Pending until its
		// replacement joins.
		name: "capacity-shortfall", pool: poolNodes("2", "4Gi", nil, "a", "b", "c"),
		workloads:   []upgradeWorkload{{name: "web", replicas: 6, cpu: "1", memory: "2Gi"}},
		unavailable: 1, drainTimeout: 60 * time.Second, runs: 3,
	},
	{
		// Node a is tainted dedicated=batch: its surge node carries the taint, so only the
		// tolerating batch pods go there, and web's pods from b wait for b's surge node.
		name: "taints", pool: func() []upgradeNode {
			n := poolNodes("4", "8Gi", nil, "a", "b", "c")
			n[0].taints = []corev1.Taint{dedicatedTaint}
			return n
		}(),
		workloads: []upgradeWorkload{
			{name: "batch", replicas: 2, cpu: "1", memory: "2Gi", tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoSchedule}}},
			{name: "web", replicas: 4, cpu: "1", memory: "2Gi"},
		},
		surge: 1, drainTimeout: 60 * time.Second, runs: 3,
	},
	{
		// Required anti-affinity on hostname, one pod per node, no surge: the drained node's
		// pod fits on no other node and stays Pending until its replacement joins.
		name: "anti-affinity", pool: poolNodes("4", "8Gi", nil, "a", "b", "c"),
		workloads:   []upgradeWorkload{{name: "web", replicas: 3, cpu: "1", memory: "2Gi", antiAffinity: true}},
		unavailable: 1, drainTimeout: 60 * time.Second, runs: 3,
	},
	{
		// Zones z1 (a) and z2 (b, c), spread maxSkew 1 DoNotSchedule: a's pods cannot go to
		// z2 while z1 (its only node cordoned) holds none, and stay Pending until a is deleted
		// and z1 is gone.
		name: "zone-spread", pool: func() []upgradeNode {
			n := poolNodes("4", "8Gi", nil, "a", "b", "c")
			n[0].zone, n[1].zone, n[2].zone = "z1", "z2", "z2"
			return n
		}(),
		workloads:   []upgradeWorkload{{name: "web", replicas: 4, cpu: "1", memory: "2Gi", zoneSpread: true}},
		unavailable: 1, drainTimeout: 60 * time.Second, runs: 3,
	},
}

// Recording upgrades: KUBECTL_WORKLOAD_RECORD_UPGRADES=FILE plays every scenario (not only the
// live ones) its runs times, or KUBECTL_WORKLOAD_RECORD_ATTEMPTS when more, and appends each
// run to FILE:
// the dump predict reads, the parameters, and the real outcome. TestRecordedUpgrades replays
// recordedUpgradesFile without a cluster.
const (
	recordUpgradesEnv    = "KUBECTL_WORKLOAD_RECORD_UPGRADES"
	recordedUpgradesFile = "testdata/recordings/upgrade-runs.jsonl"
	// upgradeReadyAfter is predict's --ready-after: kwok readies a bound pod in milliseconds.
	upgradeReadyAfter = 100 * time.Millisecond
)

// upgradeRun is one real upgrade: what predict upgrade reads and what happened.
type upgradeRun struct {
	Scenario string `json:"scenario"`
	// Selector, MaxSurge, MaxUnavailable and DrainTimeout are predict upgrade's flags.
	Selector       string `json:"selector"`
	MaxSurge       int    `json:"maxSurge"`
	MaxUnavailable int    `json:"maxUnavailable"`
	DrainTimeout   string `json:"drainTimeout"`
	// State is the dump taken before the upgrade: kubectl get pods,pdb,deploy,rs -o yaml and
	// kubectl get nodes -o yaml of the scenario's nodes, as one YAML stream.
	State string         `json:"state"`
	Real  upgradeOutcome `json:"real"`
	// Seconds is the real upgrade's wall time.
	Seconds  float64 `json:"seconds"`
	Load1    float64 `json:"load1"`
	Recorded string  `json:"recorded"`
}

// upgradeOutcome is an upgrade step by step, as the real run and the plan both tell it.
type upgradeOutcome struct {
	Steps []upgradeStep `json:"steps"`
	// Pending are the pods no node had taken at the end, by owner.
	Pending map[string]int `json:"pending,omitempty"`
}

// upgradeStep is a new node joining or an old node's cordon, drain and deletion.
type upgradeStep struct {
	Node string `json:"node"`
	Join bool   `json:"join,omitempty"`
	// Outcome is upgraded, failed or not-reached (upgrade's NodeStep outcomes).
	Outcome string `json:"outcome,omitempty"`
	// Evicted counts the approved evictions by owner; Refused the pods refused (429) at
	// least once, by owner.
	Evicted map[string]int `json:"evicted,omitempty"`
	Refused map[string]int `json:"refused,omitempty"`
	// Placed counts the pods created in the step by "owner node" (node "Pending" when none
	// took it); Scheduled the Pending pods a node took in the step.
	Placed    map[string]int `json:"placed,omitempty"`
	Scheduled map[string]int `json:"scheduled,omitempty"`
}

// String is the step in one line, maps in key order.
func (s upgradeStep) String() string {
	var b strings.Builder
	if s.Join {
		fmt.Fprintf(&b, "join %s", s.Node)
	} else {
		fmt.Fprintf(&b, "%s %s", s.Node, s.Outcome)
	}
	for _, m := range []struct {
		name string
		m    map[string]int
	}{{"evicted", s.Evicted}, {"refused", s.Refused}, {"placed", s.Placed}, {"scheduled", s.Scheduled}} {
		if len(m.m) == 0 {
			continue
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m.m)) {
			parts = append(parts, fmt.Sprintf("%s×%d", k, m.m[k]))
		}
		fmt.Fprintf(&b, " %s[%s]", m.name, strings.Join(parts, " "))
	}
	return b.String()
}

// String is the outcome, a step a line, node names relative to the run's prefix.
func (o upgradeOutcome) String() string {
	var lines []string
	for _, s := range o.Steps {
		lines = append(lines, "  "+s.String())
	}
	if len(o.Pending) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(o.Pending)) {
			parts = append(parts, fmt.Sprintf("%s×%d", k, o.Pending[k]))
		}
		lines = append(lines, "  pending at the end: "+strings.Join(parts, " "))
	}
	return strings.Join(lines, "\n")
}

// TestPredictUpgradeDifferential plays node-pool upgrades on the real control plane, in the
// order predict upgrade's algorithm gives (a new node joins, copying the old node's labels
// and taints; the old node is cordoned, drained with kubectl drain and deleted; the next), and
// requires the plan predict upgrade made from a dump taken just before to equal a real run
// node by node: the evictions approved and refused by owner, where the replacements went (by
// owner and node), what stayed Pending, which node drained and which timed out. The real
// scheduler breaks ties at random and an eviction retried by the API server can go either way,
// so a scenario plays up to its runs while none has equalled the plan.
func TestPredictUpgradeDifferential(t *testing.T) {
	c := sharedCluster(t)
	sharedControllers(t)
	bin := pluginBinary(t)
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	recordPath := os.Getenv(recordUpgradesEnv)
	attempts := recordAttempts()
	start := time.Now()
	for _, sc := range upgradeScenarios {
		if !sc.live && recordPath == "" {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			matched, played := 0, 0
			for attempt := 0; ; attempt++ {
				if recordPath != "" && attempt >= max(attempts, sc.runs) {
					break
				}
				if recordPath == "" && (matched > 0 || attempt >= sc.runs) {
					break
				}
				played++
				run, plan, raw := runUpgradeScenario(t, c, cs, bin, sc, attempt)
				if t.Failed() {
					return
				}
				if recordPath != "" {
					recordUpgrade(t, recordPath, run)
				}
				realText, planText := run.Real.String(), plan.String()
				if realText == planText {
					matched++
					t.Logf("run %d (%.1fs): real and predicted:\n%s", attempt, run.Seconds, realText)
				} else {
					t.Logf("run %d (%.1fs): real:\n%s\npredicted:\n%s", attempt, run.Seconds, realText, planText)
				}
				checkBlocker(t, sc, run.Real, raw)
			}
			t.Logf("%s: the plan equalled %d of %d real runs", sc.name, matched, played)
			if matched == 0 {
				t.Errorf("predict upgrade equals none of %d real runs", played)
			}
		})
	}
	t.Logf("upgrade differential: %s", time.Since(start).Round(100*time.Millisecond))
}

// checkBlocker: when a real drain timed out, the plan's blocker must be that node, refused
// by a budget of the scenario.
func checkBlocker(t *testing.T, sc upgradeScenario, real upgradeOutcome, plan *upgrade.Plan) {
	t.Helper()
	for _, s := range real.Steps {
		if s.Outcome != upgrade.Failed {
			continue
		}
		if plan.Blocker == nil || !strings.HasSuffix(plan.Blocker.Node, s.Node) {
			t.Errorf("the real drain of %s timed out; the plan's blocker is %+v", s.Node, plan.Blocker)
			return
		}
		if len(sc.budgets) > 0 && len(plan.Blocker.Budgets) == 0 {
			t.Errorf("the real drain of %s timed out on a budget; the plan's blocker names none: %+v", s.Node, plan.Blocker)
		}
		return
	}
}

// runUpgradeScenario sets sc up on fresh nodes, dumps the state, predicts the upgrade with
// the plugin binary, plays it for real, and returns the run and the plan, both relative to
// the run's node prefix.
func runUpgradeScenario(t *testing.T, c *Cluster, cs kubernetes.Interface, bin string, sc upgradeScenario, attempt int) (upgradeRun, upgradeOutcome, *upgrade.Plan) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	id := fmt.Sprintf("%s-%d", sc.name, attempt)
	ns, prefix := "upgrade-"+id, "up-"+id+"-"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Kubectl(context.Background(), "delete", "namespace", ns, "--wait=false") })
	t.Cleanup(func() {
		_, _ = c.Kubectl(context.Background(), "delete", "nodes", "-l", "upgrade-e2e="+id, "--wait=false")
	})
	var pool []*corev1.Node
	for _, n := range sc.pool {
		node := upgradeNodeObject(prefix+n.suffix, id, n)
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pool = append(pool, node)
	}
	for _, n := range pool {
		if err := waitFor(ctx, nil, time.Minute, "node "+n.Name+" ready", func() (bool, error) { return nodeReadyUntainted(ctx, cs, n.Name) }); err != nil {
			t.Fatal(err)
		}
	}
	replicas := map[string]int32{}
	for _, w := range sc.workloads {
		if _, err := cs.AppsV1().Deployments(ns).Create(ctx, upgradeDeployment(ns, id, w), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		replicas[w.name] = w.replicas
	}
	for i, b := range sc.budgets {
		pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: b.workload, Namespace: ns},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: b.minAvailable, MaxUnavailable: b.maxUnavailable,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": b.workload}}}}
		if i > 0 {
			pdb.Name = fmt.Sprintf("%s-%d", b.workload, i)
		}
		if _, err := cs.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Every pod bound and Ready, and every budget counted by the disruption controller.
	err := waitFor(ctx, nil, 2*time.Minute, "pods ready and budgets observed", func() (bool, error) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		ready := map[string]int32{}
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && p.Spec.NodeName != "" && podIsReady(&p) {
				ready[p.Labels["app"]]++
			}
		}
		if !maps.Equal(ready, replicas) {
			return false, nil
		}
		pdbs, err := cs.PolicyV1().PodDisruptionBudgets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, b := range pdbs.Items {
			if b.Status.ObservedGeneration != b.Generation || b.Status.CurrentHealthy != replicas[b.Name] {
				return false, nil
			}
		}
		return len(pdbs.Items) == len(sc.budgets), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	state, err := c.Kubectl(ctx, "get", "pods,pdb,deploy,rs", "-n", ns, "-o", "yaml")
	if err != nil {
		t.Fatalf("dump: %v: %s", err, state)
	}
	nodes, err := c.Kubectl(ctx, "get", "nodes", "-l", "upgrade-e2e="+id, "-o", "yaml")
	if err != nil {
		t.Fatalf("dump nodes: %v: %s", err, nodes)
	}
	run := upgradeRun{Scenario: sc.name, Selector: "upgrade-e2e=" + id + ",agentpool=pool", MaxSurge: sc.surge, MaxUnavailable: sc.unavailable,
		DrainTimeout: sc.drainTimeout.String(), State: string(state) + "---\n" + string(nodes), Recorded: time.Now().UTC().Format(time.DateOnly)}
	statePath := filepath.Join(dir, "state.yaml")
	if err := os.WriteFile(statePath, []byte(run.State), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"predict", "upgrade", "-f", statePath, "-o", "json"}, run.predictFlags()...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("predict upgrade: %v: %s", err, stderr.String())
	}
	plan, err := planFromJSON(stdout.Bytes())
	if err != nil {
		t.Fatalf("predict upgrade -o json: %v:\n%s", err, stdout.String())
	}
	begin := time.Now()
	run.Real = playUpgrade(t, ctx, c, cs, ns, id, sc, pool)
	run.Seconds = time.Since(begin).Seconds()
	run.Load1 = load1()
	run.Real = run.Real.relative(prefix)
	return run, planOutcome(plan).relative(prefix), plan
}

// predictFlags are predict upgrade's flags for the run (without -f and -o).
func (r upgradeRun) predictFlags() []string {
	return []string{"--selector", r.Selector, "--max-surge", fmt.Sprint(r.MaxSurge), "--max-unavailable", fmt.Sprint(r.MaxUnavailable),
		"--drain-timeout", r.DrainTimeout, "--on-timeout", upgrade.OnTimeoutFail, "--ready-after", upgradeReadyAfter.String()}
}

// replicaSetHash matches a ReplicaSet owner, replicaset/NAME-HASH: its Deployment's NAME
// is the same in every run.
var replicaSetHash = regexp.MustCompile(`replicaset/(\S+)-[a-z0-9]{6,10}\b`)

// relative strips the run's node prefix from every node name, so that runs compare.
func (o upgradeOutcome) relative(prefix string) upgradeOutcome {
	strip := func(m map[string]int) map[string]int {
		if m == nil {
			return nil
		}
		out := map[string]int{}
		for k, v := range m {
			out[replicaSetHash.ReplaceAllString(strings.ReplaceAll(k, prefix, ""), "$1")] += v
		}
		return out
	}
	out := upgradeOutcome{Pending: strip(o.Pending)}
	for _, s := range o.Steps {
		s.Node = strings.TrimPrefix(s.Node, prefix)
		s.Evicted, s.Refused, s.Placed, s.Scheduled = strip(s.Evicted), strip(s.Refused), strip(s.Placed), strip(s.Scheduled)
		out.Steps = append(out.Steps, s)
	}
	return out
}

func upgradeNodeObject(name, id string, n upgradeNode) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(n.cpu), corev1.ResourceMemory: resource.MustParse(n.memory),
		corev1.ResourcePods: *resource.NewQuantity(n.pods, resource.DecimalSI),
	}
	labels := map[string]string{"type": "kwok", corev1.LabelHostname: name, "upgrade-e2e": id, "agentpool": "pool"}
	if n.zone != "" {
		labels[corev1.LabelTopologyZone] = n.zone
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}},
		Spec: corev1.NodeSpec{Taints: append([]corev1.Taint{{Key: "upgrade-e2e", Value: id, Effect: corev1.TaintEffectNoSchedule}},
			n.taints...)},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

// surgeNodeLike is the new node a provider adds for old: its labels (its own hostname),
// taints but the node lifecycle's, and allocatable, named as predict upgrade names it.
func surgeNodeLike(old *corev1.Node) *corev1.Node {
	name := old.Name + "-upgraded"
	labels := maps.Clone(old.Labels)
	labels[corev1.LabelHostname] = name
	var taints []corev1.Taint
	for _, t := range old.Spec.Taints {
		if !strings.HasPrefix(t.Key, "node.kubernetes.io/") {
			taints = append(taints, t)
		}
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: maps.Clone(old.Annotations)},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status:     corev1.NodeStatus{Capacity: old.Status.Capacity.DeepCopy(), Allocatable: old.Status.Allocatable.DeepCopy()},
	}
}

func upgradeDeployment(ns, id string, w upgradeWorkload) *appsv1.Deployment {
	labels := map[string]string{"app": w.name}
	grace := int64(1)
	spec := corev1.PodSpec{
		NodeSelector:                  map[string]string{"upgrade-e2e": id},
		Tolerations:                   append([]corev1.Toleration{{Key: "upgrade-e2e", Operator: corev1.TolerationOpEqual, Value: id, Effect: corev1.TaintEffectNoSchedule}}, w.tolerations...),
		TerminationGracePeriodSeconds: &grace,
		Containers: []corev1.Container{{Name: "app", Image: "nginx", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(w.cpu), corev1.ResourceMemory: resource.MustParse(w.memory)}}}},
	}
	sel := &metav1.LabelSelector{MatchLabels: labels}
	if w.antiAffinity {
		spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			{LabelSelector: sel, TopologyKey: corev1.LabelHostname}}}}
	}
	if w.zoneSpread {
		spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: w.name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: &w.replicas, Selector: sel,
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}},
	}
}

func podIsReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podState is a pod as a step's snapshot sees it.
type podState struct {
	owner, node string
}

// settle waits until the namespace is quiet: no pod terminating, every ReplicaSet with as
// many pods as it wants, every pod bound and Ready or found unschedulable by the scheduler;
// while some pod is Pending it keeps waiting up to pendingGrace (the scheduler retries an
// unschedulable pod after a cluster event, with a backoff of up to 10s). It returns the pods.
func settle(t *testing.T, ctx context.Context, cs kubernetes.Interface, ns string, pendingGrace time.Duration) map[string]podState {
	t.Helper()
	start := time.Now()
	var snap map[string]podState
	err := waitFor(ctx, nil, 2*time.Minute, "pods of "+ns+" settled", func() (bool, error) {
		rss, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		snap = map[string]podState{}
		owned := map[string]int32{}
		pending := 0
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil {
				return false, nil
			}
			owner := ownerOf(&p)
			owned[owner]++
			if p.Spec.NodeName == "" {
				unschedulable := false
				for _, c := range p.Status.Conditions {
					if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
						unschedulable = true
					}
				}
				if !unschedulable {
					return false, nil
				}
				pending++
			} else if !podIsReady(&p) {
				return false, nil
			}
			snap[p.Name] = podState{owner: owner, node: p.Spec.NodeName}
		}
		for _, rs := range rss.Items {
			if rs.Spec.Replicas != nil && owned["replicaset/"+rs.Name] != *rs.Spec.Replicas {
				return false, nil
			}
		}
		return pending == 0 || time.Since(start) > pendingGrace, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func ownerOf(p *corev1.Pod) string {
	if ref := metav1.GetControllerOf(p); ref != nil {
		return strings.ToLower(ref.Kind) + "/" + ref.Name
	}
	return ""
}

// diffSteps fills the step's Placed (pods new in after, by owner and node) and Scheduled
// (pods Pending in before and bound in after).
func diffSteps(st *upgradeStep, before, after map[string]podState) {
	for name, p := range after {
		b, ok := before[name]
		switch {
		case !ok:
			node := p.node
			if node == "" {
				node = "Pending"
			}
			if st.Placed == nil {
				st.Placed = map[string]int{}
			}
			st.Placed[p.owner+" "+node]++
		case b.node == "" && p.node != "":
			if st.Scheduled == nil {
				st.Scheduled = map[string]int{}
			}
			st.Scheduled[p.owner+" "+p.node]++
		}
	}
}

// Pending grace: how long a step waits for the scheduler to place a Pending pod.
const (
	drainPendingGrace = 4 * time.Second
	joinPendingGrace  = 15 * time.Second
)

// playUpgrade runs the upgrade of pool as predict upgrade's algorithm orders it
// (upgrade.Upgrade): per batch of surge+unavailable old nodes, the replacements of the nodes
// deleted so far and the surge join (each like the next old node without one: its labels,
// taints and allocatable), the batch is cordoned, each node drained with kubectl drain
// (--ignore-daemonsets --delete-emptydir-data --force --timeout) and, once drained, deleted;
// a drain that times out stops the upgrade (--on-timeout fail).
func playUpgrade(t *testing.T, ctx context.Context, c *Cluster, cs kubernetes.Interface, ns, id string, sc upgradeScenario, pool []*corev1.Node) upgradeOutcome {
	t.Helper()
	var out upgradeOutcome
	surge, unavailable := sc.surge, sc.unavailable
	batch := min(surge+unavailable, len(pool))
	joined, deleted := 0, 0
	snap := settle(t, ctx, cs, ns, 0)
	join := func(limit int) {
		for ; joined < limit; joined++ {
			n := surgeNodeLike(pool[joined])
			if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := waitFor(ctx, nil, time.Minute, "node "+n.Name+" ready", func() (bool, error) { return nodeReadyUntainted(ctx, cs, n.Name) }); err != nil {
				t.Fatal(err)
			}
			after := settle(t, ctx, cs, ns, joinPendingGrace)
			st := upgradeStep{Node: n.Name, Join: true}
			diffSteps(&st, snap, after)
			snap = after
			out.Steps = append(out.Steps, st)
		}
	}
	stopped := false
	for b := 0; b*batch < len(pool); b++ {
		nodes := pool[b*batch : min((b+1)*batch, len(pool))]
		if stopped {
			for _, n := range nodes {
				out.Steps = append(out.Steps, upgradeStep{Node: n.Name, Outcome: upgrade.NotReached})
			}
			continue
		}
		join(deleted)
		join(min(len(pool), deleted+surge))
		for _, n := range nodes {
			if o, err := c.Kubectl(ctx, "cordon", n.Name); err != nil {
				t.Fatalf("cordon %s: %v: %s", n.Name, err, o)
			}
		}
		var drained []string
		for _, n := range nodes {
			if stopped {
				out.Steps = append(out.Steps, upgradeStep{Node: n.Name, Outcome: upgrade.NotReached})
				continue
			}
			st := upgradeStep{Node: n.Name, Outcome: upgrade.Upgraded}
			ok := realUpgradeDrain(t, ctx, c, n.Name, sc.drainTimeout, snap, &st)
			if !ok {
				st.Outcome, stopped = upgrade.Failed, true
			} else {
				drained = append(drained, n.Name)
			}
			after := settle(t, ctx, cs, ns, drainPendingGrace)
			diffSteps(&st, snap, after)
			snap = after
			out.Steps = append(out.Steps, st)
		}
		for _, n := range drained {
			if o, err := c.Kubectl(ctx, "delete", "node", n); err != nil {
				t.Fatalf("delete node %s: %v: %s", n, err, o)
			}
			deleted++
		}
		if len(drained) > 0 {
			// A deleted node can unblock a Pending pod (a topology domain that goes away):
			// what the scheduler does then counts in the batch's last step.
			after := settle(t, ctx, cs, ns, drainPendingGrace)
			diffSteps(&out.Steps[len(out.Steps)-1], snap, after)
			snap = after
		}
	}
	if !stopped {
		join(len(pool))
	}
	for _, p := range snap {
		if p.node == "" {
			if out.Pending == nil {
				out.Pending = map[string]int{}
			}
			out.Pending[p.owner]++
		}
	}
	return out
}

// realUpgradeDrain runs kubectl drain on node as providers do and fills the step's evictions
// (approved, by owner) and refusals (pods refused with 429 at least once, by owner) from its
// output; owners come from pods, the snapshot before the drain. It reports whether the node
// drained.
func realUpgradeDrain(t *testing.T, ctx context.Context, c *Cluster, node string, timeout time.Duration, pods map[string]podState, st *upgradeStep) bool {
	t.Helper()
	args := []string{"drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--force"}
	if timeout > 0 {
		args = append(args, "--timeout="+timeout.String())
	}
	start := time.Now()
	out, err := c.Kubectl(ctx, args...)
	t.Logf("kubectl drain %s (%.1fs, exit %v):\n%s", node, time.Since(start).Seconds(), err, out)
	last := map[string]string{} // pod -> the fate of its last attempt
	refused := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := evictingRe.FindStringSubmatch(line); m != nil {
			last[m[2]] = "attempt"
			continue
		}
		if m := retryRe.FindStringSubmatch(line); m != nil {
			last[m[1]], refused[m[1]] = "refused", true
			continue
		}
		for _, m := range failedRe.FindAllStringSubmatch(line, -1) {
			last[m[1]] = "failed"
		}
	}
	for pod, fate := range last {
		owner := pods[pod].owner
		if fate == "attempt" {
			if st.Evicted == nil {
				st.Evicted = map[string]int{}
			}
			st.Evicted[owner]++
		}
		if refused[pod] {
			if st.Refused == nil {
				st.Refused = map[string]int{}
			}
			st.Refused[owner]++
		}
	}
	return err == nil
}

// planOutcome reads a plan in the real run's terms: the steps in the order they happen (the
// new nodes joining before the cordon they precede), each drain's approved evictions and
// refused pods by owner, where its replacements went, and the Pending pods each joining node
// took.
func planOutcome(p *upgrade.Plan) upgradeOutcome {
	var out upgradeOutcome
	added := 0
	joins := func(until time.Duration, all bool) {
		for ; added < len(p.NewNodes) && (all || p.NewNodes[added].AddedAt <= until); added++ {
			n := p.NewNodes[added]
			st := upgradeStep{Node: n.Name, Join: true}
			for _, e := range n.Events {
				if e.Kind == drain.EventScheduled {
					if st.Scheduled == nil {
						st.Scheduled = map[string]int{}
					}
					st.Scheduled[e.Owner+" "+e.Node]++
				}
			}
			out.Steps = append(out.Steps, st)
		}
	}
	for _, ns := range p.Nodes {
		if ns.Outcome == upgrade.NotReached {
			out.Steps = append(out.Steps, upgradeStep{Node: ns.Node, Outcome: ns.Outcome})
			continue
		}
		joins(ns.CordonedAt, false)
		st := upgradeStep{Node: ns.Node, Outcome: ns.Outcome}
		refused := map[string]bool{}
		add := func(m *map[string]int, k string) {
			if *m == nil {
				*m = map[string]int{}
			}
			(*m)[k]++
		}
		for _, e := range ns.Drain.Events {
			switch e.Kind {
			case drain.EventEvict:
				add(&st.Evicted, e.Owner)
			case drain.EventRefused:
				if !refused[e.Pod] {
					refused[e.Pod] = true
					add(&st.Refused, e.Owner)
				}
			case drain.EventCreated:
				add(&st.Placed, e.Owner+" "+e.Node)
			case drain.EventPending:
				add(&st.Placed, e.Owner+" Pending")
			case drain.EventScheduled:
				add(&st.Scheduled, e.Owner+" "+e.Node)
			}
		}
		for _, e := range ns.Deleted {
			if e.Kind == drain.EventScheduled {
				add(&st.Scheduled, e.Owner+" "+e.Node)
			}
		}
		out.Steps = append(out.Steps, st)
	}
	if p.Completed {
		joins(0, true)
	}
	for _, u := range p.Unplaced {
		if u.Node == "" {
			if out.Pending == nil {
				out.Pending = map[string]int{}
			}
			out.Pending[u.Owner]++
		}
	}
	return out
}

// recordUpgrade appends run to path.
func recordUpgrade(t *testing.T, path string, run upgradeRun) {
	t.Helper()
	line, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	recordMu.Lock()
	defer recordMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// readUpgradeRuns reads a recordings file of upgrades, one JSON object per line.
func readUpgradeRuns(path string) ([]upgradeRun, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var runs []upgradeRun
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r upgradeRun
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// TestRecordedUpgrades replays the upgrades recorded on the real control plane
// (recordedUpgradesFile, written by TestPredictUpgradeDifferential under
// KUBECTL_WORKLOAD_RECORD_UPGRADES) without a cluster: each run is predicted from its own dump
// with its own parameters, and every scenario's plan must equal at least one of its real runs
// node by node. The log
// says, per scenario, how many runs were recorded and how many the plan equalled.
func TestRecordedUpgrades(t *testing.T) {
	runs, err := readUpgradeRuns(recordedUpgradesFile)
	if err != nil {
		t.Fatalf("recordings: %v", err)
	}
	byScenario := map[string][]upgradeRun{}
	for _, r := range runs {
		byScenario[r.Scenario] = append(byScenario[r.Scenario], r)
	}
	var report []string
	for _, sc := range upgradeScenarios {
		t.Run(sc.name, func(t *testing.T) {
			recorded := byScenario[sc.name]
			if len(recorded) == 0 {
				t.Fatalf("no recorded run of %s in %s: record it (%s, see predict_upgrade_test.go)", sc.name, recordedUpgradesFile, recordUpgradesEnv)
			}
			matched := 0
			var misses []string
			for i, r := range recorded {
				plan := replayUpgrade(t, r)
				prefix := nodePrefix(r)
				got, want := planOutcome(plan).relative(prefix).String(), r.Real.String()
				checkBlocker(t, sc, r.Real, plan)
				if got == want {
					matched++
					continue
				}
				misses = append(misses, fmt.Sprintf("run %d: real:\n%s\npredicted:\n%s", i, want, got))
			}
			report = append(report, fmt.Sprintf("  %-22s runs %2d  plan equals %2d", sc.name, len(recorded), matched))
			for _, m := range misses {
				t.Log(m)
			}
			if matched == 0 {
				t.Errorf("the plan equals none of %d recorded runs", len(recorded))
			}
		})
	}
	sort.Strings(report)
	t.Logf("recorded upgrades (%s):\n%s", recordedUpgradesFile, strings.Join(report, "\n"))
}

// nodePrefix is the run's node-name prefix, from its selector (upgrade-e2e=ID,...).
func nodePrefix(r upgradeRun) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(r.Selector, "upgrade-e2e="), ",")
	return "up-" + id + "-"
}

// replayUpgrade predicts a recorded run from its dump, as the plugin would with its flags.
func replayUpgrade(t *testing.T, r upgradeRun) *upgrade.Plan {
	t.Helper()
	sel, err := labels.Parse(r.Selector)
	if err != nil {
		t.Fatal(err)
	}
	timeout, err := time.ParseDuration(r.DrainTimeout)
	if err != nil {
		t.Fatal(err)
	}
	surge, unavailable := intstr.FromInt32(int32(r.MaxSurge)), intstr.FromInt32(int32(r.MaxUnavailable))
	plan, err := predict.Upgrade(context.Background(), predict.UpgradeRequest{Files: []string{"-"}, Stdin: strings.NewReader(r.State),
		Selector: sel, MaxSurge: &surge, MaxUnavailable: &unavailable, DrainTimeout: &timeout, OnTimeout: upgrade.OnTimeoutFail,
		ReadyAfter: upgradeReadyAfter, GracePeriod: -1}, nil)
	if err != nil {
		t.Fatalf("predict upgrade: %v", err)
	}
	return plan
}

// upgradeTimeFields are the upgrade JSON's times and durations, in seconds since schema
// version 2 (docs/predict-output.md), which the library's Plan holds as time.Durations.
var upgradeTimeFields = map[string]bool{"cordonedAt": true, "emptyAt": true, "deletedAt": true, "addedAt": true,
	"at": true, "since": true, "start": true, "end": true, "duration": true, "drainTimeout": true, "nodeReadyAfter": true}

// planFromJSON reads predict upgrade's JSON as a user's program would (schema version 2, times
// in seconds, -1 for never) into the library's Plan, which planOutcome compares with a real run.
func planFromJSON(b []byte) (*upgrade.Plan, error) {
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if v, _ := doc["schemaVersion"].(float64); v != 2 {
		return nil, fmt.Errorf("schemaVersion %v, want 2", doc["schemaVersion"])
	}
	var toDurations func(v any)
	toDurations = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if f, ok := x.(float64); ok && upgradeTimeFields[k] {
					v[k] = int64(math.Round(f * float64(time.Second)))
					continue
				}
				toDurations(x)
			}
		case []any:
			for _, x := range v {
				toDurations(x)
			}
		}
	}
	toDurations(doc)
	nb, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var plan upgrade.Plan
	if err := json.Unmarshal(nb, &plan); err != nil {
		return nil, err
	}
	return &plan, nil
}
