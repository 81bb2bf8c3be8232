package plugin

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubernetes/pkg/util/taints"

	"github.com/kubectl-workload/kubectl-workload/predict"
	"github.com/kubectl-workload/kubectl-workload/predict/planreport"
)

// DrainOptions are the flags and arguments of `kubectl workload predict drain`.
type DrainOptions struct {
	configFlags *genericclioptions.ConfigFlags

	Filenames                                                    []string
	NodesFile, PodSelector, Output                               string
	IgnoreDaemonSets, DeleteEmptyDirData, Force, DisableEviction bool
	Timeout, ReadyAfter                                          time.Duration
	GracePeriod                                                  int
	// Nodes is --nodes: a count N (nodes node-1 … node-N) or node names, comma-separated, of
	// the shape NodeCPU, NodeMemory, NodePods, NodeLabels (k=v,…) and NodeTaints
	// (key[=value]:Effect, as kubectl taint writes them).
	Nodes, NodeCPU, NodeMemory, NodeLabels string
	NodePods                               int64
	NodeTaints                             []string
	RetriesMeet                            bool

	request predict.DrainRequest
	genericiooptions.IOStreams
}

// NewCmdPredictDrain builds `kubectl workload predict drain NODE...`.
func NewCmdPredictDrain(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &DrainOptions{configFlags: configFlags, IOStreams: streams}
	cmd := &cobra.Command{Use: "drain NODE...", Args: cobra.MinimumNArgs(1), Long: help("drain"), Example: help("drain-example"),
		Short: "Show step by step how kubectl drain will evict a node's pods against their PodDisruptionBudgets",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		}}
	f := cmd.Flags()
	f.StringSliceVarP(&o.Filenames, "filename", "f", nil, "the cluster's objects or a dump of kubectl get pods,pdb,deploy,rs,sts,ds,rc,jobs,nodes -A -o yaml")
	f.StringVar(&o.NodesFile, "nodes-file", "", "the nodes, from kubectl get nodes -o yaml")
	f.BoolVar(&o.IgnoreDaemonSets, "ignore-daemonsets", false, "as kubectl drain: ignore DaemonSet-managed pods")
	f.BoolVar(&o.DeleteEmptyDirData, "delete-emptydir-data", false, "as kubectl drain: evict pods using emptyDir")
	f.BoolVar(&o.Force, "force", false, "as kubectl drain: evict pods that declare no controller")
	f.BoolVar(&o.DisableEviction, "disable-eviction", false, "as kubectl drain: delete instead of evict, bypassing the budgets")
	f.StringVar(&o.PodSelector, "pod-selector", "", "as kubectl drain: only pods matching this label selector")
	f.DurationVar(&o.Timeout, "timeout", 0, "as kubectl drain: give up on a node after this long (0: never)")
	f.IntVar(&o.GracePeriod, "grace-period", -1, "as kubectl drain: seconds each pod gets to terminate (negative: the pod's own)")
	f.DurationVar(&o.ReadyAfter, "ready-after", 0, "time from a replacement's creation to Ready (default: derived from the probes)")
	f.StringVar(&o.Nodes, "nodes", "", "the cluster's nodes when the files hold none: a count N (node-1 … node-N) or names (a,b,c), shaped by --node-*")
	f.StringVar(&o.NodeCPU, "node-cpu", "", "allocatable cpu of each node of --nodes (e.g. 4, 3500m; default: no limit)")
	f.StringVar(&o.NodeMemory, "node-memory", "", "allocatable memory of each node of --nodes (e.g. 16Gi; default: no limit)")
	f.Int64Var(&o.NodePods, "node-pods", 0, "allocatable pods of each node of --nodes (default 110, the kubelet's --max-pods)")
	f.StringVar(&o.NodeLabels, "node-labels", "", "labels of each node of --nodes, as kubelet --node-labels: key=value,...")
	f.StringSliceVar(&o.NodeTaints, "node-taints", nil, "taints of each node of --nodes, as kubectl taint writes them: key[=value]:Effect")
	f.BoolVar(&o.RetriesMeet, "retries-meet", false, "play the less common outcome of evictions retried together: both read the budget before either writes, the later waits for the API server's next 500ms retry")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	return cmd
}

