// Package garbagecollector mirrors the walk of the garbage collector
// (pkg/controller/garbagecollector in kubernetes/kubernetes) for one delete request: which
// objects go and in what order under each propagation policy, which dependents are
// orphaned, which wait on a finalizer, and what the owners' controllers recreate.
package garbagecollector

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The propagation policies of a delete request, as kubectl delete --cascade names them.
const (
	Background = "background"
	Foreground = "foreground"
	Orphan     = "orphan"
)

// Actions of a Step.
const (
	ActionDeleted    = "deleted"
	ActionOrphaned   = "orphaned"
	ActionRefRemoved = "ownerReference removed"
	ActionWaits      = "waits"
	ActionKept       = "kept"
	ActionRecreated  = "recreated"
	ActionAdopted    = "adopted"
	// ActionCreated is a new object a remaining controller creates (a recreated ReplicaSet's
	// pods), named by its generateName and a number: the real name is random.
	ActionCreated = "created"
)

// Step is one thing that happens to one object. Order is the step's place in time:
// steps with the same Order happen together (the collector works on them concurrently).
type Step struct {
	Order  int    `json:"order"`
	Object string `json:"object"`
	Action string `json:"action"`
	Reason string `json:"reason"`
}

// Plan is the outcome of one delete request.
type Plan struct {
	Target      string `json:"target"`
	Propagation string `json:"propagation"`
	Steps       []Step `json:"steps"`
	// Deleted, Orphaned, Waiting, Kept and Recreated name objects as Kind/namespace/name,
	// sorted.
	Deleted   []string `json:"deleted"`
	Orphaned  []string `json:"orphaned"`
	Waiting   []string `json:"waiting"`
	Kept      []string `json:"kept"`
	Recreated []string `json:"recreated"`
	// Created are the new objects the remaining controllers create, in the order of Steps.
	Created     []string `json:"created"`
	Assumptions []string `json:"assumptions,omitempty"`
}

// The finalizers the API server and the collector own (metav1.FinalizerOrphanDependents,
// metav1.FinalizerDeleteDependents).
const (
	finalizerOrphan     = metav1.FinalizerOrphanDependents
	finalizerForeground = metav1.FinalizerDeleteDependents
	// finalizerPVCProtection is the pvc-protection controller's
	// (pkg/controller/volume/pvcprotection): it lifts it once no pod uses the claim, and the
	// claim's pods are deleted in the same walk.
	finalizerPVCProtection = "kubernetes.io/pvc-protection"
)

type node struct {
	obj        *unstructured.Unstructured
	id         string
	dependents []*node
	// state after the walk.
	gone, deleting, waiting bool
	// foreground: the object carries foregroundDeletion (deleting its dependents).
	foreground bool
	order      int
}

// graph mirrors the collector's GraphBuilder: owners and their dependents, linked by
// ownerReferences (uidToNode and node.dependents in graph.go).
type graph struct {
	nodes []*node
	byID  map[string]*node
	steps []Step
}

// ID names an object as Kind/namespace/name (Kind/name when cluster-scoped).
func ID(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetKind() + "/" + u.GetName()
	}
	return u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
}

func newGraph(objs []*unstructured.Unstructured) *graph {
	g := &graph{byID: map[string]*node{}}
	for _, o := range objs {
		n := &node{obj: o, id: ID(o)}
		if _, dup := g.byID[n.id]; dup {
			continue
		}
		g.byID[n.id] = n
		g.nodes = append(g.nodes, n)
	}
	for _, n := range g.nodes {
		for _, ref := range n.obj.GetOwnerReferences() {
			if owner := g.owner(n, ref); owner != nil {
				owner.dependents = append(owner.dependents, n)
			}
		}
	}
	return g
}

// owner finds the object an ownerReference points at: same namespace, kind and name, and
// the same UID when both are known (files often carry no UIDs; the collector's isDangling
// compares UIDs).
func (g *graph) owner(n *node, ref metav1.OwnerReference) *node {
	id := ref.Kind + "/" + ref.Name
	if ns := n.obj.GetNamespace(); ns != "" {
		id = ref.Kind + "/" + ns + "/" + ref.Name
	}
	o := g.byID[id]
	if o == nil || (ref.UID != "" && o.obj.GetUID() != "" && ref.UID != o.obj.GetUID()) {
		return nil
	}
	return o
}

