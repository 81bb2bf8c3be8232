package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unique"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/kubectl-workload/kubectl-workload/internal/slab"
	"github.com/kubectl-workload/kubectl-workload/rules/compiled"
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
//     (PrepareCross), on the few fields of each object they read
//     (Input.Cross).
//
// Which rule is which is read from the parsed modules
// (compiled.ReadsInventory: a rule that imports lib.xref or refers to the
// inventory), not from a list, so a new rule lands on the right side by
// itself; a test checks it against the compiled rules' dependencies.

// classify records, for every built-in rule package, whether it reads the
// inventory (compiled.ReadsInventory, from the parsed modules, so that it
// needs no compile).
func (e *Engine) classify(modules map[string]*ast.Module) {
	e.cross = map[string]bool{}
	for _, r := range e.rules {
		e.cross[r.Package] = compiled.ReadsInventory(r.File, modules[r.File])
	}
	// Which cross-resource packages to evaluate on an object of each kind
	// (Rule.Kinds): a kind's own rules, and those that name no kind.
	byKind := map[string][]*ast.Term{}
	var anyKind []*ast.Term
	for _, r := range e.rules {
		if !e.cross[r.Package] || len(r.Kinds) > 0 {
			continue
		}
		anyKind = append(anyKind, ast.StringTerm(strings.TrimPrefix(r.Package, builtinRoot+".")))
	}
	for _, r := range e.rules {
		if !e.cross[r.Package] {
			continue
		}
		for _, k := range r.Kinds {
			if byKind[k] == nil {
				byKind[k] = append([]*ast.Term{}, anyKind...)
			}
			byKind[k] = append(byKind[k], ast.StringTerm(strings.TrimPrefix(r.Package, builtinRoot+".")))
		}
	}
	e.crossByKind = map[string]*ast.Term{}
	for k, pkgs := range byKind {
		e.crossByKind[k] = ast.SetTerm(pkgs...)
	}
	e.crossAnyKind = ast.SetTerm(anyKind...)
}

// crossPackages is the set of cross-resource packages to evaluate on an
// object of the given kind.
func (e *Engine) crossPackages(kind string) *ast.Term {
	if t, ok := e.crossByKind[kind]; ok {
		return t
	}
	return e.crossAnyKind
}

// crossPackages are the engine's cross-resource packages for kind, without
// the rules the run leaves out.
func (r *Run) crossPackages(kind string) *ast.Term {
	all := r.engine.crossPackages(kind)
	if r.off == nil {
		return all
	}
	if t, ok := r.crossByKind.Load(kind); ok {
		return t.(*ast.Term)
	}
	var kept []*ast.Term
	all.Value.(ast.Set).Foreach(func(pkg *ast.Term) {
		name, _ := pkg.Value.(ast.String)
		if rule, ok := r.engine.byPackage[builtinRoot+"."+string(name)]; !ok || !r.off(rule.ID) {
			kept = append(kept, pkg)
		}
	})
	t := ast.SetTerm(kept...)
	r.crossByKind.Store(kind, t)
	return t
}

// CrossResource reports whether the built-in rule with the given id reads
// the inventory, and so runs in the second pass.
func (e *Engine) CrossResource(id string) bool {
	_ = e.wait()
	r, ok := e.Rule(id)
	return ok && e.cross[r.Package]
}

// crossQuery is the query of the cross-resource rules: over the packages
// that can report on the object's kind, which EvalCross passes in the
// input (rule_packages).
const crossQuery = `out = {pkg: fs | some pkg in input.rule_packages; fs := data.` + builtinRoot + `[pkg].findings}`

// PrepareLocal readies, for one run, the per-object rules and the user
// policies: everything that needs no other object. User policies see the
// object alone, as in conftest. off, when set, names the built-in rules the
// run leaves out (opt-in rules not enabled, rules disabled): they are not
// evaluated at all.
func (e *Engine) PrepareLocal(ctx context.Context, off func(id string) bool) (*Run, error) {
	if err := e.wait(); err != nil {
		return nil, err
	}
	c, err := e.localCompiler()
	if err != nil {
		return nil, err
	}
	store := inmem.NewWithOpts(inmem.OptRoundTripOnWrite(false), inmem.OptReturnASTValuesOnRead(true))
	run := newRun(ctx, e)
	run.off, run.local = off, &localQueries{compiler: c, store: store, kinds: e.localKindsOf(c)}
	if err := run.prepareUser(ctx); err != nil {
		return nil, err
	}
	return run, nil
}

