package rules

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// Lint runs the rules in two passes, so that it need not hold every object
// until every object is loaded:
//
//   - per-object rules (those whose evaluation never reads the inventory)
//     and user policies run on each object as soon as it is loaded
//     (PrepareLocal, Run.EvalInput);
//   - cross-resource rules (those that read data.kubectl_workload.inventory,
//     directly or through a helper) run once every object is known
//     (PrepareCross), on a trimmed copy of each object (Input.Cross).
//
// Which rule is which is read from the compiled rules' dependencies
// (dependsOnInventory), not from a list, so a new rule lands on the right
// side by itself.

// inventoryRef is where the inventory is in data.
var inventoryRef = ast.MustParseRef("data.kubectl_workload.inventory")

// classify records, for every built-in rule package, whether it reads the
// inventory.
func (e *Engine) classify() {
	e.cross = map[string]bool{}
	for _, r := range e.rules {
		e.cross[r.Package] = dependsOnInventory(e.compiler, "data."+r.Package)
	}
}

// dependsOnInventory reports whether any rule of package pkg reads
// data.kubectl_workload.inventory, directly or through the rules and
// functions it calls. Refs are followed through the compiled modules, where
// imports are already resolved to full data paths.
func dependsOnInventory(c *ast.Compiler, pkg string) bool {
	seen := map[*ast.Rule]bool{}
	var visit func(r *ast.Rule) bool
	visit = func(r *ast.Rule) bool {
		if seen[r] {
			return false
		}
		seen[r] = true
		found := false
		ast.WalkRefs(r, func(ref ast.Ref) bool {
			if found || len(ref) == 0 || !ref[0].Equal(ast.DefaultRootDocument) {
				return found
			}
			prefix := ref.GroundPrefix()
			if prefix.HasPrefix(inventoryRef) || inventoryRef.HasPrefix(prefix) {
				found = true
				return true
			}
			for _, dep := range c.GetRules(prefix) {
				if visit(dep) {
					found = true
					return true
				}
			}
			return false
		})
		return found
	}
	for _, m := range c.Modules {
		if m.Package.Path.String() != pkg {
			continue
		}
		for _, r := range m.Rules {
			if visit(r) {
				return true
			}
		}
	}
	return false
}

// CrossResource reports whether the built-in rule with the given id reads
// the inventory, and so runs in the second pass.
func (e *Engine) CrossResource(id string) bool {
	_ = e.wait()
	r, ok := e.Rule(id)
	return ok && e.cross[r.Package]
}

// builtinQuery is the query over the built-in rule packages of one side.
func (e *Engine) builtinQuery(cross bool) string {
	var names []string
	for _, r := range e.rules {
		if e.cross[r.Package] == cross {
			names = append(names, fmt.Sprintf("%q", strings.TrimPrefix(r.Package, builtinRoot+".")))
		}
	}
	sort.Strings(names)
	return `out = {pkg: fs | some pkg in {` + strings.Join(names, ", ") + `}; fs := data.` + builtinRoot + `[pkg].findings}`
}

// PrepareLocal readies, for one run, the per-object rules and the user
// policies: everything that needs no other object. User policies see the
// object alone, as in conftest.
func (e *Engine) PrepareLocal(ctx context.Context) (*Run, error) {
	if err := e.wait(); err != nil {
		return nil, err
	}
	store := inmem.NewWithOpts(inmem.OptRoundTripOnWrite(false), inmem.OptReturnASTValuesOnRead(true))
	return e.prepare(ctx, store, e.builtinQuery(false), true)
}

// PrepareCross readies, for one run, the cross-resource rules against the
// run's inventory. User policies are not part of it.
func (e *Engine) PrepareCross(ctx context.Context, inv *Inventory) (*Run, error) {
	if err := e.wait(); err != nil {
		return nil, err
	}
	return e.prepare(ctx, inv.store(), e.builtinQuery(true), false)
}

