package predict

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-workload/kubectl-workload/internal/kubectl/drain"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/scheduler"
)

// DrainRequest is what a drain prediction needs, as plain values: kubectl drain's options and
// the cluster it drains.
type DrainRequest struct {
	// Files are the cluster's objects: manifests or dumps ("-" is Stdin). Without files, the
	// cluster is read through the client Drain is given (list requests only).
	Files []string
	Stdin io.Reader
	// NodesFile is a dump of kubectl get nodes -o yaml: the cluster's nodes.
	NodesFile string
	// Drain are the nodes to drain, in order.
	Drain                                                        []string
	IgnoreDaemonSets, DeleteEmptyDirData, Force, DisableEviction bool
	PodSelector                                                  string
	Timeout                                                      time.Duration
	// GracePeriod is in seconds: below 0, each pod's own terminationGracePeriodSeconds; 0
	// deletes at once.
	GracePeriod                int
	ReadyAfter, TerminateAfter time.Duration
	// ShapedNodes are nodes to add to the cluster's, of Shape; nil for none. Without any
	// node in the files or NodesFile, the nodes being drained are taken, of Shape, and
	// ShapeText describes Shape in the plan's assumption.
	ShapedNodes []string
	Shape       NodeShape
	ShapeText   string
	// RetriesMeet plays the less common outcome of evictions retried at the same moment
	// (drain.Options.RetriesMeet).
	RetriesMeet bool
}

// NodeShape is the allocatable resources, labels and taints of made-up nodes
// (scheduler.NodeShape).
type NodeShape = scheduler.NodeShape

// DrainPlan is a drain's plan, node by node (drain.Plan).
type DrainPlan = drain.Plan

// problemsError is every problem the loader found in set, each at its file:line:col, joined;
// nil when it found none. Drain, Delete and Upgrade read a cluster from files and refuse one
// they cannot read whole.
func problemsError(set *manifest.Set) error {
	var errs []error
	for _, p := range set.Problems {
		errs = append(errs, fmt.Errorf("%s:%d:%d: %s", p.File, p.Pos.Line, p.Pos.Column, p.Message))
	}
	return errors.Join(errs...)
}

// drainStart is the simulated wall-clock start: only differences of times matter.
var drainStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Drain predicts kubectl drain of req.Drain and returns the plan; the drain fails when
// !plan.Completed. Without req.Files it reads the cluster through c (list requests only).
func Drain(ctx context.Context, req DrainRequest, c *live.Client) (*DrainPlan, error) {
	if len(req.Drain) == 0 {
		return nil, errors.New("name at least one node to drain")
	}
	var w drain.World
	fromCluster := len(req.Files) == 0
	if fromCluster {
		if c == nil {
			return nil, errors.New("a live drain prediction needs the cluster")
		}
		var err error
		if w, err = liveWorld(ctx, c); err != nil {
			return nil, err
		}
	} else {
		set := manifest.Load(req.Files, req.Stdin)
		if err := problemsError(set); err != nil {
			return nil, err
		}
		var err error
		if w, err = worldOf(set); err != nil {
			return nil, err
		}
	}
	if req.ShapedNodes != nil {
		w.Nodes = append(w.Nodes, scheduler.ShapedNodes(req.ShapedNodes, req.Shape)...)
	}
	if req.NodesFile != "" {
		set := manifest.Load([]string{req.NodesFile}, nil)
		if len(set.Problems) > 0 {
			return nil, fmt.Errorf("--nodes-file %s: %s", req.NodesFile, set.Problems[0].Message)
		}
		nodes, err := worldOf(set)
		if err != nil {
			return nil, fmt.Errorf("--nodes-file: %w", err)
		}
		w.Nodes = nodes.Nodes
	}
	// Workloads whose pods are not in the files are placed on the nodes; with no node given
	// at all, on the nodes being drained, of req.Shape.
	var assumed string
	if !fromCluster && len(w.Nodes) == 0 && needsPods(w) {
		w.Nodes = scheduler.ShapedNodes(req.Drain, req.Shape)
		assumed = fmt.Sprintf("no nodes given (Node objects in -f, --nodes-file or --nodes): the nodes named to drain (%s) are taken as the cluster's nodes, %s", strings.Join(req.Drain, ", "), req.ShapeText)
	}
	plan, err := drain.Drain(w, drain.Options{Place: !fromCluster, RetriesMeet: req.RetriesMeet,
		Nodes: req.Drain, Force: req.Force, IgnoreDaemonSets: req.IgnoreDaemonSets, DeleteEmptyDirData: req.DeleteEmptyDirData,
		DisableEviction: req.DisableEviction, PodSelector: req.PodSelector, GracePeriodSeconds: req.GracePeriod,
		Timeout: req.Timeout, ReadyAfter: req.ReadyAfter, TerminateAfter: req.TerminateAfter, Start: drainStart,
	})
	if err != nil {
		return nil, err
	}
	if assumed != "" {
		plan.Assumptions = append(plan.Assumptions, assumed)
		sort.Strings(plan.Assumptions)
	}
	return plan, nil
}

// needsPods reports whether a workload of w has no pod in w.
func needsPods(w drain.World) bool {
	probe := w
	probe.Pods = append([]*v1.Pod(nil), w.Pods...)
	probe.ReplicaSets = append([]*apps.ReplicaSet(nil), w.ReplicaSets...)
	return len(scheduler.Place(&probe)) > 0
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