// localQueries are a first-pass run's queries of the built-in rules, one
// per kind, made on first use: each evaluates the per-object rules that can
// report on that kind (kinds.go), but those the run leaves out.
type localQueries struct {
	compiler *ast.Compiler
	store    storage.Store
	// kinds are the packages' kinds (nil for any), by package.
	kinds  map[string]kindSet
	byKind sync.Map // kind -> *kindQuery
}

type kindQuery struct {
	once sync.Once
	// pq is the query; nil when no rule can report on the kind.
	pq  *rego.PreparedEvalQuery
	err error
}

// noKindGate, set by tests only, evaluates every per-object rule on every
// kind.
var noKindGate bool

// localKindsOf derives, from the compiled rules, the kinds each per-object
// built-in rule can report on (kinds.go). It is cached per compiler.
func (e *Engine) localKindsOf(c *ast.Compiler) map[string]kindSet {
	e.kindsOnce.Do(func() {
		a := newKindAnalysis(c)
		e.localKinds = map[string]kindSet{}
		for _, r := range e.rules {
			if !e.cross[r.Package] {
				e.localKinds[r.Package] = a.kindsOf(ast.MustParseRef("data." + r.Package + ".findings"))
			}
		}
	})
	return e.localKinds
}

// query returns the prepared query for objects of kind.
func (lq *localQueries) query(ctx context.Context, r *Run, kind string) (*kindQuery, error) {
	v, _ := lq.byKind.LoadOrStore(kind, &kindQuery{})
	q := v.(*kindQuery)
	q.once.Do(func() {
		var items []string
		for _, rule := range r.engine.rules {
			k, local := lq.kinds[rule.Package]
			if !local || (r.off != nil && r.off(rule.ID)) || (k != nil && !k[kind] && !noKindGate) {
				continue
			}
			short := strings.TrimPrefix(rule.Package, builtinRoot+".")
			items = append(items, strconv.Quote(short)+": data."+rule.Package+".findings")
		}
		if len(items) == 0 {
			return
		}
		sort.Strings(items)
		pq, err := rego.New(
			rego.Query(`out = {`+strings.Join(items, ", ")+`}`),
			rego.Compiler(lq.compiler), rego.Store(lq.store), rego.Capabilities(compiled.Capabilities()),
		).PrepareForEval(ctx)
		if err != nil {
			q.err = fmt.Errorf("prepare built-in rules: %w", err)
			return
		}
		q.pq = &pq
	})
	return q, q.err
}

// PrepareCross readies, for one run, the cross-resource rules against the
// run's inventory, but those off names (see PrepareLocal). User policies are
// not part of it.
func (e *Engine) PrepareCross(ctx context.Context, inv *Inventory, off func(id string) bool) (*Run, error) {
	if err := e.wait(); err != nil {
		return nil, err
	}
	c, err := e.crossCompiler()
	if err != nil {
		return nil, err
	}
	run, err := e.prepare(ctx, c, inv.store(), crossQuery, false)
	if run != nil {
		run.off = off
	}
	return run, err
}

