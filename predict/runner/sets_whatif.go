package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apps "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// setKind reports whether kind is a StatefulSet or DaemonSet target.
func setKind(kind string) bool { return kind == "StatefulSet" || kind == "DaemonSet" }

// predictSetChange predicts a change (--image, --replicas, --restart, --undo by
// ControllerRevision) of a StatefulSet or DaemonSet of the state, or of the cluster: the
// changed object goes through predictSet as a new manifest over the stored one, as kubectl
// would update it.
func predictSetChange(ctx context.Context, req Request, checker *apicheck.Checker, state *kernel.State, t Target, explicit bool) (Prediction, error) {
	resolved, nsNote, err := resolveNamespace(state, string(t.Kind), t.Namespace, t.Name, explicit)
	if err != nil {
		return Prediction{}, err
	}
	t.Namespace = resolved
	ref := strings.ToLower(string(t.Kind)) + " " + t.Namespace + "/" + t.Name
	lookup := func(st *kernel.State) metav1.Object {
		if st == nil {
			return nil
		}
		if string(t.Kind) == "StatefulSet" {
			if o := st.StatefulSet(t.Namespace, t.Name); o != nil {
				return o
			}
			return nil
		}
		if o := st.DaemonSet(t.Namespace, t.Name); o != nil {
			return o
		}
		return nil
	}
	st := state
	cur := lookup(st)
	if cur == nil && req.Cluster != nil {
		fetched, err := req.Cluster.ReadState(ctx, t.Kind, t.Namespace, t.Name)
		if err != nil {
			return Prediction{}, err
		}
		if fetched == nil {
			return Prediction{}, fmt.Errorf("%s: %s: not found", req.source(), ref)
		}
		st, cur = fetched, lookup(fetched)
	}
	if cur == nil {
		where := req.source()
		if st != nil {
			where = st.Source
		}
		return Prediction{}, fmt.Errorf("%s: not found in %s", ref, where)
	}
	history := st.OwnedRevisions(cur, string(t.Kind))
	var next any
	var notes []string
	switch o := cur.(type) {
	case *apps.StatefulSet:
		c := o.DeepCopy()
		notes, err = req.WhatIf.ApplyToTemplate(ref, c, &c.Spec.Template, &c.Spec.Replicas, history)
		c.Status = apps.StatefulSetStatus{}
		next = c
	case *apps.DaemonSet:
		c := o.DeepCopy()
		notes, err = req.WhatIf.ApplyToTemplate(ref, c, &c.Spec.Template, nil, history)
		c.Status = apps.DaemonSetStatus{}
		next = c
	}
	if err != nil {
		return Prediction{}, err
	}
	js, err := json.Marshal(next)
	if err != nil {
		return Prediction{}, fmt.Errorf("%s: encode the change: %w", ref, err)
	}
	obj := &manifest.Object{Item: -1, APIVersion: "apps/v1", Kind: string(t.Kind), Namespace: t.Namespace, Name: t.Name, JSON: js}
	p := Prediction{Kind: string(t.Kind), Namespace: t.Namespace, Name: t.Name}
	pred, err := predictSet(ctx, req, checker, st, nil, obj, p, t.Namespace)
	if err != nil {
		return Prediction{}, err
	}
	addNote(&pred, nsNote)
	if pred.Plan != nil {
		pred.Plan.Notes = append(pred.Plan.Notes, notes...)
	}
	return pred, nil
}