func (g *graph) step(order int, n *node, action, reason string) {
	g.steps = append(g.steps, Step{Order: order, Object: n.id, Action: action, Reason: reason})
}

// otherFinalizers are n's finalizers that neither the API server nor the collector
// removes on its own.
func otherFinalizers(n *node) []string {
	var out []string
	for _, f := range n.obj.GetFinalizers() {
		if f != finalizerOrphan && f != finalizerForeground && f != finalizerPVCProtection {
			out = append(out, f)
		}
	}
	return out
}

// Delete predicts the delete request of target (Kind/namespace/name, as ID) with
// propagation (Background, Foreground or Orphan) over objs, the namespace's objects.
func Delete(objs []*unstructured.Unstructured, target, propagation string) (*Plan, error) {
	switch propagation {
	case Background, Foreground, Orphan:
	default:
		return nil, fmt.Errorf("--cascade %s: want background, foreground or orphan", propagation)
	}
	objs, retained, assumed, err := claimsOf(objs)
	if err != nil {
		return nil, err
	}
	g := newGraph(objs)
	t := g.byID[target]
	if t == nil {
		return nil, fmt.Errorf("%s: not found", target)
	}
	if t.obj.GetDeletionTimestamp() != nil {
		return nil, fmt.Errorf("%s: already being deleted (deletionTimestamp %s)", target, t.obj.GetDeletionTimestamp().UTC().Format("2006-01-02T15:04:05Z"))
	}
	switch propagation {
	case Background:
		g.deleteBackground(t, 1, "the delete request")
	case Foreground:
		g.deleteForeground(t, "the delete request")
	case Orphan:
		g.deleteOrphan(t)
	}
	g.recreate()
	for _, id := range retained[target] {
		if n := g.byID[id]; n != nil && !n.deleting {
			g.step(t.order, n, ActionKept, "persistentVolumeClaimRetentionPolicy.whenDeleted is Retain")
		}
	}
	p := g.plan(target, propagation)
	for _, s := range p.Steps {
		if a, ok := assumed[s.Object]; ok {
			p.Assumptions = append(p.Assumptions, a)
			delete(assumed, s.Object)
		}
	}
	return p, nil
}

// deleteBackground mirrors a delete with propagationPolicy Background: the API server
// removes the object at once (unless another finalizer holds it), then the collector's
// attemptToDeleteItem visits each dependent, whose owner is now dangling.
func (g *graph) deleteBackground(n *node, order int, why string) {
	n.deleting = true
	if fs := otherFinalizers(n); len(fs) > 0 {
		n.waiting, n.order = true, order
		g.step(order, n, ActionWaits, fmt.Sprintf("%s; finalizer %s holds it, and its dependents stay until it is gone", why, strings.Join(fs, ", ")))
		return
	}
	n.gone, n.order = true, order
	if hasFinalizer(n, finalizerPVCProtection) {
		why += "; " + finalizerPVCProtection + " lets it go once no pod uses it"
	}
	g.step(order, n, ActionDeleted, why)
	for _, d := range n.dependents {
		g.attemptToDelete(d, n, order+1)
	}
}

// attemptToDelete mirrors GarbageCollector.attemptToDeleteItem for dependent d once its
// owner has gone or is deleting its dependents: with another owner still there (solid),
// only the references to the absent or waiting owners are removed; otherwise d is deleted,
// in the foreground when an owner waits for it and d has dependents of its own, else by
// the policy its finalizers ask for, background by default.
func (g *graph) attemptToDelete(d, owner *node, order int) {
	if d.deleting {
		return
	}
	waiting := false
	for _, ref := range d.obj.GetOwnerReferences() {
		o := g.owner(d, ref)
		switch {
		case o == nil || o.gone:
		case o.foreground:
			waiting = true
		default:
			// A solid owner: one that exists and is not deleting its dependents.
			g.step(order, d, ActionRefRemoved, fmt.Sprintf("its reference to %s is removed; %s still owns it", owner.id, o.id))
			return
		}
	}
	switch {
	case waiting && len(d.dependents) > 0:
		g.deleteForeground(d, "owner "+owner.id+" waits for its dependents (foreground)")
	case hasFinalizer(d, finalizerOrphan):
		g.deleteOrphanAt(d, order, "owner "+owner.id+" is gone; its own orphan finalizer")
	case hasFinalizer(d, finalizerForeground):
		g.deleteForeground(d, "owner "+owner.id+" is gone; its own foregroundDeletion finalizer")
	default:
		why := "owner " + owner.id + " is gone"
		if waiting {
			why = "owner " + owner.id + " waits for its dependents (foreground)"
		}
		g.deleteBackground(d, order, why)
	}
}

