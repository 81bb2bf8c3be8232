package rules

import (
	"slices"
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Which kinds can a per-object rule report on? The first pass evaluates on
// each object only the rules that can report on its kind: a ServiceAccount
// or a ConfigMap then costs no Rego at all, where every rule used to be
// evaluated (and fail) on it, a fifth of the Rego time of a repository's
// run. The kinds are derived from the compiled rules themselves (kindsOf),
// never declared, so that a rule cannot be skipped on a kind it reports on:
//
// A rule body succeeds only if each of its expressions does. An expression
// that is not negated, has no with modifier and is not an every fails when
// any reference it evaluates is undefined (references inside a
// comprehension aside: a comprehension is defined even when its body never
// succeeds). So a body can only succeed on the kinds that each such
// expression allows, and an expression restricts the kinds when it
//
//   - compares input.object.kind with a string (==, =), or tests it for
//     membership in a set or array of strings (in);
//   - refers to a complete rule, without a default, at or below its path:
//     that rule must be defined, which its bodies (and else branches) allow
//     on their kinds only;
//   - looks up a key in, or iterates over (some x in), a partial rule: an
//     empty collection has no member, so one of its bodies must succeed.
//
// A rule's kinds are the union of its bodies' kinds, and a body's are the
// intersection of its expressions'. Anything else (functions, defaults,
// recursion, data that is not a rule) allows every kind. kindsOf errs only
// towards every kind, and TestKindGateLosesNothing compares a run's
// findings with and without the gate on every fixture and corpus.

// kindSet is the kinds a rule can report on; nil means any kind.
type kindSet map[string]bool

func (k kindSet) union(o kindSet) kindSet {
	if k == nil || o == nil {
		return nil
	}
	out := kindSet{}
	for x := range k {
		out[x] = true
	}
	for x := range o {
		out[x] = true
	}
	return out
}

func (k kindSet) intersect(o kindSet) kindSet {
	if k == nil {
		return o
	}
	if o == nil {
		return k
	}
	out := kindSet{}
	for x := range k {
		if o[x] {
			out[x] = true
		}
	}
	return out
}

// sorted lists the kinds, or returns nil for any kind.
func (k kindSet) sorted() []string {
	if k == nil {
		return nil
	}
	out := make([]string, 0, len(k))
	for x := range k {
		out = append(out, x)
	}
	sort.Strings(out)
	return out
}

// inputKind is input.object.kind.
var inputKind = ast.MustParseRef("input.object.kind")

// kindAnalysis derives kinds from the rules a compiler has compiled (refs
// resolved to data paths).
type kindAnalysis struct {
	c        *ast.Compiler
	memo     map[string]kindSet
	visiting map[string]bool
}

func newKindAnalysis(c *ast.Compiler) *kindAnalysis {
	return &kindAnalysis{c: c, memo: map[string]kindSet{}, visiting: map[string]bool{}}
}

// kindsOf returns the kinds on which the rule at path (such as
// data.kubectl_workload.rules.x.findings) can be non-empty; nil for any.
func (a *kindAnalysis) kindsOf(path ast.Ref) kindSet {
	return a.docKinds(path, a.c.GetRulesWithPrefix(path))
}

// docKinds is the union of the kinds of rules, the definitions of the
// document at path; nil (any kind) when one is a function or has a
// default, or on recursion.
func (a *kindAnalysis) docKinds(path ast.Ref, rules []*ast.Rule) kindSet {
	key := path.String()
	if k, ok := a.memo[key]; ok {
		return k
	}
	if len(rules) == 0 || a.visiting[key] {
		return nil
	}
	a.visiting[key] = true
	defer delete(a.visiting, key)
	out := kindSet{}
	for _, r := range rules {
		if r.Default || len(r.Head.Args) > 0 {
			out = nil
			break
		}
		for def := r; def != nil && out != nil; def = def.Else {
			out = out.union(a.bodyKinds(def.Body))
		}
		if out == nil {
			break
		}
	}
	a.memo[key] = out
	return out
}

// bodyKinds is the intersection of the kinds each expression of body allows.
func (a *kindAnalysis) bodyKinds(body ast.Body) kindSet {
	// The compiler binds the references a call reads to generated locals
	// first (__local1__ = input.object.kind; internal.member_2(__local1__,
	// {...})): a call's operands are read through them.
	aliases := map[ast.Var]ast.Ref{}
	for _, expr := range body {
		if expr.Negated || len(expr.With) > 0 || !expr.IsCall() || !expr.Operator().Equal(ast.Equality.Ref()) {
			continue
		}
		args := expr.Operands()
		for i := range 2 {
			v, isVar := args[i].Value.(ast.Var)
			ref, isRef := args[1-i].Value.(ast.Ref)
			if isVar && isRef && v.IsGenerated() {
				aliases[v] = ref
			}
		}
	}
	var out kindSet
	for _, expr := range body {
		if expr.Negated || len(expr.With) > 0 {
			continue
		}
		if _, ok := expr.Terms.(*ast.Every); ok {
			continue
		}
		out = out.intersect(a.exprKinds(expr, aliases))
	}
	return out
}

// exprKinds is what one expression allows: the intersection of what its
// kind test and each reference outside comprehensions allow.
func (a *kindAnalysis) exprKinds(expr *ast.Expr, aliases map[ast.Var]ast.Ref) kindSet {
	refOf := func(t *ast.Term) (ast.Ref, bool) {
		switch v := t.Value.(type) {
		case ast.Ref:
			return v, true
		case ast.Var:
			ref, ok := aliases[v]
			return ref, ok
		}
		return nil, false
	}
	var out kindSet
	if expr.IsCall() {
		op := expr.Operator()
		args := expr.Operands()
		switch {
		case (op.Equal(ast.Equal.Ref()) || op.Equal(ast.Equality.Ref())) && len(args) == 2:
			for i := range 2 {
				if ref, ok := refOf(args[i]); ok && ref.Equal(inputKind) {
					if s, ok := args[1-i].Value.(ast.String); ok {
						out = out.intersect(kindSet{string(s): true})
					}
				}
			}
		case op.Equal(ast.Member.Ref()) && len(args) == 2:
			if ref, ok := refOf(args[0]); ok && ref.Equal(inputKind) {
				if set := stringSet(args[1]); set != nil {
					out = out.intersect(set)
				}
			}
		}
		if (op.Equal(ast.Member.Ref()) || op.Equal(ast.MemberWithKey.Ref())) && len(args) >= 2 {
			// some x in R, some k, x in R: R must have a member.
			if ref, ok := refOf(args[len(args)-1]); ok {
				out = out.intersect(a.collectionKinds(ref))
			}
		}
	}
	visitOutsideClosures(expr, func(ref ast.Ref) {
		out = out.intersect(a.refKinds(ref))
	})
	return out
}

// refKinds is what a reference that must be defined allows: the kinds of
// the complete rule it is at or below, or of the partial rule it looks up a
// key in.
func (a *kindAnalysis) refKinds(ref ast.Ref) kindSet {
	if len(ref) == 0 || !ref[0].Equal(ast.DefaultRootDocument) {
		return nil
	}
	for i := 2; i <= len(ref); i++ {
		prefix := ref[:i]
		if !prefix.IsGround() {
			return nil
		}
		rules := a.c.GetRulesExact(prefix)
		if len(rules) == 0 {
			continue
		}
		if allComplete(rules, prefix) || i < len(ref) {
			// A complete rule must be defined; a partial one must hold
			// the key looked up.
			return a.docKinds(prefix, rules)
		}
		return nil // the partial rule itself: defined, if only as empty
	}
	return nil
}

// collectionKinds is what iterating over ref (some x in ref) allows: ref
// must be a non-empty partial rule, or a defined complete one.
func (a *kindAnalysis) collectionKinds(ref ast.Ref) kindSet {
	if len(ref) < 2 || !ref[0].Equal(ast.DefaultRootDocument) || !ref.IsGround() {
		return nil
	}
	if rules := a.c.GetRulesExact(ref); len(rules) > 0 {
		return a.docKinds(ref, rules)
	}
	// Rules with references in their heads (p[["a"]] := v) sit below the
	// path: each must be below it, within one package above it (a package
	// itself holds its partial rules, defined even when empty).
	rules := a.c.GetRulesWithPrefix(ref)
	if len(rules) == 0 || slices.ContainsFunc(rules, func(r *ast.Rule) bool {
		return r.Module == nil || len(r.Head.Args) > 0 || len(r.Module.Package.Path) >= len(ref) || len(r.Ref()) <= len(ref)
	}) {
		return nil
	}
	return a.docKinds(ref, rules)
}

// allComplete reports whether rules define path as one value each (no
// partial set or object, no key in the head).
func allComplete(rules []*ast.Rule, path ast.Ref) bool {
	for _, r := range rules {
		if r.Head.RuleKind() != ast.SingleValue || r.Head.Key != nil || len(r.Head.Args) > 0 || r.Module == nil || len(r.Ref().GroundPrefix()) != len(path) {
			return false
		}
	}
	return true
}

// stringSet is a constant set or array of strings as a kindSet, or nil.
func stringSet(t *ast.Term) kindSet {
	out := kindSet{}
	ok := true
	add := func(x *ast.Term) {
		if s, isStr := x.Value.(ast.String); isStr {
			out[string(s)] = true
		} else {
			ok = false
		}
	}
	switch v := t.Value.(type) {
	case ast.Set:
		v.Foreach(add)
	case *ast.Array:
		v.Foreach(add)
	default:
		return nil
	}
	if !ok {
		return nil
	}
	return out
}

// visitOutsideClosures calls fn with each reference expr evaluates itself:
// not those inside comprehensions, which are defined whatever their bodies
// do.
func visitOutsideClosures(expr *ast.Expr, fn func(ast.Ref)) {
	vis := ast.NewGenericVisitor(func(x any) bool {
		switch v := x.(type) {
		case *ast.ArrayComprehension, *ast.SetComprehension, *ast.ObjectComprehension, *ast.Every:
			return true
		case ast.Ref:
			fn(v)
			return false
		}
		return false
	})
	switch t := expr.Terms.(type) {
	case []*ast.Term:
		for _, term := range t[1:] { // the operator is not evaluated as data
			vis.Walk(term)
		}
	case *ast.Term:
		vis.Walk(t)
	}
}
