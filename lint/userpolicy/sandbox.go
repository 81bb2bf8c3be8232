package userpolicy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/kubectl-workload/kubectl-workload/rules"
)

// The sandbox user policies run in. Built-in rules are part of the program
// and run without these limits; user policies (--policy) are untrusted code:
// besides the capabilities (see capabilities: no http.send, net.* or
// opa.runtime, and print is compiled out), each evaluation of one policy
// rule on one object is bounded in time and memory.
const (
	// DefaultPolicyTimeout bounds one evaluation of one user policy rule on
	// one object, when Options.PolicyTimeout is 0.
	DefaultPolicyTimeout = 10 * time.Second
	// DefaultPolicyMemory bounds how far the live heap may grow, while a
	// user policy evaluates, above what it was when the run's queries were
	// prepared or the evaluation started, whichever is more, when
	// Options.PolicyMemory is 0. A policy rule that builds
	// an unbounded collection (a comprehension over numbers.range(0, 1e12))
	// is stopped once it passes the bound.
	DefaultPolicyMemory = 128 << 20
)

// guardInterval is how often the memory guard samples the heap while a user
// policy evaluates; gcInterval is the least time between two garbage
// collections it forces to tell live memory from garbage.
const (
	guardInterval = 5 * time.Millisecond
	gcInterval    = 100 * time.Millisecond
)

// ErrPolicyTimeout and ErrPolicyMemory are the causes of a stopped policy
// evaluation; errors from Eval wrap them.
var (
	ErrPolicyTimeout = errors.New("policy evaluation timed out")
	ErrPolicyMemory  = errors.New("policy evaluation used too much memory")
)

// userQuery is one user policy rule prepared for a run.
type userQuery struct {
	key userKey
	// where names the files and rows that define the rule, for messages.
	where string
	pq    rego.PreparedEvalQuery
	// stopped is set once the rule has been stopped by the timeout or the
	// memory guard: it is not evaluated again in this run, so that one
	// runaway policy costs one timeout, not one per object.
	stopped atomic.Bool
	// malformed is set once a result of the rule that is neither a string
	// nor an object with a string msg has been reported, so that it is
	// reported once, not once per object.
	malformed atomic.Bool
}

// Hold marks work that allocates while user policies may be evaluating:
// lint's loaders, the API tier and the built-in rules hold the engine shared
// for each piece of work, and release it before they wait for anything. A
// guarded user-policy evaluation holds it exclusively, so it runs alone, and
// the heap its memory guard measures grows by its own allocations only: one
// worker's allocations are never charged to another worker's policy.
// Without user policies Hold does nothing.
//
// A goroutine that holds the engine must not evaluate user policies
// (Run.Eval) until it has released it.
func (e *Engine) Hold() (release func()) {
	if !e.guarded {
		return func() {}
	}
	e.gate.RLock()
	return e.gate.RUnlock
}

// alone runs fn while no other goroutine holds the engine (see Hold).
func (e *Engine) alone(fn func() error) error {
	e.gate.Lock()
	defer e.gate.Unlock()
	return fn()
}

// sandbox holds a run's limits and the memory guard's shared state.
type sandbox struct {
	timeout time.Duration
	memory  uint64
	// lastGC is when the guard last forced a collection (UnixNano).
	lastGC atomic.Int64
}

func newSandbox(timeout time.Duration, memory uint64) *sandbox {
	if timeout <= 0 {
		timeout = DefaultPolicyTimeout
	}
	if memory == 0 {
		memory = DefaultPolicyMemory
	}
	return &sandbox{timeout: timeout, memory: memory}
}

// The runtime/metrics samples the guard reads. Neither stops the world.
const (
	// metricLive is the heap the last collection found live.
	metricLive = "/gc/heap/live:bytes"
	// metricHeap is the heap in objects now, garbage not yet swept included.
	metricHeap = "/memory/classes/heap/objects:bytes"
)

func readHeap(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// overBudget reports whether the live heap has grown past base plus the
// budget. The cheap figure counts garbage too, so when it is over, a
// collection (at most one per gcInterval across the run) tells what is
// really live.
func (s *sandbox) overBudget(base uint64) bool {
	limit := base + s.memory
	if readHeap(metricLive) > limit {
		return true
	}
	if readHeap(metricHeap) <= limit {
		return false
	}
	now := time.Now().UnixNano()
	last := s.lastGC.Load()
	if now-last < int64(gcInterval) || !s.lastGC.CompareAndSwap(last, now) {
		return false
	}
	runtime.GC()
	return readHeap(metricLive) > limit
}

// guard runs fn with a context that is cancelled, with ErrPolicyMemory as
// its cause, when the heap grows past the budget, and with ErrPolicyTimeout
// when the timeout passes. fn must run alone (Engine.alone).
//
// The budget counts from the heap in objects when fn starts, garbage
// included: the live heap then is no more than that, so a live heap over
// base plus the budget means fn itself keeps more than the budget. A
// correct policy is never stopped, and a policy that keeps growing is,
// once it has kept the budget plus at most the garbage there was at its
// start.
func (s *sandbox) guard(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctx, stop := context.WithTimeoutCause(ctx, s.timeout, ErrPolicyTimeout)
	defer stop()
	base := readHeap(metricHeap)
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		tick := time.NewTicker(guardInterval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				if s.overBudget(base) {
					cancel(ErrPolicyMemory)
					return
				}
			}
		}
	})
	err := fn(ctx)
	close(done)
	wg.Wait()
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrPolicyTimeout) || errors.Is(cause, ErrPolicyMemory) {
			return cause
		}
	}
	return err
}