func (e *Engine) prepare(ctx context.Context, store storage.Store, query string, users bool) (*Run, error) {
	if err := e.wait(); err != nil {
		return nil, err
	}
	run := &Run{engine: e}
	pq, err := rego.New(
		rego.Query(query),
		rego.Compiler(e.compiler), rego.Store(store), rego.Capabilities(capabilities()),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare built-in rules: %w", err)
	}
	run.builtin = pq
	if users {
		if err := run.prepareUser(ctx, store); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// store is the inventory as an OPA store holding AST values, converted
// once (a store of plain Go values converts what it reads on every read).
// It is made on first use, and the plain values are then let go.
func (inv *Inventory) store() storage.Store {
	if inv.st == nil {
		inv.st = inmem.NewFromObjectWithOpts(map[string]any{"kubectl_workload": map[string]any{"inventory": inv.data}},
			inmem.OptRoundTripOnWrite(false), inmem.OptReturnASTValuesOnRead(true))
		inv.data = nil
	}
	return inv.st
}

// Input is one object converted once for the Rego tier.
type Input struct {
	// object is the object as written; value is the whole input of the
	// built-in rules (object, defaulted, namespace, key, facts).
	object, value ast.Value
	rejected      bool
	// cross is the object's input to the cross-resource rules.
	cross *CrossInput
}

// NewInput converts o for the Rego tier: its JSON (and defaulted JSON) is
// read once here, whatever the number of rules.
func NewInput(o Object) (*Input, error) {
	obj, objCuts, err := valueFromJSON(o.JSON)
	if err != nil {
		return nil, fmt.Errorf("read object for rules: %w", err)
	}
	defaulted := obj
	cross := &CrossInput{object: cutRanges(o.JSON, objCuts), namespace: o.Namespace, rejected: o.Rejected}
	if o.Defaulted != nil {
		var defCuts [][2]int
		if defaulted, defCuts, err = valueFromJSON(o.Defaulted); err != nil {
			return nil, fmt.Errorf("read defaulted object for rules: %w", err)
		}
		cross.defaulted = cutRanges(o.Defaulted, defCuts)
	}
	facts, err := ast.InterfaceToValue(o.Facts)
	if err != nil {
		return nil, fmt.Errorf("facts for rules: %w", err)
	}
	return &Input{object: obj, rejected: o.Rejected, cross: cross, value: ast.NewObject(
		ast.Item(ast.StringTerm("object"), ast.NewTerm(obj)),
		ast.Item(ast.StringTerm("defaulted"), ast.NewTerm(defaulted)),
		ast.Item(ast.StringTerm("namespace"), ast.StringTerm(o.Namespace)),
		ast.Item(ast.StringTerm("key"), ast.StringTerm(keyOf(obj))),
		ast.Item(ast.StringTerm("facts"), ast.NewTerm(facts)),
	)}, nil
}

// keyOf is the inventory key (Kind/name) of an object, as decoding its kind
// and metadata.name with encoding/json would give it: "" when either is
// there but not a string (or metadata is not a mapping).
func keyOf(obj ast.Value) string {
	o, ok := obj.(ast.Object)
	if !ok {
		return ""
	}
	kind, ok := stringAt(o, "kind")
	if !ok {
		return ""
	}
	name := ""
	if t := o.Get(ast.InternedTerm("metadata")); t != nil {
		switch md := t.Value.(type) {
		case ast.Null:
		case ast.Object:
			if name, ok = stringAt(md, "name"); !ok {
				return ""
			}
		default:
			return ""
		}
	}
	return Key(kind, name)
}

// stringAt reads o[key]: ok is false when it is there but neither a string
// nor null.
func stringAt(o ast.Object, key string) (string, bool) {
	t := o.Get(ast.InternedTerm(key))
	if t == nil {
		return "", true
	}
	switch v := t.Value.(type) {
	case ast.String:
		return string(v), true
	case ast.Null:
		return "", true
	}
	return "", false
}

// Rejected reports whether the API server would refuse the object, so that
// built-in rules leave it alone.
func (in *Input) Rejected() bool { return in.rejected }

// CrossInput is what the cross-resource rules need of one object, kept
// compact between the passes: the object and its defaulted form as JSON
// without their pod specs (the bulk of a workload; no cross-resource rule
// reads them), converted to Rego values only when evaluated. A test checks
// that every cross-resource rule finds the same on the trimmed input as on
// the whole.
type CrossInput struct {
	object, defaulted []byte
	namespace         string
	rejected          bool
}

// Cross returns the object's input to the cross-resource rules: the JSON
// it was read from, with the pod specs cut out.
func (in *Input) Cross() *CrossInput { return in.cross }

// input converts ci to the input of the built-in rules, as NewInput would
// with the trimmed object (and no facts: they are per-object).
func (ci *CrossInput) input() (*Input, error) {
	return NewInput(Object{JSON: ci.object, Defaulted: ci.defaulted, Namespace: ci.namespace, Rejected: ci.rejected})
}

// EvalCross runs the run's built-in rules on one object's cross-resource
// input.
func (r *Run) EvalCross(ctx context.Context, ci *CrossInput) ([]Finding, error) {
	in, err := ci.input()
	if err != nil {
		return nil, err
	}
	return r.EvalInput(ctx, in)
}

// EvalInput runs the run's built-in rules (unless the object is rejected)
// and user policies on one converted object.
func (r *Run) EvalInput(ctx context.Context, in *Input) ([]Finding, error) {
	var out []Finding
	if !in.rejected {
		rs, err := r.builtin.Eval(ctx, rego.EvalParsedInput(in.value))
		if err != nil {
			return nil, fmt.Errorf("evaluate built-in rules: %w", err)
		}
		out = r.builtinFindings(rs)
	}
	if len(r.users) == 0 {
		return out, nil
	}
	found, err := r.evalUser(ctx, in.object)
	return append(out, found...), err
}

// builtinFindings reads the built-in query's result: findings by package.
func (r *Run) builtinFindings(rs rego.ResultSet) []Finding {
	if len(rs) == 0 {
		return nil
	}
	var out []Finding
	byPkg, _ := rs[0].Bindings["out"].(map[string]any)
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		rule, ok := r.engine.byPackage[builtinRoot+"."+p]
		if !ok {
			continue
		}
		for _, f := range asFindings(byPkg[p]) {
			f.RuleID, f.Severity = rule.ID, rule.Severity
			out = append(out, f)
		}
	}
	return out
}

// ShallowPaths lists the fields of the object as written down to two levels
// (kind, metadata, metadata.labels, spec.selector ...), in field-path
// notation: where cross-resource findings point. Lint keeps their positions
// alone once the object is done with.
func (in *Input) ShallowPaths() []string {
	o, ok := in.object.(ast.Object)
	if !ok {
		return nil
	}
	var out []string
	o.Foreach(func(k, v *ast.Term) {
		key, ok := k.Value.(ast.String)
		if !ok {
			return
		}
		parent := appendSegment("", string(key))
		out = append(out, parent)
		if child, ok := v.Value.(ast.Object); ok {
			child.Foreach(func(k2, _ *ast.Term) {
				if key2, ok := k2.Value.(ast.String); ok {
					out = append(out, appendSegment(parent, string(key2)))
				}
			})
		}
	})
	sort.Strings(out)
	return out
}

// appendSegment extends a field path by a key: .key for an identifier,
// [key] otherwise, as the API server writes paths.
func appendSegment(parent, key string) string {
	ident := key != ""
	for i, r := range key {
		if !(r == '_' || r == '$' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || (i > 0 && '0' <= r && r <= '9')) {
			ident = false
			break
		}
	}
	switch {
	case !ident:
		return parent + "[" + key + "]"
	case parent == "":
		return key
	default:
		return parent + "." + key
	}
}

// HasCrossResource reports whether any built-in rule reads the inventory.
func (e *Engine) HasCrossResource() bool {
	_ = e.wait()
	for _, c := range e.cross {
		if c {
			return true
		}
	}
	return false
}
