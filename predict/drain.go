package predict

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/kubernetes/pkg/util/taints"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/internal/kubectl/drain"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/scheduler"
	"github.com/kubectl-workload/kubectl-workload/predict/report"
)

// DrainShort is the one-line help of `kubectl workload predict drain`.
const DrainShort = "Show step by step how kubectl drain will evict a node's pods against their PodDisruptionBudgets"

// DrainHelp is the long help of `kubectl workload predict drain`.
const DrainHelp = `Predict kubectl drain NODE...: which pods it evicts, which the Eviction API
refuses and under which PodDisruptionBudget, how the owners' replacement pods on the
remaining schedulable nodes give the budgets room again, and whether and when the
drain completes, or what blocks it forever and the first change that would unblock it.

As kubectl drain does, every node is cordoned first, then drained in turn: kubectl's
own filters (k8s.io/kubectl/pkg/drain) decide what is evicted (DaemonSet pods, bare
pods, emptyDir, mirror pods), each pod's eviction is retried every 5s while its
budget answers 429, and --timeout applies to each node. The budgets' status is the
disruption controller's (expected pods from the controllers' scale, healthy pods,
minAvailable or maxUnavailable as numbers or percentages), the verdict the eviction
REST storage's (one budget, several budgets: 500, unready pods and
unhealthyPodEvictionPolicy).

The cluster comes from -f: manifests or a dump (kubectl get
pods,pdb,deploy,rs,sts,ds,rc,jobs,nodes -A -o yaml), the nodes from the same files or
--nodes-file; without -f, from the cluster itself, read-only (list requests only). Replacement pods become Ready after a time
derived from their probes (--ready-after to set it); evicted pods run 5s or their
preStop sleep, bounded by their grace period or --grace-period.

Exit status: 0 when every node drains; 1 when a drain fails, times out or never
ends; 2 for usage or tool errors.`

// DrainOptions are the flags and arguments of `kubectl workload predict drain`.
type DrainOptions struct {
	// Filenames are -f: files, directories, dumps (--state is a synonym).
	Filenames, StateFiles                                        []string
	NodesFile                                                    string
	IgnoreDaemonSets, DeleteEmptyDirData, Force, DisableEviction bool
	PodSelector                                                  string
	Timeout                                                      time.Duration
	// GracePeriod is --grace-period in seconds: below 0 (the flag's default), each pod's own
	// terminationGracePeriodSeconds; 0 deletes at once.
	GracePeriod                int
	ReadyAfter, TerminateAfter time.Duration
	// Nodes is --nodes: a count N (nodes node-1 … node-N) or node names, comma-separated, of
	// the shape NodeCPU, NodeMemory, NodePods, NodeLabels (k=v,…) and NodeTaints
	// (key[=value]:Effect, as kubectl taint writes them).
	Nodes, NodeCPU, NodeMemory string
	NodePods                   int64
	NodeLabels                 string
	NodeTaints                 []string
	// RetriesMeet plays the less common outcome of evictions retried at the same moment
	// (drain.Options.RetriesMeet).
	RetriesMeet bool
	Output      string
	// Getter reaches the cluster when there are no files (live mode).
	Getter genericclioptions.RESTClientGetter
	genericiooptions.IOStreams
}

// DrainExample is the example of `kubectl workload predict drain`.
const DrainExample = `  # Will draining node-1 finish, and when, against the budgets in the files?
  kubectl workload predict drain node-1 -f plugin/testdata/predict/drain-cluster.yaml --ignore-daemonsets

  # The same from the cluster (read-only), giving up after 2 minutes as kubectl would
  kubectl workload predict drain node-1 node-2 --ignore-daemonsets --timeout 2m`

// Live reports whether the drain reads the cluster: no -f and no --state.
func (o DrainOptions) Live() bool { return len(o.Filenames) == 0 && len(o.StateFiles) == 0 }