type userKey struct{ namespace, rule string }

// Run is the user policies prepared for one lint run: each rule's query is
// prepared once, then evaluated per object. Eval is safe for concurrent use.
type Run struct {
	engine *Engine
	// users are the user policy rules, one query each, and the sandbox
	// they run in.
	users   []*userQuery
	sandbox *sandbox
}

// Prepare readies the user policies' queries for one run.
func (e *Engine) Prepare(ctx context.Context) (*Run, error) {
	r := &Run{engine: e}
	if err := r.prepareUser(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// Eval runs every user policy rule on one object, as written (o.JSON), as
// conftest gives it, each rule in the sandbox. A policy the sandbox stops
// is an error, and the findings of every other rule are still returned. The
// caller must not hold the engine (Hold): each user policy evaluates alone.
func (r *Run) Eval(ctx context.Context, o rules.Object) ([]rules.Finding, error) {
	if len(r.users) == 0 {
		return nil, nil
	}
	input, err := ast.ValueFromReader(bytes.NewReader(o.JSON))
	if err != nil {
		return nil, fmt.Errorf("read object for policies: %w", err)
	}
	return r.evalUser(ctx, input)
}

// prepareUser prepares one query per user policy rule, so that a rule the
// sandbox stops is named and the others still run.
//
// They get a store of their own, empty: user policies see their input and
// their own packages, nothing of the run's inventory or the built-in rules.
func (r *Run) prepareUser(ctx context.Context) error {
	e := r.engine
	store := inmem.New()
	r.sandbox = newSandbox(e.policyTimeout, e.policyMemory)
	for _, ns := range e.namespaces {
		for _, rule := range ns.rules {
			pq, err := rego.New(append([]func(*rego.Rego){
				rego.Query(fmt.Sprintf("out = [m | m := data.%s.%s[_]]", ns.name, rule)),
				rego.Compiler(e.userCompiler), rego.Store(store), rego.Capabilities(userCapabilities()),
			}, boundedFunctions()...)...).PrepareForEval(ctx)
			if err != nil {
				return fmt.Errorf("prepare policy %s.%s: %w", ns.name, rule, err)
			}
			r.users = append(r.users, &userQuery{key: userKey{ns.name, rule}, where: ruleWhere(e.userCompiler, ns.name, rule), pq: pq})
		}
	}
	return nil
}

// evalUser runs every user policy rule on one object, each in the sandbox.
// A rule the sandbox stops is reported once, by an error naming it, and
// skipped for the objects that follow; the other rules' findings are
// returned all the same.
func (r *Run) evalUser(ctx context.Context, input ast.Value) ([]rules.Finding, error) {
	var out []rules.Finding
	var errs []error
	for _, q := range r.users {
		if q.stopped.Load() {
			continue
		}
		var rs rego.ResultSet
		err := r.engine.alone(func() error {
			return r.sandbox.guard(ctx, func(ctx context.Context) error {
				return recovered("evaluate "+q.where, func() (err error) {
					rs, err = q.pq.Eval(ctx, rego.EvalParsedInput(input))
					return err
				})
			})
		})
		id := "policy/" + q.key.namespace + "/" + q.key.rule
		switch {
		case errors.Is(err, ErrPolicyTimeout):
			if !q.stopped.Swap(true) {
				errs = append(errs, fmt.Errorf("policy %s (%s) stopped: %w (after %s); it is skipped for the remaining objects",
					id, q.where, err, r.sandbox.timeout))
			}
			continue
		case errors.Is(err, ErrPolicyMemory):
			if !q.stopped.Swap(true) {
				errs = append(errs, fmt.Errorf("policy %s (%s) stopped: %w (over %d MiB); it is skipped for the remaining objects",
					id, q.where, err, r.sandbox.memory>>20))
			}
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("evaluate policy %s (%s): %w", id, q.where, userEvalError(err)))
			continue
		}
		if len(rs) == 0 {
			continue
		}
		sev := rules.SeverityError
		if strings.HasPrefix(q.key.rule, "warn") {
			sev = rules.SeverityWarning
		}
		found, bad := readFindings(rs[0].Bindings["out"])
		for _, f := range found {
			f.RuleID, f.Severity = id, sev
			out = append(out, f)
		}
		if len(bad) > 0 && !q.malformed.Swap(true) {
			js, _ := json.Marshal(bad[0])
			errs = append(errs, fmt.Errorf("policy %s (%s) returned %s, which is neither a string nor an object with a string msg: such results are not reported; return a string or {\"msg\": ...}",
				id, q.where, js))
		}
	}
	return out, errors.Join(errs...)
}

// ruleWhere names the file:row of every definition of rule in package ns.
func ruleWhere(c *ast.Compiler, ns, rule string) string {
	var where []string
	for _, m := range c.Modules {
		if m.Package.Path.String() != "data."+ns {
			continue
		}
		for _, r := range m.Rules {
			name := r.Head.Name.String()
			if name == "" && len(r.Head.Reference) > 0 {
				name = r.Head.Reference[0].Value.String()
			}
			if name == rule && r.Location != nil {
				where = append(where, fmt.Sprintf("%s:%d", r.Location.File, r.Location.Row))
			}
		}
	}
	sort.Strings(where)
	if len(where) == 0 {
		return "data." + ns + "." + rule
	}
	return strings.Join(where, ", ")
}
