package runner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	"k8s.io/kubernetes/pkg/apis/core/helper"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/podorder"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// Kinds whose scale-down order predict explains.
const (
	KindReplicaSet            = string(kernel.KindReplicaSet)
	KindReplicationController = string(kernel.KindReplicationController)
)

// burstReplicas is the most pods the ReplicaSet controller creates or deletes in one sync
// (BurstReplicas in pkg/controller/replicaset).
const burstReplicas = 500

// ScaleDownResult is the order in which a ReplicaSet or ReplicationController deletes its
// pods when spec.replicas drops below the pods it counts, and why.
type ScaleDownResult struct {
	// CurrentReplicas is the stored object's spec.replicas; nil when the state does not hold
	// the object (only its pods).
	CurrentReplicas *int32
	// Replicas is the spec.replicas it scales to.
	Replicas int32
	// Active is the number of pods the controller counts (controller.IsPodActive); Deletes is
	// Active − Replicas, the pods one sync deletes (0 when it does not scale down).
	Active  int
	Deletes int
	// At is the time pod ages are measured from, and AtSource where it came from.
	At       time.Time
	AtSource string
	// Order is every active pod, in the order the controller deletes them (podorder.Order);
	// each one's Rule and Reason say why it goes before the next, and Random marks where the
	// real controller's order is not decided by anything a user controls.
	Order []RankedPod
	// Deleted names the pods podorder.ScaleDown deletes, first first.
	Deleted []string
	// Skipped names the pods the controller does not count: terminating, Succeeded or Failed.
	Skipped []string
	// Related is the number of pods counted toward colocation: the pods of every ReplicaSet of
	// the owning Deployment, or the pods themselves.
	Related int
	Notes   []string
}

// RankedPod is one active pod in deletion order, with the facts the ranking reads.
type RankedPod struct {
	podorder.Ranked
	// Deleted is true for the pods the scale-down deletes.
	Deleted bool
	// Node is spec.nodeName ("" when unscheduled), Phase status.phase.
	Node  string
	Phase string
	Ready bool
	// DeletionCost is the controller.kubernetes.io/pod-deletion-cost annotation (0 when unset
	// or invalid, as the controller reads it).
	DeletionCost int32
	// Restarts is the most restarts of any of its containers.
	Restarts int32
}

// scaleDownKind reports whether kind (as a Target or a manifest names it) is one whose
// scale-down order predict explains.
func scaleDownKind(apiVersion, kind string) bool {
	return (apiVersion == "apps/v1" && kind == KindReplicaSet) || (apiVersion == "v1" && kind == KindReplicationController)
}

// owner is the ReplicaSet or ReplicationController whose pods are ranked.
type owner struct {
	kind     string
	meta     metav1.ObjectMeta
	selector *metav1.LabelSelector
	// replicas is the stored spec.replicas, nil when unknown.
	replicas *int32
}

// scaleDownTargets predicts the scale-down of each target named TYPE/NAME, to the replicas of
// req.WhatIf (kubectl scale --replicas).
func scaleDownTargets(ctx context.Context, req Request, state *kernel.State, res *Result, ns string) error {
	if req.WhatIf.Replicas == nil {
		return errors.New("a ReplicaSet or ReplicationController by name needs --replicas N: the count it scales down to")
	}
	if len(req.WhatIf.Images) > 0 || req.WhatIf.Undo || req.WhatIf.Resume || req.WhatIf.Restart {
		return errors.New("a ReplicaSet or ReplicationController by name takes only --replicas (--image, --undo, --resume and --restart are Deployment changes)")
	}
	for _, t := range req.Targets {
		explicit := t.Namespace != "" || req.NamespaceExplicit
		if t.Namespace == "" {
			t.Namespace = ns
		}
		resolved, note, err := resolveNamespace(state, string(t.Kind), t.Namespace, t.Name, explicit)
		if err != nil {
			return err
		}
		t.Namespace = resolved
		if !scaleDownKind(apiVersionOf(string(t.Kind)), string(t.Kind)) {
			return fmt.Errorf("%s %s/%s: give ReplicaSets and ReplicationControllers apart from Deployments", string(t.Kind), t.Namespace, t.Name)
		}
		st := state
		o := findOwner(st, string(t.Kind), t.Namespace, t.Name)
		fetched := false
		if o == nil && req.Cluster != nil {
			got, err := req.Cluster.ReadState(ctx, t.Kind, t.Namespace, t.Name)
			if err != nil {
				return err
			}
			if got == nil {
				return fmt.Errorf("%s %s/%s: not found", strings.ToLower(string(t.Kind)), t.Namespace, t.Name)
			}
			st, o, fetched = got, findOwner(got, string(t.Kind), t.Namespace, t.Name), true
		}
		if o == nil {
			if st == nil {
				return fmt.Errorf("%s %s/%s: give --state or name it in the cluster", strings.ToLower(string(t.Kind)), t.Namespace, t.Name)
			}
			// Only pods: they name their controller.
			o = &owner{kind: string(t.Kind), meta: metav1.ObjectMeta{Namespace: t.Namespace, Name: t.Name}}
		}
		p := Prediction{Kind: string(t.Kind), Namespace: t.Namespace, Name: t.Name}
		sd, baseline, err := scaleDown(req, st, o, *req.WhatIf.Replicas)
		if err != nil {
			return err
		}
		if !fetched && sd.Active == 0 && len(sd.Skipped) == 0 && o.replicas == nil {
			return fmt.Errorf("%s %s/%s: not found in %s (neither the object nor pods it controls)", strings.ToLower(string(t.Kind)), t.Namespace, t.Name, st.Source)
		}
		p.Baseline, p.ScaleDown = baseline, sd
		addNote(&p, note)
		res.Predictions = append(res.Predictions, p)
	}
	return nil
}

