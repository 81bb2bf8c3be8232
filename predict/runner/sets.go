package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/daemon"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/statefulset"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// DefaultNodes is how many Ready nodes a DaemonSet prediction assumes when neither a state, a
// cluster nor --nodes/--nodes-file gives them.
const DefaultNodes = 3

// predictSet predicts a StatefulSet or DaemonSet of the new manifests, the way Run predicts a
// Deployment: the baseline (state, cluster, --from or --base-ref), the API tier (an update of
// the stored object when there is one), then the kind's simulator.
func predictSet(ctx context.Context, req Request, checker *apicheck.Checker, state *kernel.State, oldSet *manifest.Set, obj *manifest.Object, p Prediction, defaultNS string) (Prediction, error) {
	ns := p.Namespace
	base, err := resolveBaseline(ctx, req, checker, state, oldSet, obj, p.Namespace, defaultNS)
	if err != nil {
		return Prediction{}, err
	}
	objState, cur, stored, baseline := base.state, base.cur, base.stored, base.text
	var old runtime.Object
	if base.old != nil {
		if old, err = decodeSet(obj.Kind, base.old); err != nil {
			return Prediction{}, fmt.Errorf("%s: document %d: old %s: %w", base.oldObj.File, base.oldObj.Document, base.oldObj.Ref(), err)
		}
	}
	checked, ok := checkAPI(ctx, checker, obj, &p, ns, stored)
	if !ok {
		return p, nil
	}
	p.Baseline = baseline
	whatIfNotes, err := applyWhatIfToFile(req, objState, cur, obj, checked, p.Namespace)
	if err != nil {
		return Prediction{}, err
	}
	ti := TimingInfo{FailNew: req.FailNew}
	var plan *kernel.Plan
	var dist *kernel.Distribution
	switch next := checked.(type) {
	case *apps.StatefulSet:
		next.Namespace = p.Namespace
		p.Autoscaler = autoscaledSet(req, objState, cur, old, base.oldObj, obj, next)
		ti = timingFor(req, &next.Spec.Template)
		in := statefulset.Input{StatefulSet: next, Start: req.Start,
			Timing: kernel.Timing{ReadyAfter: ti.ReadyAfter, TerminateAfter: ti.TerminateAfter, FailNew: req.FailNew}}
		if c, ok := cur.(*apps.StatefulSet); ok {
			// The stored object's status (revisions, collisionCount) under the new spec.
			next.Status = c.Status
			next.UID = c.UID
			if in.Pods, err = objState.PodsOf(c, "StatefulSet", c.Spec.Selector); err != nil {
				return Prediction{}, err
			}
			in.CurrentRevision = c.Status.CurrentRevision
			if in.Start.IsZero() {
				in.Start = objState.Now
			}
		} else if o, ok := old.(*apps.StatefulSet); ok {
			in.Old = o
		}
		if err := sizeOf(req, "StatefulSet", "spec.replicas", int64(ptrOr(next.Spec.Replicas, 1))); err != nil {
			return Prediction{}, fmt.Errorf("%s: document %d: %s: %w", obj.File, obj.Document, obj.Ref(), err)
		}
		plan, dist, err = spreadRuns(req, func(s *kernel.Spread) (*kernel.Plan, error) {
			in := in
			in.Timing.Spread = s
			return statefulset.Simulate(in)
		})
	case *apps.DaemonSet:
		next.Namespace = p.Namespace
		ti = timingFor(req, &next.Spec.Template)
		in := daemon.Input{DaemonSet: next, Start: req.Start, Nodes: req.Nodes,
			Timing: kernel.Timing{ReadyAfter: ti.ReadyAfter, TerminateAfter: ti.TerminateAfter, FailNew: req.FailNew}}
		if objState != nil && len(objState.Nodes) > 0 {
			in.Nodes = objState.Nodes
		}
		if len(in.Nodes) == 0 {
			in.Nodes = daemon.SyntheticNodes(DefaultNodes)
		}
		if c, ok := cur.(*apps.DaemonSet); ok {
			next.Status = c.Status
			next.UID = c.UID
			if in.Pods, err = objState.PodsOf(c, "DaemonSet", c.Spec.Selector); err != nil {
				return Prediction{}, err
			}
			if in.Start.IsZero() {
				in.Start = objState.Now
			}
		} else if o, ok := old.(*apps.DaemonSet); ok {
			in.Old = o
		}
		if err := sizeOf(req, "DaemonSet", "nodes", int64(len(in.Nodes))); err != nil {
			return Prediction{}, fmt.Errorf("%s: document %d: %s: %w", obj.File, obj.Document, obj.Ref(), err)
		}
		plan, dist, err = spreadRuns(req, func(s *kernel.Spread) (*kernel.Plan, error) {
			in := in
			in.Timing.Spread = s
			return daemon.Simulate(in)
		})
		if err == nil && len(req.Nodes) == 0 && (objState == nil || len(objState.Nodes) == 0) {
			plan.Notes = append(plan.Notes, fmt.Sprintf("no nodes given: %d Ready nodes assumed (--nodes N or --nodes-file)", DefaultNodes))
		}
	default:
		return Prediction{}, fmt.Errorf("%s: document %d: %s: unexpected %T", obj.File, obj.Document, obj.Ref(), next)
	}
	if err != nil {
		return Prediction{}, fmt.Errorf("%s: document %d: %s: %w", obj.File, obj.Document, obj.Ref(), err)
	}
	plan.Notes = append(plan.Notes, whatIfNotes...)
	sort.Strings(plan.Notes)
	p.Plan, p.Timing, p.Distribution = plan, ti, dist
	attachAutoscaler(&p, p.Autoscaler, objState)
	return p, nil
}

