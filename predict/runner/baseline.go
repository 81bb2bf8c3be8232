package runner

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// baseline is where one object's rollout starts from.
type baseline struct {
	// state is where cur was found: the state files, or the cluster. Nil without cur.
	state *kernel.State
	// cur is the stored object of the state or the cluster, or nil.
	cur runtime.Object
	// stored is what the new object is checked as an update of (the API tier): cur as JSON, or
	// the old manifest's object as kubectl apply would have created it. Nil when the new
	// object is created.
	stored []byte
	// old is the old manifest's object as created (--from, --base-ref), when there is no cur;
	// oldObj is that manifest's document.
	old    []byte
	oldObj *manifest.Object
	// text names the baseline for the plan's header.
	text string
}

// resolveBaseline finds the baseline of a Deployment, StatefulSet or DaemonSet of the new
// manifests, in order: its stored object in the state (--state), then in the cluster (live),
// then its old version in the --from manifests or in its file at --base-ref, made a stored
// object as kubectl apply would create it (apicheck.CreatedByApply). With none, the object is
// created. It is the one baseline lookup of every rollout predictor.
func resolveBaseline(ctx context.Context, req Request, checker *apicheck.Checker, state *kernel.State, oldSet *manifest.Set,
	obj *manifest.Object, namespace, defaultNS string) (baseline, error) {
	b := baseline{text: fmt.Sprintf("none: the %s is created", obj.Kind)}
	b.state, b.cur = state, storedObject(state, obj.Kind, namespace, obj.Name)
	if b.cur == nil && req.Cluster != nil {
		fetched, err := req.Cluster.ReadState(ctx, kernel.Kind(obj.Kind), namespace, obj.Name)
		if err != nil {
			return baseline{}, err
		}
		b.state, b.cur = fetched, storedObject(fetched, obj.Kind, namespace, obj.Name)
	}
	switch {
	case b.cur != nil:
		js, err := storedJSON(b.cur)
		if err != nil {
			return baseline{}, fmt.Errorf("%s %s/%s: encode the current state: %w", obj.Kind, namespace, obj.Name, err)
		}
		b.stored, b.text = js, b.state.Source
	case oldSet != nil || req.BaseRef != "":
		oldObj, where, err := findOld(req, oldSet, obj, namespace, defaultNS)
		if err != nil {
			return baseline{}, err
		}
		b.text = where
		if oldObj != nil {
			js, err := checker.CreatedByApply(ctx, apicheck.Object{APIVersion: oldObj.APIVersion, Kind: oldObj.Kind,
				Namespace: oldObj.Namespace, Name: oldObj.Name, JSON: oldObj.JSON}, apicheck.Options{Namespace: namespace})
			if err != nil {
				return baseline{}, fmt.Errorf("%s: document %d: old %s: %w", oldObj.File, oldObj.Document, oldObj.Ref(), err)
			}
			b.stored, b.old, b.oldObj = js, js, oldObj
			b.text += " (assumed fully rolled out and available)"
		}
	}
	if b.cur == nil {
		b.state = state
	}
	if b.cur == nil && b.old == nil && !req.WhatIf.Empty() {
		// A what-if (--image, --replicas, --undo, ...) changes what runs; with nothing running
		// it would quietly predict a creation with the change folded in (issue 33).
		return baseline{}, fmt.Errorf("%s %s/%s: a change such as --image or --replicas needs what runs now, and there is no baseline "+
			"(the %s would be created): give --from OLD, --state DUMP, --base-ref REF or --live; to predict the creation, "+
			"put the change in the manifest and leave the flag out", obj.Kind, namespace, obj.Name, obj.Kind)
	}
	return b, nil
}

// storedObject is the kind namespace/name of st, or nil.
func storedObject(st *kernel.State, kind, namespace, name string) runtime.Object {
	if st == nil {
		return nil
	}
	switch kind {
	case "Deployment":
		if o := st.Deployment(namespace, name); o != nil {
			return o
		}
	case "StatefulSet":
		if o := st.StatefulSet(namespace, name); o != nil {
			return o
		}
	case "DaemonSet":
		if o := st.DaemonSet(namespace, name); o != nil {
			return o
		}
	}
	return nil
}
