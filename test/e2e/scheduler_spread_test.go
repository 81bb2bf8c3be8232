package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-workload/kubectl-workload/internal/scheduler"
)

// spreadRuns is how many times each scheduler scenario runs on fresh nodes.
const spreadRuns = 2

// spreadScenario is a set of kwok nodes (zone name -> the pods each of its nodes holds, 0 for
// no limit) and a Deployment with required pod anti-affinity or topology spread constraints;
// guards, when set, runs first: a Deployment of that many pods whose required anti-affinity
// refuses the scenario's pods on their nodes.
type spreadScenario struct {
	name     string
	zones    [][2]int // per zone: nodes, pods per node
	replicas int
	// spec is the pod spec's affinity and topologySpreadConstraints, YAML indented 6.
	spec   string
	guards int
	// byNode: the placement is determined node by node (not only per zone).
	byNode bool
}

// TestSchedulerSpreadDifferential: the real kube-scheduler places a Deployment with required
// anti-affinity or topology spread constraints on kwok nodes with zones and capacity, and the
// scheduler mirror (scheduler.Place, which predict drain and predict upgrade use for
// manifests) places the same Deployment on the same nodes. Where the real scheduler picks
// among tied nodes at random, what is determined is compared: per zone counts and the
// Pending pods, or per node counts where each node is forced.
func TestSchedulerSpreadDifferential(t *testing.T) {
	c := sharedCluster(t)
	sharedControllers(t)
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	anti := func(key string) string {
		return fmt.Sprintf(`      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: app}}, topologyKey: %s}
`, key)
	}
	spread := func(extra string) string {
		return `      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: app}}` + extra + `}
`
	}
	anyway := `      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: app}}}
`
	scenarios := []spreadScenario{
		{name: "anti-host", zones: [][2]int{{3, 0}, {2, 0}}, replicas: 6, spec: anti(corev1.LabelHostname), byNode: true},
		{name: "anti-zone", zones: [][2]int{{2, 0}, {2, 0}, {1, 0}}, replicas: 4, spec: anti(corev1.LabelTopologyZone)},
		{name: "spread-zone", zones: [][2]int{{2, 0}, {1, 0}, {1, 1}}, replicas: 7, spec: spread("")},
		{name: "min-domains", zones: [][2]int{{2, 0}, {2, 0}}, replicas: 4, spec: spread(", minDomains: 3")},
		// ScheduleAnyway: a score, not a filter; the zone with one node takes half the pods.
		{name: "anyway-zone", zones: [][2]int{{2, 0}, {1, 0}}, replicas: 4, spec: anyway},
		{name: "guarded", zones: [][2]int{{2, 0}, {2, 0}}, replicas: 3, spec: anti(corev1.LabelHostname), guards: 2, byNode: true},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			for run := range spreadRuns {
				real, mirror := runSpreadScenario(t, c, cs, sc, run)
				if t.Failed() {
					return
				}
				if real != mirror {
					t.Errorf("run %d: kube-scheduler placed %s, the mirror %s", run, real, mirror)
					continue
				}
				t.Logf("run %d: kube-scheduler and the mirror: %s", run, real)
			}
		})
	}
}

// runSpreadScenario makes the scenario's nodes, has the real scheduler place the Deployment,
// has the mirror place it from the cluster's nodes (and guards), and returns both placements
// as text: per node or per zone counts, then the Pending pods and their reason.
func runSpreadScenario(t *testing.T, c *Cluster, cs kubernetes.Interface, sc spreadScenario, run int) (real, mirror string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id := fmt.Sprintf("sp-%s-%d", sc.name, run)
	if err := c.EnsureNamespace(ctx, id); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Kubectl(context.Background(), "delete", "namespace", id, "--wait=false") })
	var names []string
	for z, zone := range sc.zones {
		for i := range zone[0] {
			name := fmt.Sprintf("%s-z%d-%d", id, z, i)
			if err := createSpreadNode(ctx, cs, name, id, fmt.Sprintf("z%d", z), zone[1]); err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
			t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}) })
		}
	}
	for _, n := range names {
		if err := waitFor(ctx, nil, time.Minute, "node "+n+" ready", func() (bool, error) { return nodeReadyUntainted(ctx, cs, n) }); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	apply := func(name, manifest string, replicas int) {
		t.Helper()
		path := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := c.Kubectl(ctx, "apply", "-f", path); err != nil {
			t.Fatalf("apply: %v: %s", err, out)
		}
		if err := waitFor(ctx, nil, time.Minute, name+" placed", func() (bool, error) { return spreadSettled(ctx, cs, id, name, replicas) }); err != nil {
			t.Fatal(err)
		}
	}
	if sc.guards > 0 {
		apply("guard", spreadManifest(id, "guard", sc.guards, `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: app}}, topologyKey: kubernetes.io/hostname}
          - {labelSelector: {matchLabels: {app: guard}}, topologyKey: kubernetes.io/hostname}
`), sc.guards)
	}
	// The mirror's world: the nodes and the guards as the cluster has them, and the
	// Deployment as the API server stores it, without pods.
	nodeList, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "spread-e2e=" + id})
	if err != nil {
		t.Fatal(err)
	}
	guards, err := cs.CoreV1().Pods(id).List(ctx, metav1.ListOptions{LabelSelector: "app=guard"})
	if err != nil {
		t.Fatal(err)
	}
	apply("app", spreadManifest(id, "app", sc.replicas, sc.spec), sc.replicas)
	d, err := cs.AppsV1().Deployments(id).Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := scheduler.World{Deployments: []*appsv1.Deployment{d}}
	zoneOf := map[string]string{}
	for i := range nodeList.Items {
		n := &nodeList.Items[i]
		w.Nodes = append(w.Nodes, n)
		zoneOf[n.Name] = n.Labels[corev1.LabelTopologyZone]
	}
	for i := range guards.Items {
		w.Pods = append(w.Pods, &guards.Items[i])
	}
	var mirrorNodes, mirrorWhy []string
	for _, p := range scheduler.Place(&w) {
		mirrorNodes = append(mirrorNodes, p.Node)
		if p.Node == "" {
			mirrorWhy = append(mirrorWhy, p.Reason)
		}
	}
	pods, err := cs.CoreV1().Pods(id).List(ctx, metav1.ListOptions{LabelSelector: "app=app"})
	if err != nil {
		t.Fatal(err)
	}
	var realNodes, realWhy []string
	for _, p := range pods.Items {
		realNodes = append(realNodes, p.Spec.NodeName)
		if p.Spec.NodeName == "" {
			realWhy = append(realWhy, unschedulableMessage(&p))
		}
	}
	key := func(node string) string { return zoneOf[node] }
	if sc.byNode {
		key = func(node string) string { return node }
	}
	return spreadSummary(realNodes, key, realWhy), spreadSummary(mirrorNodes, key, mirrorWhy)
}

