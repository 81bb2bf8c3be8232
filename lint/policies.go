package lint

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-workload/kubectl-workload/internal/admissionpolicy"
	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// This file evaluates the ValidatingAdmissionPolicies and their bindings of
// the input, of --policies-from (Options.PolicyPaths) and of the cluster
// (Baseline.Policies) on every object of the input, with the API server's
// own admission code (internal/admissionpolicy). A run without a binding
// pays nothing: the files are read again only when one is in sight.

// policyObjects reads the policies, bindings, Namespaces and possible
// params of a set of objects into ps.
func addPolicyObjects(ps *admissionpolicy.Set, objs []*manifest.Object, res *Result) {
	for _, obj := range objs {
		if admissionpolicy.IsPolicy(obj.APIVersion, obj.Kind) {
			if err := ps.AddPolicy(obj.JSON, obj.Kind, obj.File); err != nil {
				res.Errors = append(res.Errors, err)
			}
		}
	}
}

// checkPolicies runs the policies on every object of the input that the
// API tier does not reject (the server runs validating admission after
// validation). sets are the input's files, read again; perFile their
// checked objects, in the same order; baseline the checked objects of
// opts.Baseline.Objects (lint --live).
func (l *Linter) checkPolicies(ctx context.Context, inputs []manifest.Input, perFile [][]*checked, all, baseline []*checked, crds *apicheck.CRDs, opts Options, res *Result) {
	ps := admissionpolicy.NewSet()
	if opts.Baseline != nil {
		addPolicyObjects(ps, opts.Baseline.Policies, res)
	}
	var policySet *manifest.Set
	if len(opts.PolicyPaths) > 0 {
		policySet = manifest.Load(opts.PolicyPaths, nil)
		for _, p := range policySet.Problems {
			res.Errors = append(res.Errors, fmt.Errorf("--policies-from: %s", p.Message))
		}
		addPolicyObjects(ps, policySet.Objects, res)
	}
	var kept []*manifest.Object
	for _, c := range all {
		if c.get().custom != nil {
			kept = append(kept, c.get().custom)
		}
	}
	addPolicyObjects(ps, kept, res)
	if ps.Empty() {
		return
	}
	// The files again: every object is a request, a Namespace gives its
	// labels, and any object of a policy's paramKind may be a param.
	sets := make([]*manifest.Set, len(inputs))
	parallel(ctx, len(inputs), func(i int) {
		if perFile[i] != nil {
			sets[i] = inputs[i].Load()
		}
	})
	paramKinds := ps.ParamKinds()
	if opts.Baseline != nil {
		for name, labels := range opts.Baseline.NamespaceLabels {
			ps.AddNamespace(name, labels)
		}
		for _, p := range opts.Baseline.Params {
			ps.AddParam(p)
		}
	}
	// The files of --policies-from may hold params and Namespaces too; the
	// input's come after them, and replace them.
	for _, set := range append([]*manifest.Set{policySet}, sets...) {
		if set == nil {
			continue
		}
		for _, obj := range set.Objects {
			if obj.APIVersion == "v1" && obj.Kind == "Namespace" {
				u := &unstructured.Unstructured{}
				if err := u.UnmarshalJSON(obj.JSON); err == nil {
					ps.AddNamespace(u.GetName(), u.GetLabels())
				}
			}
			for _, pk := range paramKinds {
				if obj.APIVersion == pk.GroupVersion().String() && obj.Kind == pk.Kind {
					if t, ok := crds.AdmissionTarget(ctx, apiObject(obj), nil, apicheck.Options{Namespace: opts.Namespace}); ok {
						ps.AddParam(admissionpolicy.Param{Object: t.Object, Resource: t.Resource, Namespaced: t.Namespace != ""})
					}
				}
			}
		}
	}
	for i, set := range sets {
		if set == nil || len(set.Objects) != len(perFile[i]) {
			continue
		}
		parallel(ctx, len(set.Objects), func(j int) {
			l.admit(ctx, ps, crds, set.Objects[j], perFile[i][j], opts)
		})
	}
	// The cluster's objects (lint --live), each as the no-op update of
	// itself that its next write would be, as the API tier checks them.
	if b := opts.Baseline; b != nil && len(baseline) > 0 {
		type place struct {
			file     string
			document int
		}
		objs := make(map[place]*manifest.Object, len(b.Objects))
		for _, obj := range b.Objects {
			objs[place{obj.File, obj.Document}] = obj
		}
		parallel(ctx, len(baseline), func(i int) {
			if obj := objs[place{baseline[i].file, baseline[i].document}]; obj != nil {
				l.admit(ctx, ps, crds, obj, baseline[i], opts)
			}
		})
	}
}

