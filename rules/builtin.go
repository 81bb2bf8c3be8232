package rules

import (
	"encoding/json"
	"reflect"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// The built-in rule framework. A built-in rule is one BuiltinRule: its
// metadata as data (Meta) and one check, Check for a per-object rule (it
// sees one object: ObjectContext) or Cross for a cross-resource rule (it
// sees one object and the inventory of its namespace: CrossContext).
// The catalogue is objectRules (catalogue_object.go) and crossRules
// (catalogue_cross.go); BuiltinRules lists both, sorted by id. The rules
// that lint's tiers raise have their metadata in catalogue_tier.go.

// BuiltinRule is one built-in rule: its metadata and its check.
type BuiltinRule struct {
	// Meta is the rule's metadata: id, title, severity, description,
	// remediation, kinds (the kinds it reports on; required for a
	// cross-resource rule, which is evaluated only on those), and whether it
	// is off by default (OptIn). Meta.File names its Go source in rules/.
	Meta Rule
	// Check, for a per-object rule, returns its findings on one object.
	Check func(*ObjectContext) []Finding
	// Cross, for a cross-resource rule, returns its findings on one object,
	// given its namespace's inventory.
	Cross func(*CrossContext) []Finding
}

// ObjectContext is what a per-object rule sees of one object.
type ObjectContext struct {
	// Object is the typed object after the API server's decoding and
	// defaulting (apicheck's Result.Versioned): *appsv1.Deployment, ...
	Object runtime.Object
	// JSON is the object as written (as kubectl would send it); Written
	// decodes it.
	JSON []byte
	// Kind, APIVersion and Name are the object's, as written.
	Kind, APIVersion, Name string
	// Namespace is the namespace it would be created in.
	Namespace string
	// Key is Kind/name, its key in the inventory.
	Key string
	// Deployment holds, for a Deployment, the values the controller's own
	// helpers compute (DeploymentFactsOf); nil for other kinds.
	Deployment *DeploymentFacts
	// AsWritten, when set, is what Written returns: the object as written,
	// already decoded (apicheck's Result.Written), of Object's type.
	AsWritten runtime.Object

	written     runtime.Object
	writtenOnce sync.Once
}

// Written returns the object as written, decoded into the type of Object
// without defaulting, so that a field the manifest leaves out is nil or
// zero. It is decoded on first use; nil when it does not decode.
func (c *ObjectContext) Written() runtime.Object {
	c.writtenOnce.Do(func() {
		if c.AsWritten != nil && reflect.TypeOf(c.AsWritten) == reflect.TypeOf(c.Object) {
			c.written = c.AsWritten
			return
		}
		c.written = decodeLike(c.Object, c.JSON)
	})
	return c.written
}

// decodeLike decodes js into a new value of typed's type.
func decodeLike(typed runtime.Object, js []byte) runtime.Object {
	if typed == nil || js == nil {
		return nil
	}
	t := reflect.TypeOf(typed)
	if t.Kind() != reflect.Pointer {
		return nil
	}
	v := reflect.New(t.Elem()).Interface()
	if json.Unmarshal(js, v) != nil {
		return nil
	}
	obj, _ := v.(runtime.Object)
	return obj
}

// CrossContext is what a cross-resource rule sees: the object (as its
// inventory entry, pod specs left out) and its namespace's inventory.
type CrossContext struct {
	Self *Entry
	NS   *Namespace
}

// BuiltinRules is the catalogue, sorted by id.
func BuiltinRules() []BuiltinRule { return builtinCatalogue() }

var builtinCatalogue = sync.OnceValue(func() []BuiltinRule {
	out := make([]BuiltinRule, 0, len(objectRules)+len(crossRules))
	out = append(out, objectRules...)
	out = append(out, crossRules...)
	sort.Slice(out, func(i, j int) bool { return out[i].Meta.ID < out[j].Meta.ID })
	return out
})

// builtinByID indexes the catalogue by id.
var builtinByID = sync.OnceValue(func() map[string]*BuiltinRule {
	m := map[string]*BuiltinRule{}
	rs := builtinCatalogue()
	for i := range rs {
		m[rs[i].Meta.ID] = &rs[i]
	}
	return m
})

// IsBuiltin reports whether id is a built-in rule's.
func IsBuiltin(id string) bool {
	_, ok := builtinByID()[id]
	return ok
}

// Runner evaluates the catalogue in one lint run.
type Runner struct {
	// off names the rules the run leaves out.
	off func(id string) bool
	// object are the per-object rules that run; cross the cross-resource
	// rules that run, by the kinds they report on.
	object []*BuiltinRule
	cross  map[string][]*BuiltinRule
}

// NewRunner readies the built-in rules for one run, without those off names
// (nil: none).
func NewRunner(off func(id string) bool) *Runner {
	r := &Runner{off: off, cross: map[string][]*BuiltinRule{}}
	rs := builtinCatalogue()
	for i := range rs {
		g := &rs[i]
		if off != nil && off(g.Meta.ID) {
			continue
		}
		if g.Check != nil {
			r.object = append(r.object, g)
		}
		if g.Cross != nil {
			for _, k := range g.Meta.Kinds {
				r.cross[k] = append(r.cross[k], g)
			}
		}
	}
	return r
}

// ReportsAcross reports whether a cross-resource rule of the run reports
// on objects of kind.
func (r *Runner) ReportsAcross(kind string) bool { return len(r.cross[kind]) > 0 }

// Eval runs the per-object rules on one object. Kinds outside a rule's
// Meta.Kinds (when it names any) are passed over.
func (r *Runner) Eval(c *ObjectContext) []Finding {
	var out []Finding
	for _, g := range r.object {
		if len(g.Meta.Kinds) > 0 && !contains(g.Meta.Kinds, c.Kind) {
			continue
		}
		out = append(out, ruleFindings(g, g.Check(c))...)
	}
	return out
}

// EvalCross runs the cross-resource rules that report on the entry's
// kind.
func (r *Runner) EvalCross(c *CrossContext) []Finding {
	var out []Finding
	for _, g := range r.cross[c.Self.Kind] {
		out = append(out, ruleFindings(g, g.Cross(c))...)
	}
	return out
}

// ruleFindings stamps a rule's findings with its id and severity (a
// finding may lower it to info, never raise it), sorted by path and message.
func ruleFindings(g *BuiltinRule, fs []Finding) []Finding {
	for i := range fs {
		fs[i].RuleID = g.Meta.ID
		if fs[i].Severity != SeverityInfo {
			fs[i].Severity = g.Meta.Severity
		}
	}
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Path != fs[j].Path {
			return fs[i].Path < fs[j].Path
		}
		return fs[i].Message < fs[j].Message
	})
	return fs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