// spreadSummary is "key=count ...; Pending n: reasons", the reasons cut to the filter
// reasons that are about the scenario's own nodes (the shared cluster has other nodes, which
// the real message counts too).
func spreadSummary(nodes []string, key func(string) string, why []string) string {
	counts := map[string]int{}
	pending := 0
	for _, n := range nodes {
		if n == "" {
			pending++
			continue
		}
		counts[key(n)]++
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
	}
	reasons := map[string]bool{}
	for _, w := range why {
		for _, r := range []string{"didn't match pod anti-affinity rules", "didn't satisfy existing pods anti-affinity rules", "didn't match pod topology spread constraints", "Too many pods"} {
			if strings.Contains(w, r) {
				reasons[r] = true
			}
		}
	}
	rs := slices.Sorted(maps.Keys(reasons))
	sort.Strings(rs)
	return fmt.Sprintf("%s; Pending %d (%s)", strings.Join(parts, " "), pending, strings.Join(rs, ", "))
}

// unschedulableMessage is the scheduler's message in the pod's PodScheduled condition.
func unschedulableMessage(p *corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return c.Message
		}
	}
	return ""
}

// spreadSettled: the Deployment's pods all exist, each bound and Ready or marked
// unschedulable by the scheduler.
func spreadSettled(ctx context.Context, cs kubernetes.Interface, ns, app string, replicas int) (bool, error) {
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		return false, err
	}
	if len(pods.Items) != replicas {
		return false, nil
	}
	for _, p := range pods.Items {
		done := false
		for _, c := range p.Status.Conditions {
			if (p.Spec.NodeName != "" && c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue) ||
				(p.Spec.NodeName == "" && c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable) {
				done = true
			}
		}
		if !done {
			return false, nil
		}
	}
	return true, nil
}

// createSpreadNode makes a kwok node in zone with room for pods pods (0: 110), labelled and
// tainted for scenario id so that only its pods land there.
func createSpreadNode(ctx context.Context, cs kubernetes.Interface, name, id, zone string, pods int) error {
	if pods == 0 {
		pods = 110
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("128Gi"), corev1.ResourcePods: *resource.NewQuantity(int64(pods), resource.DecimalSI),
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{"type": "kwok", corev1.LabelHostname: name, corev1.LabelTopologyZone: zone, "spread-e2e": id,
				corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64"},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}},
		Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: "spread-e2e", Value: id, Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
	_, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	return err
}

// spreadManifest is a Deployment of replicas pods labelled app: name, held to scenario id's
// nodes, with spec (affinity, topologySpreadConstraints) in its pod spec.
func spreadManifest(id, name string, replicas int, spec string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[2]s, namespace: %[1]s}
spec:
  replicas: %[3]d
  selector: {matchLabels: {app: %[2]s}}
  template:
    metadata: {labels: {app: %[2]s}}
    spec:
      nodeSelector: {spread-e2e: %[1]s}
      tolerations: [{key: spread-e2e, operator: Equal, value: %[1]s, effect: NoSchedule}]
      terminationGracePeriodSeconds: 1
      containers: [{name: app, image: nginx, resources: {requests: {cpu: 100m}}}]
%[4]s`, id, name, replicas, spec)
}
