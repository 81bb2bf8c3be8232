package userpolicy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"

	"github.com/kubectl-workload/kubectl-workload/internal/globmatch"
)

// The built-ins of OPA's capabilities that can, in one call, allocate or
// recurse far beyond what they are given, and what user policies get of
// each (the timeout and the memory guard cancel the evaluation's context,
// which OPA checks between built-in calls and numbers.range checks inside
// one; they cannot stop one call of the others, hence these bounds):
//
//   - glob.match: gobwas/glob's matcher backtracks ("{a,a}" forty times then
//     "[b]" takes 2^40 steps); replaced by internal/globmatch, linear, with
//     its pattern limits.
//   - json.marshal, json.marshal_with_options, yaml.marshal, sprintf,
//     urlquery.encode_object, io.jwt.encode_sign: their output counts a
//     value as often as it is referred to (1,000 references to one 8 MiB
//     string marshal to 8 GB); the written size is measured first, and over
//     MaxBuiltinBytes the call is refused.
//   - graphql.parse, graphql.parse_and_verify, graphql.parse_query,
//     graphql.parse_schema, graphql.is_valid, graphql.schema_is_valid: the
//     parser recurses once per nesting level, and a query nested 2^21 deep
//     overflows the goroutine stack (a fatal error no recover catches); a
//     document nested deeper than maxGraphQLDepth is refused before parsing.
//   - regex.globs_match: its glob intersection grows with the product of
//     the patterns' lengths; each pattern is limited to maxGlobsMatchLength.
//   - graph.reachable_paths: lists every path, exponentially many in one
//     call for a dense graph: withheld (refusedBuiltins).
//   - bits.lsh, replace, strings.replace_n, concat, split, regex.split,
//     regex.replace, sprintf's widths, json.marshal_with_options' indent:
//     bounded before (boundedBuiltins).
//   - strings.render_template: withheld (a template loops inside one call).
//   - numbers.range, numbers.range_step: checks the cancellation inside its
//     loop, so the timeout and the memory guard stop it.
//   - json.unmarshal, yaml.unmarshal, json.is_valid, yaml.is_valid,
//     rego.parse_module: their decoders and OPA's parser limit nesting
//     (10,000 levels; the parser 100,000 frames), on a string that is
//     itself bounded by the input and the other limits.
//   - http.send, net.*, opa.runtime, json.match_schema and friends: withheld
//     (refusedReason).
//
// Every other built-in makes a value no larger than a small multiple of its
// arguments, or runs in time linear in them.

// maxGraphQLDepth is how deeply a GraphQL document given to a graphql.*
// built-in may nest its braces, parentheses and brackets. Real schemas and
// queries nest a few dozen levels.
const maxGraphQLDepth = 512

// maxGlobsMatchLength is the longest pattern regex.globs_match takes.
const maxGlobsMatchLength = 1024

// contextChecks are the checks of bounded built-ins that need the
// evaluation's context (to give up once it is cancelled), as
// boundedBuiltins are for the others.
var contextChecks = map[string]func(ctx context.Context, ops []*ast.Term) error{
	"json.marshal":              checkWritten(0),
	"json.marshal_with_options": checkWritten(0),
	"yaml.marshal":              checkWritten(0),
	"sprintf":                   checkWritten(1),
	"urlquery.encode_object":    checkWritten(0),
	"io.jwt.encode_sign":        checkWritten(0, 1),
	"graphql.parse":             checkGraphQLDepth(0, 1),
	"graphql.parse_and_verify":  checkGraphQLDepth(0, 1),
	"graphql.parse_query":       checkGraphQLDepth(0),
	"graphql.parse_schema":      checkGraphQLDepth(0),
	"graphql.is_valid":          checkGraphQLDepth(0, 1),
	"graphql.schema_is_valid":   checkGraphQLDepth(0),
	"regex.globs_match":         checkGlobsMatch,
}

// isBounded reports whether user policies call name's bounded version.
func isBounded(name string) bool {
	return boundedBuiltins[name] != nil || contextChecks[name] != nil || replacedBuiltins[name] != nil
}

