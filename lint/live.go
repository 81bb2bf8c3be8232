package lint

import (
	"context"
	"fmt"
	"sync"

	"github.com/kubectl-workload/kubectl-workload/internal/admissionpolicy"
	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// Baseline is what a run checks besides its files: objects that already
// exist, in a cluster (lint --live, --against-live) or at a git revision
// (lint --base-ref). The caller fetches them; lint does no I/O for them.
//
// Objects that exist are updated, not created, when applied: the API tier
// then runs the API server's update path (apicheck.CheckUpdate), which is
// where immutable fields are enforced.
type Baseline struct {
	// Objects are linted like the files' objects (lint --live): each is a
	// manifest.Object whose File is a synthetic name (cluster://...). They
	// were accepted by the API server and hold what it filled in (a Job's
	// generated selector), which its create path would refuse, so the API
	// tier checks each as a no-op update of itself, as the server would
	// validate the object on its next write.
	Objects []*manifest.Object
	// Previous returns the stored object that a file's object would replace
	// (its live counterpart; or its version at a git ref made a stored
	// object by apicheck.CreatedByApply), as JSON, or nil when the object
	// would be created. ref is the object with its namespace resolved.
	// When an object has a previous version, the API tier checks what
	// kubectl apply would make of it (apicheck.Applied) as an update of that
	// version. Previous is called from several goroutines at once.
	Previous func(obj *manifest.Object, ref ObjectRef) []byte
	// Context are objects that only feed the cross-resource rules (the
	// cluster's workloads, Services, PodDisruptionBudgets and HPAs around
	// the files' objects): nothing is reported about them, only about the
	// linted objects they affect. A context object with the kind, namespace
	// and name of a linted object is left out: the linted version replaces
	// it.
	Context []*manifest.Object
	// Scope names what lint --live read ("context \"prod\", namespace
	// \"shop\""), for the message when it found nothing.
	Scope string
	// NamespaceLabels are the labels of the cluster's Namespaces, by name
	// (lint reads the Pod Security ones, pod-security.kubernetes.io/*): a
	// namespace the input does not hold applies them to its pods as an
	// input Namespace's labels would. A Namespace of the input replaces
	// the cluster's.
	NamespaceLabels map[string]map[string]string
	// CRDs are the cluster's CustomResourceDefinitions, against which the
	// input's custom resources are checked (an input CRD of the same group
	// and kind replaces the cluster's). CRDNote, when set, says why they
	// could not be read (RBAC), for the message on a kind left unchecked.
	CRDs    []*manifest.Object
	CRDNote string
	// Policies are the cluster's ValidatingAdmissionPolicies and bindings,
	// evaluated on the input's objects besides the input's own.
	Policies []*manifest.Object
	// Params are the cluster's objects of the policies' paramKinds, which
	// the bindings' paramRefs select from; an object of the input with the
	// same kind, namespace and name replaces the cluster's.
	Params []admissionpolicy.Param

	once   sync.Once
	stored map[*manifest.Object]bool
}

// isStored reports whether obj is one of b.Objects.
func (b *Baseline) isStored(obj *manifest.Object) bool {
	b.once.Do(func() {
		b.stored = make(map[*manifest.Object]bool, len(b.Objects))
		for _, o := range b.Objects {
			b.stored[o] = true
		}
	})
	return b.stored[obj]
}

// checkAPI runs the API tier on one object: the create path, or, for an
// object that exists, the update path.
func (l *Linter) checkAPI(ctx context.Context, obj *manifest.Object, ref ObjectRef, opts Options) apicheck.Result {
	o := apicheck.Object{APIVersion: obj.APIVersion, Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name, JSON: obj.JSON}
	// The inventory and the per-object rules read every object as written
	// (rules.Object.Written), the inventory at least its metadata.
	aopts := apicheck.Options{Namespace: opts.Namespace, Written: true}
	b := opts.Baseline
	if b == nil || !apicheck.Validated(obj.APIVersion, obj.Kind) {
		return l.api.Check(ctx, o, aopts)
	}
	if b.isStored(obj) {
		return l.api.CheckUpdate(ctx, o, o, aopts)
	}
	if b.Previous == nil {
		return l.api.Check(ctx, o, aopts)
	}
	prev := b.Previous(obj, ref)
	if prev == nil {
		return l.api.Check(ctx, o, aopts)
	}
	applied, err := apicheck.Applied(prev, o)
	if err != nil {
		return apicheck.Result{Checked: true, Issues: []apicheck.Issue{{Rule: apicheck.RuleInternal,
			Message: fmt.Sprintf("cannot compute what kubectl apply would send: %v", err)}}}
	}
	stored := o
	stored.JSON = prev
	res := l.api.CheckUpdate(ctx, stored, applied, aopts)
	// What was decoded is what kubectl apply would send, not the manifest
	// (CheckUpdate may fall back to Check on it).
	res.Written = nil
	return res
}

// checkBaseline runs the per-object checks on the baseline's objects, in
// parallel, and counts them.
func (l *Linter) checkBaseline(ctx context.Context, opts Options, res *Result, keep *rules.Keep) []*checked {
	b := opts.Baseline
	if b == nil || len(b.Objects) == 0 {
		return nil
	}
	out := make([]*checked, len(b.Objects))
	if stopped := parallel(ctx, len(b.Objects), func(i int) {
		out[i] = l.checkObject(ctx, b.Objects[i], opts, keep)
	}); stopped >= 0 {
		res.Errors = append(res.Errors, fmt.Errorf("lint stopped before %s: %w", b.Objects[stopped].File, ctx.Err()))
	}
	kept := out[:0]
	for _, c := range out {
		if c != nil {
			kept = append(kept, c)
		}
	}
	res.Objects += len(kept)
	return kept
}

// contextInputs returns the baseline's context objects as inputs to the
// inventory, leaving out those a linted object replaces.
func (b *Baseline) contextInputs(linted []*checked) []rules.Object {
	if b == nil || len(b.Context) == 0 {
		return nil
	}
	type key struct{ kind, ns, name string }
	seen := make(map[key]bool, len(linted))
	for _, c := range linted {
		seen[key{c.ref.Kind, c.ref.Namespace, c.ref.Name}] = true
	}
	var out []rules.Object
	for _, o := range b.Context {
		if seen[key{o.Kind, o.Namespace, o.Name}] {
			continue
		}
		out = append(out, rules.Object{JSON: o.JSON, Namespace: o.Namespace})
	}
	return out
}