// deleteForeground mirrors a delete with propagationPolicy Foreground: the API server
// sets the foregroundDeletion finalizer, the collector deletes every dependent
// (attemptToDeleteItem), and processDeletingDependentsItem removes the finalizer once no
// dependent with blockOwnerDeletion remains.
func (g *graph) deleteForeground(n *node, why string) {
	n.deleting, n.foreground = true, true
	for _, d := range n.dependents {
		g.attemptToDelete(d, n, 1)
	}
	order, blockedBy := 1, []string{}
	for _, d := range n.dependents {
		if !d.deleting || !blocks(d, n, g) {
			continue
		}
		if !d.gone {
			blockedBy = append(blockedBy, d.id)
			continue
		}
		order = max(order, d.order+1)
	}
	if len(blockedBy) > 0 {
		n.waiting, n.order = true, order
		g.step(order, n, ActionWaits, fmt.Sprintf("%s; foregroundDeletion waits for %s (blockOwnerDeletion)", why, strings.Join(blockedBy, ", ")))
		return
	}
	if fs := otherFinalizers(n); len(fs) > 0 {
		n.waiting, n.order = true, order
		g.step(order, n, ActionWaits, fmt.Sprintf("%s; its dependents are gone, finalizer %s holds it", why, strings.Join(fs, ", ")))
		return
	}
	n.gone, n.order = true, order
	g.step(order, n, ActionDeleted, why+"; after its blocking dependents")
}

// blocks reports whether dependent d's reference to owner has blockOwnerDeletion.
func blocks(d, owner *node, g *graph) bool {
	for _, ref := range d.obj.GetOwnerReferences() {
		if g.owner(d, ref) == owner && ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
			return true
		}
	}
	return false
}

// deleteOrphan mirrors a delete with propagationPolicy Orphan: the API server sets the
// orphan finalizer and the collector's orphanDependents removes the owner's references
// from every dependent before removing the finalizer.
func (g *graph) deleteOrphan(n *node) { g.deleteOrphanAt(n, 1, "the delete request") }

func (g *graph) deleteOrphanAt(n *node, order int, why string) {
	n.deleting = true
	for _, d := range n.dependents {
		g.step(order, d, ActionOrphaned, "its ownerReference to "+n.id+" is removed (orphan)")
	}
	if fs := otherFinalizers(n); len(fs) > 0 {
		n.waiting, n.order = true, order+1
		g.step(order+1, n, ActionWaits, fmt.Sprintf("%s; finalizer %s holds it", why, strings.Join(fs, ", ")))
		return
	}
	n.gone, n.order = true, order+1
	g.step(order+1, n, ActionDeleted, why+"; after its dependents are orphaned")
}

func hasFinalizer(n *node, f string) bool {
	for _, x := range n.obj.GetFinalizers() {
		if x == f {
			return true
		}
	}
	return false
}