func apiVersionOf(kind string) string {
	if kind == KindReplicationController {
		return "v1"
	}
	return "apps/v1"
}

// predictScaleDown predicts the scale-down of a ReplicaSet or ReplicationController of the new
// manifests from the pods of the state (or the cluster) to the manifest's spec.replicas. The
// manifest goes through the API tier first. Without pods there is nothing to rank: the object
// is skipped.
func predictScaleDown(ctx context.Context, req Request, checker *apicheck.Checker, state *kernel.State, obj *manifest.Object, p Prediction, ns string) (Prediction, *SkippedObject, error) {
	versioned, ok := checkNew(ctx, checker, obj, &p, ns)
	if !ok {
		return p, nil, nil
	}
	var next *owner
	var replicas int32
	switch o := versioned.(type) {
	case *apps.ReplicaSet:
		next = &owner{kind: KindReplicaSet, meta: o.ObjectMeta, selector: o.Spec.Selector}
		replicas = ptrOr(o.Spec.Replicas, 1)
	case *v1.ReplicationController:
		next = &owner{kind: KindReplicationController, meta: o.ObjectMeta, selector: &metav1.LabelSelector{MatchLabels: o.Spec.Selector}}
		replicas = ptrOr(o.Spec.Replicas, 1)
	default:
		return Prediction{}, nil, fmt.Errorf("%s: document %d: %s: unexpected %T", obj.File, obj.Document, obj.Ref(), versioned)
	}
	next.meta.Namespace = p.Namespace
	if req.WhatIf.Replicas != nil {
		// --replicas over the manifest's, as kubectl scale after the apply.
		replicas = *req.WhatIf.Replicas
	}
	st := state
	cur := findOwner(st, next.kind, p.Namespace, obj.Name)
	if cur == nil && req.Cluster != nil {
		fetched, err := req.Cluster.ReadState(ctx, kernel.Kind(next.kind), p.Namespace, obj.Name)
		if err != nil {
			return Prediction{}, nil, err
		}
		if fetched != nil {
			st, cur = fetched, findOwner(fetched, next.kind, p.Namespace, obj.Name)
		}
	}
	if st == nil {
		return p, &SkippedObject{File: obj.File, Document: obj.Document, Pos: obj.Start, Ref: obj.Ref(),
			Reason: "a scale-down order ranks the current pods: give --state DUMP (kubectl get rs,pods -o yaml) or --live"}, nil
	}
	if cur == nil {
		// The state holds pods but not the object: rank the pods it controls (or, in a dump
		// without owner references, that the manifest's selector matches).
		cur = next
	}
	sd, baseline, err := scaleDown(req, st, cur, replicas)
	if err != nil {
		return Prediction{}, nil, fmt.Errorf("%s: document %d: %s: %w", obj.File, obj.Document, obj.Ref(), err)
	}
	p.Baseline, p.ScaleDown = baseline, sd
	return p, nil, nil
}

func ptrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