// drainStart is the simulated wall-clock start: only differences of times matter.
var drainStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Drain predicts kubectl drain of nodes as o asks, reading the cluster (list only) when
// o.Live(), writes the plan to o.Out, and reports whether it fails (a node not drained).
func Drain(ctx context.Context, o DrainOptions, nodes []string) (failed bool, err error) {
	if len(nodes) == 0 {
		return false, errors.New("name at least one node to drain")
	}
	if o.Output != "text" && o.Output != "json" && o.Output != "" {
		return false, fmt.Errorf("-o %s: want text or json", o.Output)
	}
	if _, err := labels.Parse(o.PodSelector); err != nil {
		return false, fmt.Errorf("--pod-selector %q: %w", o.PodSelector, err)
	}
	if o.Timeout < 0 {
		return false, fmt.Errorf("--timeout %s: must not be negative", o.Timeout)
	}
	var w drain.World
	if o.Live() {
		if o.Getter == nil {
			return false, errors.New("a live drain prediction needs the cluster")
		}
		c, err := live.Connect(ctx, o.Getter, func(msg string) { fmt.Fprintf(o.ErrOut, "warning: %s\n", msg) })
		if err != nil {
			return false, err
		}
		if w, err = liveWorld(ctx, c); err != nil {
			return false, err
		}
	} else {
		set := manifest.Load(append(append([]string{}, o.Filenames...), o.StateFiles...), o.In)
		if len(set.Problems) > 0 {
			var errs []error
			for _, p := range set.Problems {
				errs = append(errs, fmt.Errorf("%s:%d:%d: %s", p.File, p.Pos.Line, p.Pos.Column, p.Message))
			}
			return false, errors.Join(errs...)
		}
		if w, err = worldOf(set); err != nil {
			return false, err
		}
	}
	shaped, err := o.shapedNodes(nodes)
	if err != nil {
		return false, err
	}
	if shaped != nil {
		if o.NodesFile != "" {
			return false, errors.New("--nodes and --nodes-file: give one")
		}
		w.Nodes = append(w.Nodes, shaped...)
	}
	if o.NodesFile != "" {
		set := manifest.Load([]string{o.NodesFile}, nil)
		if len(set.Problems) > 0 {
			return false, fmt.Errorf("--nodes-file %s: %s", o.NodesFile, set.Problems[0].Message)
		}
		nodes, err := worldOf(set)
		if err != nil {
			return false, fmt.Errorf("--nodes-file: %w", err)
		}
		w.Nodes = nodes.Nodes
	}
	// Workloads whose pods are not in the files are placed on the nodes; with no node given
	// at all, on the nodes being drained, of --node-* shape.
	var assumed string
	if !o.Live() && len(w.Nodes) == 0 && needsPods(w) {
		if w.Nodes, err = o.shape(nodes); err != nil {
			return false, err
		}
		assumed = fmt.Sprintf("no nodes given (Node objects in -f, --nodes-file or --nodes): the nodes named to drain (%s) are taken as the cluster's nodes, %s", strings.Join(nodes, ", "), o.shapeText())
	}
	plan, err := drain.Drain(w, drain.Options{Place: !o.Live(), RetriesMeet: o.RetriesMeet,
		Nodes: nodes, Force: o.Force, IgnoreDaemonSets: o.IgnoreDaemonSets, DeleteEmptyDirData: o.DeleteEmptyDirData,
		DisableEviction: o.DisableEviction, PodSelector: o.PodSelector, GracePeriodSeconds: o.GracePeriod,
		Timeout: o.Timeout, ReadyAfter: o.ReadyAfter, TerminateAfter: o.TerminateAfter, Start: drainStart,
	})
	if err != nil {
		return false, err
	}
	if assumed != "" {
		plan.Assumptions = append(plan.Assumptions, assumed)
		sort.Strings(plan.Assumptions)
	}
	if o.Output == "json" {
		err = report.DrainJSON(o.Out, plan)
	} else {
		err = report.DrainText(o.Out, plan)
	}
	return !plan.Completed, err
}