// recreate adds what the owners' controllers put back: a deleted object whose controller
// owner stays is recreated (a ReplicaSet by its Deployment under the same
// pod-template-hash name, a pod by its ReplicaSet, StatefulSet, DaemonSet or Job), and
// pods orphaned from a recreated ReplicaSet are adopted by it (ReplicaSet
// controller's claimPods).
func (g *graph) recreate() {
	last := 0
	for _, s := range g.steps {
		last = max(last, s.Order)
	}
	recreatedRS := map[string]bool{}
	recreatedAt := map[string]int{}
	for _, n := range g.nodes {
		if !n.gone && !n.waiting {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(n.obj)
		if ref == nil {
			continue
		}
		o := g.owner(n, *ref)
		if o == nil || o.deleting {
			continue
		}
		switch {
		case n.obj.GetKind() == "ReplicaSet" && o.obj.GetKind() == "Deployment":
			if !g.newest(n, o) {
				continue // the Deployment creates only its current ReplicaSet
			}
			recreatedRS[n.id] = true
			// The Deployment controller sees the ReplicaSet gone at once and creates it again
			// (about 10ms later in real runs), before the collector marks its old pods for
			// deletion: those steps move one later.
			at := n.order + 1
			if n.gone {
				g.shiftAfter(n.order)
			} else {
				at = last + 1
			}
			recreatedAt[n.id] = at
			g.step(at, n, ActionRecreated, o.id+" creates it again, same name (pod-template-hash), new UID, before its old pods are marked for deletion")
		case n.obj.GetKind() == "Pod" && o.obj.GetKind() == "StatefulSet":
			g.step(last+1, n, ActionRecreated, o.id+" creates it again, same name")
		case n.obj.GetKind() == "Pod":
			g.step(last+1, n, ActionRecreated, o.id+" creates a replacement pod under a new name")
		}
	}
	for _, n := range g.nodes {
		if !recreatedRS[n.id] {
			continue
		}
		adopted := 0
		for _, d := range n.dependents {
			if !d.deleting {
				adopted++
				g.step(recreatedAt[n.id]+1, d, ActionAdopted, "the recreated "+n.id+" adopts it (labels match its selector)")
			}
		}
		// The old pods still name the old UID as their controller: the recreated
		// ReplicaSet cannot adopt them and creates its replicas anew (manageReplicaSet).
		want := specReplicas(n.obj)
		for i := 1; i <= int(want)-adopted; i++ {
			id := fmt.Sprintf("Pod/%s/%s-(new %d)", n.obj.GetNamespace(), n.obj.GetName(), i)
			g.steps = append(g.steps, Step{Order: recreatedAt[n.id] + 1, Object: id, Action: ActionCreated,
				Reason: fmt.Sprintf("the recreated %s creates it (generateName %s-; its %d replicas, %d adopted)", n.id, n.obj.GetName(), want, adopted)})
		}
	}
}

// newest reports whether rs is the Deployment's current ReplicaSet, the one it creates again:
// the highest deployment.kubernetes.io/revision among the Deployment's ReplicaSets (without
// revisions, any).
func (g *graph) newest(rs, d *node) bool {
	rev := func(n *node) int {
		v, _ := strconv.Atoi(n.obj.GetAnnotations()["deployment.kubernetes.io/revision"])
		return v
	}
	for _, other := range d.dependents {
		if other != rs && other.obj.GetKind() == "ReplicaSet" && rev(other) > rev(rs) {
			return false
		}
	}
	return true
}

// shiftAfter moves every step after order one later.
func (g *graph) shiftAfter(order int) {
	for i := range g.steps {
		if g.steps[i].Order > order {
			g.steps[i].Order++
		}
	}
	for _, n := range g.nodes {
		if n.order > order {
			n.order++
		}
	}
}

func (g *graph) plan(target, propagation string) *Plan {
	p := &Plan{Target: target, Propagation: propagation, Steps: g.steps,
		Deleted: []string{}, Orphaned: []string{}, Waiting: []string{}, Kept: []string{}, Recreated: []string{}, Created: []string{}}
	sort.SliceStable(p.Steps, func(i, j int) bool {
		if p.Steps[i].Order != p.Steps[j].Order {
			return p.Steps[i].Order < p.Steps[j].Order
		}
		return p.Steps[i].Object < p.Steps[j].Object
	})
	for _, s := range p.Steps {
		switch s.Action {
		case ActionDeleted:
			p.Deleted = append(p.Deleted, s.Object)
		case ActionOrphaned:
			p.Orphaned = append(p.Orphaned, s.Object)
		case ActionWaits:
			p.Waiting = append(p.Waiting, s.Object)
		case ActionRefRemoved, ActionKept:
			p.Kept = append(p.Kept, s.Object)
		case ActionRecreated:
			p.Recreated = append(p.Recreated, s.Object)
		case ActionCreated:
			p.Created = append(p.Created, s.Object)
		}
	}
	for _, l := range [][]string{p.Deleted, p.Orphaned, p.Waiting, p.Kept, p.Recreated} {
		sort.Strings(l)
	}
	return p
}

// specReplicas is obj's spec.replicas, 1 (the API server's default) when unset. The
// number may be any of the types the loaders decode it to (int64 from JSON, int
// from YAML, float64), so unstructured.NestedInt64 alone would miss a dump's.
func specReplicas(obj *unstructured.Unstructured) int64 {
	v, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "replicas")
	if !found {
		return 1
	}
	switch x := v.(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 1
}