// admit runs the policies on one object and adds their findings.
func (l *Linter) admit(ctx context.Context, ps *admissionpolicy.Set, crds *apicheck.CRDs, obj *manifest.Object, c *checked, opts Options) {
	for _, f := range c.findings {
		if f.Severity == SeverityError && (len(f.Rule) > 4 && f.Rule[:4] == "api/" || f.Rule == RuleUnparsable) {
			return // the server refuses it before admission
		}
	}
	o := apiObject(obj)
	aopts := apicheck.Options{Namespace: opts.Namespace}
	o, old, err := updateOf(opts.Baseline, obj, c.ref, o)
	if err != nil {
		c.addErr(fmt.Errorf("%s: document %d: %s: %w", c.file, c.document, c.ref, err))
		return
	}
	var versioned runtime.Object
	if old == nil {
		versioned = l.api.Check(ctx, o, aopts).Versioned
	} else {
		versioned = l.api.CheckUpdate(ctx, apicheck.Object{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace,
			Name: o.Name, JSON: old.js}, o, aopts).Versioned
	}
	t, ok := crds.AdmissionTarget(ctx, o, versioned, aopts)
	if !ok {
		return
	}
	req := admissionpolicy.Request{Object: t.Object, Resource: t.Resource, Namespace: t.Namespace}
	if old != nil {
		req.Old = old.obj
	}
	v, err := ps.Admit(ctx, req)
	if err != nil {
		c.addErr(fmt.Errorf("%s: document %d: %s: %w", c.file, c.document, c.ref, err))
		return
	}
	at := func(rule string, sev Severity, msg string) Finding {
		pos, _ := obj.Position("")
		return Finding{Rule: rule, Severity: sev, Message: msg, File: c.file, Document: c.document,
			Line: pos.Line, Column: pos.Column, Object: &c.ref}
	}
	if v.Denied != "" {
		c.findings = append(c.findings, at(admissionpolicy.RuleDeny, SeverityError, v.Denied))
	}
	for _, w := range v.Warnings {
		c.findings = append(c.findings, at(admissionpolicy.RuleWarn, SeverityWarning, w))
	}
	for _, a := range v.Audits {
		c.findings = append(c.findings, at(admissionpolicy.RuleAudit, SeverityInfo,
			"the API server accepts the object and records in its audit log: "+a))
	}
}

// stored is the stored object an update replaces: as JSON, and as the
// object validating admission sees as oldObject.
type stored struct {
	js  []byte
	obj *unstructured.Unstructured
}

// updateOf returns what the API server's admission sees when obj is
// applied: for an object the baseline holds a stored version of
// (Baseline.Previous: --against-live, --base-ref), an UPDATE of that
// version with what kubectl apply would send merged into it
// (apicheck.Applied, AppliedCustom), with the stored object as
// oldObject; for one of the cluster's own objects (--live), the no-op
// UPDATE of itself; otherwise a CREATE of o (old nil).
func updateOf(b *Baseline, obj *manifest.Object, ref ObjectRef, o apicheck.Object) (apicheck.Object, *stored, error) {
	if b == nil {
		return o, nil, nil
	}
	if b.isStored(obj) {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(obj.JSON); err != nil {
			return o, nil, fmt.Errorf("read the stored object: %w", err)
		}
		return o, &stored{js: obj.JSON, obj: u}, nil
	}
	if b.Previous == nil {
		return o, nil, nil
	}
	prev := b.Previous(obj, ref)
	if prev == nil {
		return o, nil, nil
	}
	apply := apicheck.Applied
	if apicheck.CustomResource(o.APIVersion, o.Kind) {
		apply = apicheck.AppliedCustom
	}
	applied, err := apply(prev, o)
	if err != nil {
		return o, nil, fmt.Errorf("cannot compute what kubectl apply would send: %w", err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(prev); err != nil {
		return o, nil, fmt.Errorf("read the stored object: %w", err)
	}
	return applied, &stored{js: prev, obj: u}, nil
}

// apiObject is obj as the API tier takes it.
func apiObject(obj *manifest.Object) apicheck.Object {
	return apicheck.Object{APIVersion: obj.APIVersion, Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name, JSON: obj.JSON}
}