// needsPods reports whether a workload of w has no pod in w.
func needsPods(w drain.World) bool {
	probe := w
	probe.Pods = append([]*v1.Pod(nil), w.Pods...)
	probe.ReplicaSets = append([]*apps.ReplicaSet(nil), w.ReplicaSets...)
	return len(scheduler.Place(&probe)) > 0
}

// shapedNodes are the nodes --nodes names or counts, nil without --nodes.
func (o DrainOptions) shapedNodes(drained []string) ([]*v1.Node, error) {
	if o.Nodes == "" {
		if o.NodeCPU != "" || o.NodeMemory != "" || o.NodePods != 0 || o.NodeLabels != "" || len(o.NodeTaints) > 0 {
			if o.NodesFile != "" {
				return nil, errors.New("--node-cpu, --node-memory, --node-pods, --node-labels and --node-taints shape the nodes of --nodes (or the nodes being drained when no node is given), not those of --nodes-file")
			}
		}
		return nil, nil
	}
	var names []string
	if n, err := strconv.Atoi(o.Nodes); err == nil {
		if n < 1 || n > maxShapedNodes {
			return nil, fmt.Errorf("--nodes %d: want 1 to %d nodes, or node names", n, maxShapedNodes)
		}
		for i := 1; i <= n; i++ {
			names = append(names, fmt.Sprintf("node-%d", i))
		}
	} else {
		seen := map[string]bool{}
		for _, name := range strings.Split(o.Nodes, ",") {
			name = strings.TrimSpace(name)
			if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
				return nil, fmt.Errorf("--nodes %q: node name %q: %s", o.Nodes, name, strings.Join(errs, "; "))
			}
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	return o.shape(names)
}

// maxShapedNodes bounds --nodes N.
const maxShapedNodes = 100000

// shape makes nodes of the --node-* shape named names.
func (o DrainOptions) shape(names []string) ([]*v1.Node, error) {
	var shape scheduler.NodeShape
	var err error
	if o.NodeCPU != "" {
		if shape.CPU, err = resource.ParseQuantity(o.NodeCPU); err != nil || shape.CPU.Sign() <= 0 {
			return nil, fmt.Errorf("--node-cpu %q: want a positive quantity (4, 3500m)", o.NodeCPU)
		}
	}
	if o.NodeMemory != "" {
		if shape.Memory, err = resource.ParseQuantity(o.NodeMemory); err != nil || shape.Memory.Sign() <= 0 {
			return nil, fmt.Errorf("--node-memory %q: want a positive quantity (16Gi)", o.NodeMemory)
		}
	}
	shape.Pods = o.NodePods
	if shape.Pods < 0 {
		return nil, fmt.Errorf("--node-pods %d: must not be negative", o.NodePods)
	}
	if shape.Pods == 0 {
		shape.Pods = defaultNodePods
	}
	if o.NodeLabels != "" {
		set, err := labels.ConvertSelectorToLabelsMap(o.NodeLabels)
		if err != nil {
			return nil, fmt.Errorf("--node-labels %q: %w", o.NodeLabels, err)
		}
		shape.Labels = set
	}
	if len(o.NodeTaints) > 0 {
		add, remove, err := taints.ParseTaints(o.NodeTaints)
		if err != nil {
			return nil, fmt.Errorf("--node-taints: %w", err)
		}
		if len(remove) > 0 {
			return nil, fmt.Errorf("--node-taints %s: a taint to add, not one to remove", remove[0].ToString()+"-")
		}
		shape.Taints = add
	}
	return scheduler.ShapedNodes(names, shape), nil
}

// defaultNodePods is the kubelet's default --max-pods.
const defaultNodePods = 110

// shapeText says what the nodes of --node-* are like.
func (o DrainOptions) shapeText() string {
	var parts []string
	if o.NodeCPU != "" {
		parts = append(parts, "cpu "+o.NodeCPU)
	}
	if o.NodeMemory != "" {
		parts = append(parts, "memory "+o.NodeMemory)
	}
	pods := o.NodePods
	if pods == 0 {
		pods = defaultNodePods
	}
	parts = append(parts, fmt.Sprintf("%d pods", pods))
	s := "each with allocatable " + strings.Join(parts, ", ")
	if o.NodeCPU == "" || o.NodeMemory == "" {
		s += " (no cpu or memory limit unless --node-cpu and --node-memory say)"
	}
	if o.NodeLabels != "" {
		s += ", labels " + o.NodeLabels
	}
	if len(o.NodeTaints) > 0 {
		s += ", taints " + strings.Join(o.NodeTaints, ", ")
	}
	return s
}

// worldOf decodes the kinds a drain reads from a loaded set; other kinds are ignored.
func worldOf(set *manifest.Set) (drain.World, error) {
	var w drain.World
	for _, obj := range set.Objects {
		var target any
		switch obj.APIVersion + "/" + obj.Kind {
		case "v1/Pod":
			target = add(&w.Pods)
		case "policy/v1/PodDisruptionBudget":
			target = add(&w.Budgets)
		case "v1/Node":
			target = add(&w.Nodes)
		case "apps/v1/Deployment":
			target = add(&w.Deployments)
		case "apps/v1/ReplicaSet":
			target = add(&w.ReplicaSets)
		case "apps/v1/StatefulSet":
			target = add(&w.StatefulSets)
		case "apps/v1/DaemonSet":
			target = add(&w.DaemonSets)
		case "v1/ReplicationController":
			target = add(&w.ReplicationControllers)
		case "batch/v1/Job":
			target = add(&w.Jobs)
		default:
			continue
		}
		if err := json.Unmarshal(obj.JSON, target); err != nil {
			return w, fmt.Errorf("%s: document %d: decode %s %s: %w", obj.File, obj.Document, obj.Kind, obj.Name, err)
		}
		// An object written without a namespace goes to "default", as kubectl apply
		// puts it (Nodes have none).
		if m, err := meta.Accessor(target); err == nil && m.GetNamespace() == "" && obj.Kind != "Node" {
			m.SetNamespace("default")
		}
	}
	return w, nil
}

func add[T any](list *[]*T) *T {
	v := new(T)
	*list = append(*list, v)
	return v
}

// liveWorld lists, in every namespace, what a drain reads: pods, budgets, nodes and the
// controllers whose scale the budgets count (list requests only).
func liveWorld(ctx context.Context, c *live.Client) (drain.World, error) {
	var w drain.World
	var kinds []live.Kind
	for _, gk := range [][2]string{{"", "Pod"}, {"policy", "PodDisruptionBudget"}, {"apps", "Deployment"}, {"apps", "ReplicaSet"},
		{"apps", "StatefulSet"}, {"apps", "DaemonSet"}, {"", "ReplicationController"}, {"batch", "Job"}} {
		k, ok := live.KindFor(gk[0], gk[1])
		if !ok {
			return w, fmt.Errorf("no live kind %s/%s", gk[0], gk[1])
		}
		kinds = append(kinds, k)
	}
	kinds = append(kinds, live.NodesKind)
	us, err := c.List(ctx, "", kinds)
	if err != nil {
		return w, err
	}
	for _, u := range us {
		var target any
		switch u.GetKind() {
		case "Pod":
			target = add(&w.Pods)
		case "PodDisruptionBudget":
			target = add(&w.Budgets)
		case "Node":
			target = add(&w.Nodes)
		case "Deployment":
			target = add(&w.Deployments)
		case "ReplicaSet":
			target = add(&w.ReplicaSets)
		case "StatefulSet":
			target = add(&w.StatefulSets)
		case "DaemonSet":
			target = add(&w.DaemonSets)
		case "ReplicationController":
			target = add(&w.ReplicationControllers)
		case "Job":
			target = add(&w.Jobs)
		default:
			continue
		}
		if err := fromUnstructured(u, target); err != nil {
			return w, fmt.Errorf("%s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
	sort.SliceStable(w.Pods, func(i, j int) bool {
		return w.Pods[i].Namespace+"/"+w.Pods[i].Name < w.Pods[j].Namespace+"/"+w.Pods[j].Name
	})
	return w, nil
}

func fromUnstructured(u *unstructured.Unstructured, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
}