// Complete checks the flags and reads them, with the nodes to drain, into the request.
func (o *DrainOptions) Complete(nodes []string) error {
	if o.Output != "text" && o.Output != "json" && o.Output != "" {
		return fmt.Errorf("-o %s: want text or json", o.Output)
	}
	if _, err := labels.Parse(o.PodSelector); err != nil {
		return fmt.Errorf("--pod-selector %q: %w", o.PodSelector, err)
	}
	if o.Timeout < 0 {
		return fmt.Errorf("--timeout %s: must not be negative", o.Timeout)
	}
	o.request = predict.DrainRequest{Files: o.Filenames, Stdin: o.In, NodesFile: o.NodesFile, Drain: nodes,
		IgnoreDaemonSets: o.IgnoreDaemonSets, DeleteEmptyDirData: o.DeleteEmptyDirData, Force: o.Force,
		DisableEviction: o.DisableEviction, PodSelector: o.PodSelector, Timeout: o.Timeout, GracePeriod: o.GracePeriod,
		ReadyAfter: o.ReadyAfter, RetriesMeet: o.RetriesMeet, ShapeText: o.shapeText()}
	var err error
	if o.request.ShapedNodes, err = o.shapedNodes(); err != nil {
		return err
	}
	if o.request.ShapedNodes != nil && o.NodesFile != "" {
		return errors.New("--nodes and --nodes-file: give one")
	}
	o.request.Shape, err = o.shape()
	return err
}

// Run predicts the drain, prints the plan and exits 1 when a node is not drained.
func (o *DrainOptions) Run(ctx context.Context) error {
	c, err := clusterWithoutFiles(ctx, o.configFlags, o.ErrOut, o.Filenames)
	if err != nil {
		return err
	}
	plan, err := predict.Drain(ctx, o.request, c)
	if err != nil {
		return err
	}
	if o.Output == "json" {
		err = planreport.DrainJSON(o.Out, plan)
	} else {
		err = planreport.DrainText(o.Out, plan)
	}
	if err != nil || plan.Completed {
		return err
	}
	return &exitError{code: ExitFindings}
}

// shapedNodes are the nodes --nodes names or counts, nil without --nodes.
func (o *DrainOptions) shapedNodes() ([]string, error) {
	if o.Nodes == "" {
		if (o.NodeCPU != "" || o.NodeMemory != "" || o.NodePods != 0 || o.NodeLabels != "" || len(o.NodeTaints) > 0) && o.NodesFile != "" {
			return nil, errors.New("--node-cpu, --node-memory, --node-pods, --node-labels and --node-taints shape the nodes of --nodes (or the nodes being drained when no node is given), not those of --nodes-file")
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
		return names, nil
	}
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
	return names, nil
}

// maxShapedNodes bounds --nodes N; defaultNodePods is the kubelet's default --max-pods.
const maxShapedNodes, defaultNodePods = 100000, 110

// shape is the --node-* shape of made-up nodes.
func (o *DrainOptions) shape() (predict.NodeShape, error) {
	var shape predict.NodeShape
	var err error
	if o.NodeCPU != "" {
		if shape.CPU, err = resource.ParseQuantity(o.NodeCPU); err != nil || shape.CPU.Sign() <= 0 {
			return shape, fmt.Errorf("--node-cpu %q: want a positive quantity (4, 3500m)", o.NodeCPU)
		}
	}
	if o.NodeMemory != "" {
		if shape.Memory, err = resource.ParseQuantity(o.NodeMemory); err != nil || shape.Memory.Sign() <= 0 {
			return shape, fmt.Errorf("--node-memory %q: want a positive quantity (16Gi)", o.NodeMemory)
		}
	}
	if shape.Pods = o.NodePods; shape.Pods < 0 {
		return shape, fmt.Errorf("--node-pods %d: must not be negative", o.NodePods)
	}
	if shape.Pods == 0 {
		shape.Pods = defaultNodePods
	}
	if o.NodeLabels != "" {
		if shape.Labels, err = labels.ConvertSelectorToLabelsMap(o.NodeLabels); err != nil {
			return shape, fmt.Errorf("--node-labels %q: %w", o.NodeLabels, err)
		}
	}
	if len(o.NodeTaints) > 0 {
		add, remove, err := taints.ParseTaints(o.NodeTaints)
		if err != nil {
			return shape, fmt.Errorf("--node-taints: %w", err)
		}
		if len(remove) > 0 {
			return shape, fmt.Errorf("--node-taints %s: a taint to add, not one to remove", remove[0].ToString()+"-")
		}
		shape.Taints = add
	}
	return shape, nil
}

// shapeText says what the nodes of --node-* are like.
func (o *DrainOptions) shapeText() string {
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