// autoscaledSet sets next's replicas, and the old version's, to the count planReplicas
// chooses when an autoscaler targets the StatefulSet, and returns that autoscaler (nil for
// none). obj without a file is a what-if of the stored object (predictSetChange), whose
// spec.replicas is the stored one or --replicas.
func autoscaledSet(req Request, st *kernel.State, cur, old runtime.Object, oldObj, obj *manifest.Object, next *apps.StatefulSet) *Autoscaler {
	a, _ := autoscalerFor(autoscalersOfState(st), req.autoscalers, "StatefulSet", next.Namespace, next.Name)
	if a == nil {
		return nil
	}
	var stored, written *int32
	if c, ok := cur.(*apps.StatefulSet); ok {
		stored, a.ScaleSource = c.Spec.Replicas, st.Source
	}
	if obj.File != "" && writesReplicas(obj.JSON) {
		written = next.Spec.Replicas
	}
	n := a.planReplicas(stored, written, req.WhatIf.Replicas)
	next.Spec.Replicas = &n
	if o, ok := old.(*apps.StatefulSet); ok && !writesReplicas(oldObj.JSON) {
		o.Spec.Replicas = &n
	}
	return a
}

// timingFor derives the world's timing from the template, unless the request sets it.
func timingFor(req Request, tpl *v1.PodTemplateSpec) TimingInfo {
	ti := TimingInfo{FailNew: req.FailNew}
	ti.ReadyAfter, ti.ReadySource = kernel.DeriveReadyAfter(tpl)
	if req.ReadyAfter > 0 {
		ti.ReadyAfter, ti.ReadySource = req.ReadyAfter, "--ready-after"
	}
	ti.TerminateAfter, ti.TerminateSource = kernel.DeriveTerminateAfter(tpl)
	if req.TerminateAfter > 0 {
		ti.TerminateAfter, ti.TerminateSource = kernel.BoundTerminateAfter(tpl, req.TerminateAfter)
	}
	return ti
}

func decodeSet(kind string, js []byte) (runtime.Object, error) {
	var o runtime.Object
	switch kind {
	case "StatefulSet":
		o = &apps.StatefulSet{}
	case "DaemonSet":
		o = &apps.DaemonSet{}
	default:
		return nil, fmt.Errorf("unexpected kind %s", kind)
	}
	return o, json.Unmarshal(js, o)
}

// applyWhatIfToFile applies the what-if (--image, --replicas, --restart, --undo) to a
// StatefulSet or DaemonSet of the new manifests, as kubectl would change it after the apply,
// and returns the plan's notes. obj without a file is a what-if of the stored object
// (predictSetChange), already applied.
func applyWhatIfToFile(req Request, st *kernel.State, cur runtime.Object, obj *manifest.Object, checked runtime.Object, namespace string) ([]string, error) {
	if obj.File == "" || req.WhatIf.Empty() {
		return nil, nil
	}
	var history []*apps.ControllerRevision
	ref := strings.ToLower(obj.Kind) + " " + namespace + "/" + obj.Name
	switch next := checked.(type) {
	case *apps.StatefulSet:
		if c, ok := cur.(*apps.StatefulSet); ok && st != nil {
			history = st.OwnedRevisions(c, "StatefulSet")
		}
		return req.WhatIf.ApplyToTemplate(ref, next, &next.Spec.Template, &next.Spec.Replicas, history)
	case *apps.DaemonSet:
		if c, ok := cur.(*apps.DaemonSet); ok && st != nil {
			history = st.OwnedRevisions(c, "DaemonSet")
		}
		return req.WhatIf.ApplyToTemplate(ref, next, &next.Spec.Template, nil, history)
	}
	return nil, fmt.Errorf("%s: unexpected %T", ref, checked)
}