// boundedNames are the built-ins with a bounded version, sorted.
func boundedNames() []string {
	var names []string
	for _, m := range []map[string]bool{keys(boundedBuiltins), keys(contextChecks), keys(replacedBuiltins)} {
		for name := range m {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

func keys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// replacedBuiltins are bounded built-ins implemented here rather than by
// OPA: boundedFunctions calls them in place of OPA's implementation once
// their check (in boundedBuiltins) passes.
var replacedBuiltins = map[string]func(bctx rego.BuiltinContext, ops []*ast.Term) (*ast.Term, error){
	"glob.match": globMatch,
}

// globCache holds compiled glob.match patterns, at most globCacheSize, as
// OPA's own cache does; a full cache is emptied.
var globCache = struct {
	sync.Mutex
	m map[string]*globmatch.Glob
}{m: map[string]*globmatch.Glob{}}

const globCacheSize = 100

// globMatch is glob.match (OPA's builtinGlobMatch, with its operands: a
// null delimiter list means none, an empty one "."), matched by
// internal/globmatch.
func globMatch(bctx rego.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	pattern, err := builtins.StringOperand(ops[0].Value, 1)
	if err != nil {
		return nil, err
	}
	var delimiters []rune
	switch ops[1].Value.(type) {
	case ast.Null:
	case *ast.Array:
		if delimiters, err = builtins.RuneSliceOperand(ops[1].Value, 2); err != nil {
			return nil, err
		}
		if len(delimiters) == 0 {
			delimiters = []rune{'.'}
		}
	default:
		return nil, builtins.NewOperandTypeErr(2, ops[1].Value, "array", "null")
	}
	match, err := builtins.StringOperand(ops[2].Value, 3)
	if err != nil {
		return nil, err
	}
	key := string(pattern) + "\x00" + string(delimiters)
	globCache.Lock()
	g, ok := globCache.m[key]
	globCache.Unlock()
	if !ok {
		if g, err = globmatch.Compile(string(pattern), delimiters...); err != nil {
			return nil, err
		}
		globCache.Lock()
		if len(globCache.m) >= globCacheSize {
			clear(globCache.m)
		}
		globCache.m[key] = g
		globCache.Unlock()
	}
	ok, err = g.MatchContext(bctx.Context, string(match))
	if err != nil {
		return nil, err
	}
	return ast.BooleanTerm(ok), nil
}

// checkWritten refuses to serialize the arguments at the given positions
// when their written size, each reference to a shared value counted, would
// pass MaxBuiltinBytes.
func checkWritten(positions ...int) func(ctx context.Context, ops []*ast.Term) error {
	return func(ctx context.Context, ops []*ast.Term) error {
		m := &sizeMeter{ctx: ctx, budget: MaxBuiltinBytes}
		for _, i := range positions {
			if i < len(ops) {
				m.term(ops[i])
			}
		}
		if m.err != nil {
			return m.err
		}
		if m.used > MaxBuiltinBytes {
			return fmt.Errorf("the result would be over %d bytes, the most a policy may make in one call (a value counts once per reference to it)", MaxBuiltinBytes)
		}
		return nil
	}
}

// sizeMeter adds up the bytes a value takes written as JSON, a lower bound
// for any text serialization of it, and stops once over its budget: each
// node adds at least a byte, so it visits at most budget nodes however
// often they are shared.
type sizeMeter struct {
	ctx          context.Context
	budget, used int64
	visits       int
	err          error
}

func (m *sizeMeter) over() bool {
	if m.used > m.budget || m.err != nil {
		return true
	}
	if m.visits++; m.visits%(1<<16) == 0 {
		m.err = m.ctx.Err()
	}
	return m.err != nil
}

func (m *sizeMeter) term(t *ast.Term) {
	if t == nil || m.over() {
		return
	}
	switch v := t.Value.(type) {
	case ast.String:
		m.used += int64(len(v)) + 2
	case ast.Number:
		m.used += int64(len(v))
	case *ast.Array:
		m.used += 2
		v.Foreach(func(e *ast.Term) { m.used++; m.term(e) })
	case ast.Set:
		m.used += 2
		v.Foreach(func(e *ast.Term) { m.used++; m.term(e) })
	case ast.Object:
		m.used += 2
		v.Foreach(func(k, e *ast.Term) { m.used += 2; m.term(k); m.term(e) })
	default:
		m.used += int64(len(v.String()))
	}
}

// checkGraphQLDepth refuses a GraphQL document (the string arguments at the
// given positions) that nests deeper than maxGraphQLDepth.
func checkGraphQLDepth(positions ...int) func(ctx context.Context, ops []*ast.Term) error {
	return func(_ context.Context, ops []*ast.Term) error {
		for _, i := range positions {
			if i >= len(ops) {
				continue
			}
			s, ok := ops[i].Value.(ast.String)
			if !ok {
				continue
			}
			if d := graphQLDepth(string(s)); d > maxGraphQLDepth {
				return fmt.Errorf("a GraphQL document nested %d deep, over the %d a policy may parse (the parser recurses once per level)", d, maxGraphQLDepth)
			}
		}
		return nil
	}
}

// graphQLDepth is how deeply s nests "{", "(" and "[", outside strings and
// comments, as GraphQL's lexer reads them; it may overcount, never under.
func graphQLDepth(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case '"':
			if strings.HasPrefix(s[i:], `"""`) {
				end := strings.Index(s[i+3:], `"""`)
				if end < 0 {
					return deepest
				}
				i += end + 5
				continue
			}
			for i++; i < len(s) && s[i] != '"' && s[i] != '\n'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '{', '(', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ')', ']':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// checkGlobsMatch bounds regex.globs_match's patterns.
func checkGlobsMatch(_ context.Context, ops []*ast.Term) error {
	for _, t := range ops {
		if s, ok := t.Value.(ast.String); ok && len(s) > maxGlobsMatchLength {
			return fmt.Errorf("a pattern of %d bytes, over the %d regex.globs_match may take in a policy", len(s), maxGlobsMatchLength)
		}
	}
	return nil
}