// prepare readies query against store with compiler c, and the user
// policies when users is set.
func (e *Engine) prepare(ctx context.Context, c *ast.Compiler, store storage.Store, query string, users bool) (*Run, error) {
	run := newRun(ctx, e)
	pq, err := rego.New(
		rego.Query(query),
		rego.Compiler(c), rego.Store(store), rego.Capabilities(compiled.Capabilities()),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare built-in rules: %w", err)
	}
	run.builtin = pq
	if users {
		if err := run.prepareUser(ctx); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// store is the inventory as an OPA store of its Rego values, made on first
// use (the store reads them as they are: no conversion).
func (inv *Inventory) store() storage.Store {
	if inv.st == nil {
		inv.st = inmem.NewFromASTObject(ast.NewObject(ast.Item(ast.InternedTerm("kubectl_workload"),
			ast.ObjectTerm(ast.Item(ast.InternedTerm("inventory"), ast.NewTerm(inv.root))))))
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
	cross CrossInput
}

// NewInput converts o for the Rego tier: its JSON (and defaulted JSON) is
// read once here, whatever the number of rules.
func NewInput(o Object) (*Input, error) {
	obj, err := valueFromJSON(o.JSON)
	if err != nil {
		return nil, fmt.Errorf("read object for rules: %w", err)
	}
	read, err := readFields()
	if err != nil {
		return nil, fmt.Errorf("built-in rules: %w", err)
	}
	defaulted := obj
	if o.Defaulted != nil {
		fields := read.defaulted
		if fullDefaulted {
			fields = nil
		}
		if defaulted, err = valueFromJSONKept(o.Defaulted, fields); err != nil {
			return nil, fmt.Errorf("read defaulted object for rules: %w", err)
		}
	}
	facts, err := ast.InterfaceToValue(o.Facts)
	if err != nil {
		return nil, fmt.Errorf("facts for rules: %w", err)
	}
	cross := CrossInput{namespace: o.Namespace, rejected: o.Rejected}
	if o, ok := obj.(ast.Object); ok {
		kind, _ := stringAt(o, "kind")
		cross.kind = unique.Make(kind).Value() // one string per kind, not one per object
	}
	var defaultedJSON *[]byte
	if o.Defaulted != nil {
		defaultedJSON = crossJSON(defaulted, read.crossDefaulted)
	}
	cross.set(crossJSON(obj, crossFields), defaultedJSON, o.Keep.crossSlab())
	return &Input{object: obj, rejected: o.Rejected, value: inputValue(obj, defaulted, o.Namespace, ast.NewTerm(facts)),
		cross: cross}, nil
}

// inputValue is the input document of the built-in rules.
func inputValue(obj, defaulted ast.Value, namespace string, facts *ast.Term) ast.Value {
	return ast.NewObject(
		ast.Item(ast.StringTerm("object"), ast.NewTerm(obj)),
		ast.Item(ast.StringTerm("defaulted"), ast.NewTerm(defaulted)),
		ast.Item(ast.StringTerm("namespace"), ast.StringTerm(namespace)),
		ast.Item(ast.StringTerm("key"), ast.StringTerm(keyOf(obj))),
		ast.Item(ast.StringTerm("facts"), facts),
	)
}

// crossFields are the fields of an object that the cross-resource rules
// read of the object they run on; the rest of the object is left out of
// their input (see CrossInput). Each level names the keys kept, with their
// own fields, or nil to keep a key's whole value.
var crossFields = map[string]any{
	"apiVersion": nil, "kind": nil, "metadata": map[string]any{
		"name": nil, "generateName": nil, "namespace": nil, "labels": nil, "ownerReferences": nil,
	}, "spec": map[string]any{
		"selector": nil, "replicas": nil, "type": nil, "scaleTargetRef": nil, "serviceName": nil, "manualSelector": nil,
		"minAvailable": nil, "maxUnavailable": nil, "parallelism": nil, "completions": nil,
		"clusterIP": nil, "clusterIPs": nil, "minReplicas": nil, "maxReplicas": nil, "strategy": nil,
		"podSelector": nil, "rules": nil, "defaultBackend": nil, "ports": nil,
		"template": map[string]any{"metadata": map[string]any{"labels": nil}},
	},
}

// fullDefaulted keeps the whole defaulted object in input.defaulted; for
// tests only.
var fullDefaulted = false

// crossJSON is v reduced to fields, as JSON: a few hundred bytes
// where the Rego value of even that part would take kilobytes. The buffer
// is jsonBuf's: put it back when done with it.
func crossJSON(v ast.Value, fields map[string]any) *[]byte {
	buf := jsonBuf.Get().(*[]byte)
	*buf = appendKept((*buf)[:0], v, fields)
	return buf
}

// jsonBuf holds scratch buffers for JSON that is copied elsewhere once
// written (crossJSON, Summarize).
var jsonBuf = sync.Pool{New: func() any { return new([]byte) }}

// appendKept appends v as JSON, with only the given fields where v is an
// object (all of it when fields is nil).
func appendKept(b []byte, v ast.Value, fields map[string]any) []byte {
	switch t := v.(type) {
	case ast.Object:
		b = append(b, '{')
		first := true
		t.Foreach(func(k, val *ast.Term) {
			key, ok := k.Value.(ast.String)
			if !ok {
				return
			}
			var sub map[string]any
			if fields != nil {
				f, keep := fields[string(key)]
				if !keep {
					return
				}
				sub, _ = f.(map[string]any)
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJSONString(b, string(key))
			b = append(b, ':')
			b = appendKept(b, val.Value, sub)
		})
		return append(b, '}')
	case *ast.Array:
		b = append(b, '[')
		for i := range t.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendKept(b, t.Elem(i).Value, nil)
		}
		return append(b, ']')
	case ast.String:
		return appendJSONString(b, string(t))
	case ast.Number:
		return append(b, t...)
	case ast.Boolean:
		return strconv.AppendBool(b, bool(t))
	default: // null; JSON holds nothing else
		return append(b, "null"...)
	}
}

// appendJSONString appends s as a JSON string, as encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			js, _ := json.Marshal(s)
			return append(b, js...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
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
// compact between the passes: the object and its defaulted form reduced to
// the fields those rules read of the object they run on (crossFields:
// kind, name, labels, selector, replica counts, ...; no pod spec, no
// annotations; readFields' crossDefaulted of the defaulted form).
// TestTwoPassesMatchOnePass checks that every cross-resource rule finds the
// same on this input as on the whole object.
type CrossInput struct {
	// json is the object's JSON, then its defaulted form's from split on;
	// split is -1 for an object the API tier does not decode (the object
	// stands for it). One allocation, with no pointers for the collector
	// to follow, is all a large run keeps of the object for these rules.
	json      []byte
	split     int
	kind      string
	namespace string
	rejected  bool
}

// set stores the object's JSON and its defaulted form's (nil when there is
// none), in s, and puts the buffers back in jsonBuf.
func (ci *CrossInput) set(object, defaulted *[]byte, s *slab.Slab) {
	ci.split = -1
	if defaulted != nil {
		ci.split = len(*object)
		*object = append(*object, *defaulted...)
		jsonBuf.Put(defaulted)
	}
	ci.json = s.Copy(*object)
	jsonBuf.Put(object)
}

// IsZero reports whether ci is the zero CrossInput, which stands for none.
func (ci *CrossInput) IsZero() bool { return ci.json == nil }

// Kind is the object's kind, as written.
func (ci *CrossInput) Kind() string { return ci.kind }

// Cross returns the object's input to the cross-resource rules.
func (in *Input) Cross() CrossInput { return in.cross }

// emptyFacts is the facts of a cross-resource input: facts are per-object,
// and the cross-resource rules do not read them.
var emptyFacts = ast.ObjectTerm()

// EvalCross runs the run's built-in rules on one object's cross-resource
// input.
func (r *Run) EvalCross(ctx context.Context, ci *CrossInput) ([]Finding, error) {
	pkgs := r.crossPackages(ci.kind)
	if pkgs.Value.(ast.Set).Len() == 0 || ci.rejected {
		return nil, nil // no cross-resource rule reports on this kind
	}
	object := ci.json
	if ci.split >= 0 {
		object = ci.json[:ci.split]
	}
	obj, err := valueFromJSON(object)
	if err != nil {
		return nil, fmt.Errorf("read object for rules: %w", err)
	}
	defaulted := obj
	if ci.split >= 0 {
		if defaulted, err = valueFromJSON(ci.json[ci.split:]); err != nil {
			return nil, fmt.Errorf("read defaulted object for rules: %w", err)
		}
	}
	value := inputValue(obj, defaulted, ci.namespace, emptyFacts).(ast.Object)
	value.Insert(ast.StringTerm("rule_packages"), pkgs)
	return r.EvalInput(ctx, &Input{object: obj, rejected: ci.rejected, value: value})
}

// EvalInput runs the run's built-in rules (unless the object is rejected)
// and user policies on one converted object. The caller must not hold the
// engine (Hold): each user policy evaluates alone.
func (r *Run) EvalInput(ctx context.Context, in *Input) ([]Finding, error) {
	var out []Finding
	if !in.rejected {
		pq := &r.builtin
		if r.local != nil {
			q, err := r.local.query(ctx, r, in.cross.kind)
			if err != nil {
				return nil, err
			}
			pq = q.pq // nil: no built-in rule can report on this kind
		}
		if pq != nil {
			release := r.engine.Hold()
			rs, err := pq.Eval(ctx, rego.EvalParsedInput(in.value), rego.EvalExternalCancel(r.cancel))
			release()
			if err != nil {
				return nil, fmt.Errorf("evaluate built-in rules: %w", err)
			}
			out = r.builtinFindings(rs)
		}
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
			// A finding may lower its rule's severity, for a case the rule
			// cannot judge (service/no-matching-workload on a label an
			// operator sets at run time); it never raises it.
			if f.Severity != SeverityInfo {
				f.Severity = rule.Severity
			}
			f.RuleID = rule.ID
			out = append(out, f)
		}
	}
	return out
}

// ShallowPaths lists the fields of the object as written down to two levels
// (kind, metadata, metadata.labels, spec.selector ...), and the deeper
// fields of deepPaths, in field-path notation: where cross-resource findings
// point. Lint keeps their positions alone once the object is done with.
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
	for _, pattern := range deepPaths {
		out = appendDeep(out, "", o, pattern)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// deepPaths are the fields deeper than two levels where cross-resource
// findings point, "*" standing for every element of a list, "?" for every
// element without a readinessProbe: a Service's ports, an Ingress's backend
// ports, the containers of a pod spec that probes/readiness-missing may
// report, and a pod template's affinity (availability/no-spread).
var deepPaths = func() [][]string {
	var out [][]string
	for _, p := range []string{
		"spec.ports.*.targetPort", "spec.ports.*.port",
		"spec.defaultBackend.service.port", "spec.rules.*.http.paths.*.backend.service.port",
		"spec.containers.?", "spec.initContainers.?",
		"spec.template.spec.containers.?", "spec.template.spec.initContainers.?",
		"spec.template.spec.affinity", // availability/no-spread
	} {
		out = append(out, strings.Split(p, "."))
	}
	return out
}()

// appendDeep appends to out the paths of v that pattern names below parent,
// and each of their ancestors.
func appendDeep(out []string, parent string, v ast.Value, pattern []string) []string {
	if len(pattern) == 0 {
		return out
	}
	switch x := v.(type) {
	case ast.Object:
		if pattern[0] == "*" || pattern[0] == "?" {
			return out
		}
		child := x.Get(ast.InternedTerm(pattern[0]))
		if child == nil {
			return out
		}
		p := appendSegment(parent, pattern[0])
		out = append(out, p)
		return appendDeep(out, p, child.Value, pattern[1:])
	case *ast.Array:
		if pattern[0] != "*" && pattern[0] != "?" {
			return out
		}
		for i := range x.Len() {
			if pattern[0] == "?" {
				if o, ok := x.Elem(i).Value.(ast.Object); ok {
					if probe := o.Get(ast.InternedTerm("readinessProbe")); probe != nil && probe.Value.Compare(ast.Null{}) != 0 {
						continue
					}
				}
			}
			p := parent + "[" + strconv.Itoa(i) + "]"
			out = append(out, p)
			out = appendDeep(out, p, x.Elem(i).Value, pattern[1:])
		}
	}
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

// ReportsAcross reports whether a cross-resource rule can report on an
// object of the given kind: EvalCross on any other finds nothing, so the
// object's cross-resource input need not be kept.
func (e *Engine) ReportsAcross(kind string) bool {
	_ = e.wait()
	return e.crossPackages(kind).Value.(ast.Set).Len() > 0
}

// Evaluates reports whether the engine evaluates the built-in rule with the
// given id on objects of kind, its kind gate aside from whether a run turns
// it off: the kinds derived from a per-object rule's Rego (kinds.go), the
// kinds a cross-resource rule's metadata names.
func (e *Engine) Evaluates(id, kind string) bool {
	if e.wait() != nil {
		return false
	}
	r, ok := e.Rule(id)
	if !ok {
		return false
	}
	if e.cross[r.Package] {
		return e.crossPackages(kind).Value.(ast.Set).Contains(ast.StringTerm(strings.TrimPrefix(r.Package, builtinRoot+".")))
	}
	c, err := e.localCompiler()
	if err != nil {
		return false
	}
	k := e.localKindsOf(c)[r.Package]
	return k == nil || k[kind] || noKindGate
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