// findOwner finds a ReplicaSet of the state by namespace and name. A ReplicationController is
// never in a kernel.State: its pods name it in their controller reference, so an owner with
// its name (and no selector) finds them; the state's Fetch read them by its selector.
func findOwner(st *kernel.State, kind, namespace, name string) *owner {
	if st == nil {
		return nil
	}
	if kind == KindReplicationController {
		if len(st.Pods) == 0 {
			return nil
		}
		return &owner{kind: kind, meta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	}
	for _, rs := range st.ReplicaSets {
		if rs.Name == name && (rs.Namespace == namespace || rs.Namespace == "" || namespace == "") {
			return &owner{kind: kind, meta: rs.ObjectMeta, selector: rs.Spec.Selector, replicas: rs.Spec.Replicas}
		}
	}
	return nil
}

// scaleDown ranks o's pods in st with podorder and cuts the order at the pods a scale-down to
// replicas deletes (manageReplicas: active pods − spec.replicas).
func scaleDown(req Request, st *kernel.State, o *owner, replicas int32) (*ScaleDownResult, string, error) {
	pods, err := st.PodsOf(&o.meta, o.kind, o.selector)
	if err != nil {
		return nil, "", err
	}
	related, err := relatedPods(st, o)
	if err != nil {
		return nil, "", err
	}
	sd := &ScaleDownResult{CurrentReplicas: o.replicas, Replicas: replicas}
	switch {
	case !req.Now.IsZero():
		sd.At, sd.AtSource = req.Now, "--now"
	case !st.Now.IsZero():
		sd.At, sd.AtSource = st.Now, "the state's time"
	default:
		sd.At, sd.AtSource = req.now()
	}
	full := podorder.Order(pods, related, sd.At)
	sd.Skipped, sd.Active = full.Skipped, len(full.Order)
	sd.Related = len(pods)
	if related != nil {
		sd.Related = len(related)
	}
	sd.Deletes = max(sd.Active-int(replicas), 0)
	deleted := map[*v1.Pod]bool{}
	if sd.Deletes > 0 {
		for _, r := range podorder.ScaleDown(pods, related, sd.At, sd.Deletes).Order {
			sd.Deleted = append(sd.Deleted, r.Pod.Name)
			deleted[r.Pod] = true
		}
	}
	for _, r := range full.Order {
		rp := RankedPod{Ranked: r, Deleted: deleted[r.Pod], Node: r.Pod.Spec.NodeName, Phase: string(r.Pod.Status.Phase),
			Ready: podutil.IsPodReady(r.Pod)}
		rp.DeletionCost, _ = helper.GetDeletionCostFromPodAnnotations(r.Pod.Annotations)
		for _, c := range r.Pod.Status.ContainerStatuses {
			rp.Restarts = max(rp.Restarts, c.RestartCount)
		}
		sd.Order = append(sd.Order, rp)
	}
	switch {
	case sd.Active < int(replicas):
		sd.Notes = append(sd.Notes, fmt.Sprintf("%d active %s, spec.replicas %d: the controller creates %d and deletes none",
			sd.Active, plural(sd.Active, "pod", "pods"), replicas, int(replicas)-sd.Active))
	case sd.Deletes == 0:
		sd.Notes = append(sd.Notes, fmt.Sprintf("%d active %s, spec.replicas %d: nothing to delete", sd.Active, plural(sd.Active, "pod", "pods"), replicas))
	case sd.Deletes < sd.Active && sd.Order[sd.Deletes-1].Random:
		sd.Notes = append(sd.Notes, fmt.Sprintf("which of %s and %s goes is not decided by anything you control: %s",
			sd.Order[sd.Deletes-1].Pod.Name, sd.Order[sd.Deletes].Pod.Name, sd.Order[sd.Deletes-1].Reason))
	}
	if ref := metav1.GetControllerOf(&o.meta); ref != nil && ref.Kind == "Deployment" {
		sd.Notes = append(sd.Notes, fmt.Sprintf("controlled by Deployment %s: the Deployment controller owns spec.replicas and reverts a direct scale; scale the Deployment", ref.Name))
	}
	if sd.Deletes > burstReplicas {
		sd.Notes = append(sd.Notes, fmt.Sprintf("one sync deletes at most %d pods (burstReplicas); the rest follow in later syncs", burstReplicas))
	}
	baseline := fmt.Sprintf("%s: %d active %s", st.Source, sd.Active, plural(sd.Active, "pod", "pods"))
	if len(sd.Skipped) > 0 {
		baseline += fmt.Sprintf(", %d not counted", len(sd.Skipped))
	}
	return sd, baseline, nil
}

// relatedPods mirrors getIndirectlyRelatedPods: for a ReplicaSet controlled by a Deployment,
// the pods of every ReplicaSet of that Deployment count toward colocation. nil means the pods
// themselves.
func relatedPods(st *kernel.State, o *owner) ([]*v1.Pod, error) {
	ref := metav1.GetControllerOf(&o.meta)
	if o.kind != KindReplicaSet || ref == nil || ref.Kind != "Deployment" {
		return nil, nil
	}
	seen := map[string]bool{}
	var out []*v1.Pod
	add := func(pods []*v1.Pod) {
		for _, p := range pods {
			if key := p.Namespace + "/" + p.Name; !seen[key] {
				seen[key] = true
				out = append(out, p)
			}
		}
	}
	for _, rs := range st.ReplicaSets {
		r := metav1.GetControllerOf(rs)
		if r == nil || r.Kind != "Deployment" || (rs.Namespace != o.meta.Namespace && rs.Namespace != "" && o.meta.Namespace != "") {
			continue
		}
		if (ref.UID != "" && r.UID != ref.UID) || (ref.UID == "" && r.Name != ref.Name) {
			continue
		}
		pods, err := st.PodsOf(rs, KindReplicaSet, rs.Spec.Selector)
		if err != nil {
			return nil, err
		}
		add(pods)
	}
	own, err := st.PodsOf(&o.meta, o.kind, o.selector)
	if err != nil {
		return nil, err
	}
	add(own)
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace+"/"+out[i].Name < out[j].Namespace+"/"+out[j].Name })
	return out, nil
}
