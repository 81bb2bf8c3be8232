package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/kubectl-workload/kubectl-workload/rules/compiled"
)

// Finding is one result of a Rego rule.
type Finding struct {
	// RuleID is the built-in rule's id, or policy/<namespace>/<rule> for a
	// user policy.
	RuleID   string
	Severity string
	Message  string
	// Path is the field the finding is about, in the API server's notation,
	// or "" for the object as a whole.
	Path string
	// Related is, for a cross-resource finding that names a few of many
	// related objects ("and N more"), how many there are in all; 0
	// otherwise. Rules set it as "related_count".
	Related int
}

// Run is the engine prepared for one lint run: its queries are prepared once
// against that run's inventory. Eval is safe for concurrent use.
type Run struct {
	engine  *Engine
	builtin rego.PreparedEvalQuery
	// local, in a first-pass run (PrepareLocal), holds its queries by kind
	// instead of builtin.
	local *localQueries
	// off are the built-in rule ids the run leaves out (Off), and crossByKind
	// the cross-resource packages per kind without them, made on first use.
	off         func(id string) bool
	crossByKind sync.Map // kind -> *ast.Term
	// users are the user policy rules, one query each, and the sandbox
	// they run in (sandbox.go).
	users   []*userQuery
	sandbox *sandbox
	// cancel stops the run's built-in evaluations when the context of its
	// preparation is done (see newRun).
	cancel topdown.Cancel
}

// newRun starts a run of e's rules. Its built-in evaluations share one
// cancellation, fired when ctx is done: without it, OPA starts a goroutine
// per evaluation to watch the context (rego.EvalExternalCancel).
func newRun(ctx context.Context, e *Engine) *Run {
	r := &Run{engine: e, cancel: topdown.NewCancel()}
	context.AfterFunc(ctx, r.cancel.Cancel)
	return r
}

type userKey struct{ namespace, rule string }

// Prepare readies the queries for one run.
func (e *Engine) Prepare(ctx context.Context, inv *Inventory) (*Run, error) {
	if err := e.wait(); err != nil {
		return nil, err
	}
	c, err := e.fullCompiler()
	if err != nil {
		return nil, err
	}
	store := inv.store()
	run := newRun(ctx, e)
	pq, err := rego.New(
		rego.Query(`out = {pkg: fs | fs := data.`+builtinRoot+`[pkg].findings}`),
		rego.Compiler(c), rego.Store(store), rego.Capabilities(compiled.Capabilities()),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare built-in rules: %w", err)
	}
	run.builtin = pq

	if err := run.prepareUser(ctx); err != nil {
		return nil, err
	}
	return run, nil
}

// Eval runs every built-in rule and user policy on one object. Built-in rules
// see input.object (as written), input.defaulted, input.namespace,
// input.key (Kind/name) and input.facts; user policies see the object as
// written, as in conftest.
func (r *Run) Eval(ctx context.Context, o Object) ([]Finding, error) {
	in, err := NewInput(o)
	if err != nil {
		return nil, err
	}
	// User policies run in the sandbox; a policy it stops is an error, and
	// the findings of every other rule are still returned.
	return r.EvalInput(ctx, in)
}

// asFindings reads a rule's results: strings, or objects with "msg" and an
// optional "path" (a string in field-path notation, or an array of
// segments).
func asFindings(v any) []Finding {
	out, _ := readFindings(v, false)
	return out
}

// readFindings is asFindings, and returns apart the results that are neither
// a string nor an object with a string "msg". With strict (user policies),
// those are left out of the findings; without, an object without msg is a
// finding whose message is its JSON.
func readFindings(v any, strict bool) ([]Finding, []any) {
	var items []any
	switch t := v.(type) {
	case []any:
		items = t
	case map[string]any: // a rule returning one object
		items = []any{t}
	case string:
		items = []any{t}
	}
	var out []Finding
	var bad []any
	for _, it := range items {
		switch t := it.(type) {
		case string:
			out = append(out, Finding{Message: t})
		case map[string]any:
			f := Finding{}
			f.Message, _ = t["msg"].(string)
			f.Severity, _ = t["severity"].(string)
			switch n := t["related_count"].(type) {
			case json.Number:
				if i, err := n.Int64(); err == nil && i > 0 {
					f.Related = int(i)
				}
			case float64:
				if n > 0 {
					f.Related = int(n)
				}
			}
			switch p := t["path"].(type) {
			case string:
				f.Path = p
			case []any:
				f.Path = joinPath(p)
			}
			if _, ok := t["msg"].(string); !ok {
				bad = append(bad, it)
				if strict {
					continue
				}
			}
			if f.Message == "" {
				b, _ := json.Marshal(t)
				f.Message = string(b)
			}
			out = append(out, f)
		default:
			bad = append(bad, it)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Message < out[j].Message
	})
	return out, bad
}

// joinPath renders ["spec", "containers", 0, "image"] as spec.containers[0].image.
func joinPath(segs []any) string {
	var b strings.Builder
	for _, s := range segs {
		switch t := s.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(t)
		case json.Number:
			b.WriteString("[" + t.String() + "]")
		case float64:
			fmt.Fprintf(&b, "[%d]", int(t))
		}
	}
	return b.String()
}
