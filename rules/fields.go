package rules

import (
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kubectl-workload/kubectl-workload/rules/compiled"
)

// readFields are the fields of input.defaulted that the built-in rules read, derived from the
// rules themselves (readPaths): input.defaulted keeps those (defaulted), and the cross-resource
// rules' input those that the rules reading the inventory read (crossDefaulted). Each level
// names the keys kept, with their own fields, or nil to keep a key's whole value, as
// valueFromJSONKept reads them. A rule that reads a new field is thus given it, with no list
// to edit; TestDefaultedFieldsSuffice compares the findings with the whole defaulted object.
var readFields = sync.OnceValues(func() (fieldSets, error) {
	modules, err := compiled.Parsed()
	if err != nil {
		return fieldSets{}, err
	}
	sets := fieldSets{defaulted: map[string]any{}, crossDefaulted: map[string]any{}}
	var whole, crossWhole bool // a rule reads all of input.defaulted
	for name, m := range modules {
		paths := readPaths(m, "defaulted")
		if len(paths) == 0 {
			continue
		}
		cross := compiled.ReadsInventory(name, m)
		for _, p := range paths {
			if len(p) == 0 || p[0] == wholeValue {
				whole, crossWhole = true, crossWhole || cross
				continue
			}
			addPath(sets.defaulted, p)
			if cross {
				addPath(sets.crossDefaulted, p)
			}
		}
	}
	if whole {
		sets.defaulted = nil // nil keeps the whole value (valueFromJSONKept)
	}
	if crossWhole {
		sets.crossDefaulted = nil
	}
	return sets, nil
})

// fieldSets are derived field trees (see readFields).
type fieldSets struct {
	defaulted, crossDefaulted map[string]any
}

// objectGet is the operator term of a call to object.get.
var objectGet = ast.RefTerm(ast.VarTerm("object"), ast.StringTerm("get"))

// wholeValue marks a path whose whole value is read.
const wholeValue = "\x00"

// readPaths returns the paths below input.<root> that module m reads:
//   - a reference input.<root>.a.b (a path of constant keys; a variable key reads the whole value
//     from there);
//   - object.get(X, "k", _) and object.get(X, ["k", ...], _) where X is such a reference;
//   - the same through an alias: a rule or a variable whose value is such a reference
//     (spec := input.defaulted.spec).
//
// A use of input.<root> (or of an alias) that is none of these, such as passing it to a
// function, reads the whole value from there: the path ends with wholeValue.
func readPaths(m *ast.Module, root string) [][]string {
	aliases := map[ast.Var][]string{}
	// defining are the terms that define an alias (both sides of v := ref): the alias's uses
	// say what is read.
	defining := map[*ast.Term]bool{}
	// base returns the path a term stands for, when it is input.<root>... or an alias.
	base := func(t *ast.Term) ([]string, bool) {
		ref, ok := t.Value.(ast.Ref)
		if !ok {
			if v, ok := t.Value.(ast.Var); ok {
				if p, ok := aliases[v]; ok {
					return p, true
				}
			}
			return nil, false
		}
		var start []string
		rest := ref[1:]
		switch head := ref[0].Value.(type) {
		case ast.Var:
			if head == ast.InputRootDocument.Value.(ast.Var) && len(ref) > 1 && ref[1].Value.Compare(ast.String(root)) == 0 {
				start, rest = []string{}, ref[2:]
			} else if p, ok := aliases[head]; ok {
				start = p
			} else {
				return nil, false
			}
		default:
			return nil, false
		}
		path := append([]string{}, start...)
		for _, k := range rest {
			s, ok := k.Value.(ast.String)
			if !ok {
				return append(path, wholeValue), true
			}
			path = append(path, string(s))
		}
		return path, true
	}
	// Aliases first: rule values and assignments whose right side is such a reference, found
	// until no new one appears (an alias of an alias).
	for changed := true; changed; {
		changed = false
		see := func(name ast.Var, t *ast.Term) {
			if _, known := aliases[name]; known {
				return
			}
			if p, ok := base(t); ok && (len(p) == 0 || p[len(p)-1] != wholeValue) {
				aliases[name], changed = p, true
			}
		}
		for _, r := range m.Rules {
			if r.Head.Value != nil && len(r.Head.Args) == 0 && len(r.Head.Reference) == 1 {
				see(r.Head.Name, r.Head.Value)
				if _, ok := aliases[r.Head.Name]; ok {
					defining[r.Head.Value] = true
				}
			}
		}
		ast.WalkExprs(m, func(e *ast.Expr) bool {
			if (e.IsAssignment() || e.IsEquality()) && len(e.Operands()) == 2 {
				if v, ok := e.Operand(0).Value.(ast.Var); ok {
					see(v, e.Operand(1))
					if _, ok := aliases[v]; ok {
						defining[e.Operand(0)], defining[e.Operand(1)] = true, true
					}
				}
			}
			return false
		})
	}
	var out [][]string
	// object.get calls: their key argument extends the path.
	consumed := map[*ast.Term]bool{}
	ast.WalkTerms(m, func(t *ast.Term) bool {
		call, ok := t.Value.(ast.Call)
		if !ok || len(call) != 4 || !call[0].Equal(objectGet) {
			return false
		}
		p, ok := base(call[1])
		if !ok {
			return false
		}
		consumed[call[1]] = true
		if len(p) > 0 && p[len(p)-1] == wholeValue {
			out = append(out, p)
			return false
		}
		switch key := call[2].Value.(type) {
		case ast.String:
			out = append(out, append(p, string(key)))
		case *ast.Array:
			path := p
			key.Foreach(func(k *ast.Term) {
				if s, ok := k.Value.(ast.String); ok && (len(path) == 0 || path[len(path)-1] != wholeValue) {
					path = append(path, string(s))
				} else {
					path = append(path, wholeValue)
				}
			})
			out = append(out, path)
		default:
			out = append(out, append(p, wholeValue))
		}
		return false
	})
	// Every other use of input.<root> or an alias, in the rules' bodies and values (not in
	// their heads' names).
	other := func(t *ast.Term) bool {
		if consumed[t] || defining[t] {
			return true
		}
		if _, ok := t.Value.(ast.Call); ok {
			return false // its arguments are walked on their own
		}
		p, ok := base(t)
		if !ok {
			return false
		}
		if _, isVar := t.Value.(ast.Var); isVar {
			// An alias used as a value (not as a reference's head): its whole value.
			p = append(append([]string{}, p...), wholeValue)
		}
		if len(p) == 0 {
			p = []string{wholeValue}
		}
		out = append(out, p)
		return true
	}
	for _, r := range m.Rules {
		for ; r != nil; r = r.Else {
			for _, t := range []*ast.Term{r.Head.Value, r.Head.Key} {
				if t != nil {
					ast.WalkTerms(t, other)
				}
			}
			ast.WalkTerms(r.Body, other)
		}
	}
	return out
}

// addPath adds path to the field tree fields: its last key keeps its whole value.
func addPath(fields map[string]any, path []string) {
	if len(path) == 0 || path[0] == wholeValue {
		return
	}
	for i, k := range path {
		last := i == len(path)-1 || path[i+1] == wholeValue
		sub, seen := fields[k]
		if last {
			fields[k] = nil // the whole value
			return
		}
		if seen && sub == nil {
			return // already whole
		}
		next, ok := sub.(map[string]any)
		if !ok {
			next = map[string]any{}
			fields[k] = next
		}
		fields = next
	}
}
