package userpolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/big"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/kubectl-workload/kubectl-workload/internal/boundedread"
)

// User policies (--policy) come from the repository under review, so they
// are untrusted code. They are compiled alone, in a compiler of their own
// (userCompile), and evaluated against a store of their own: nothing
// built-in is in their world, and the packages a policy could name to reach
// it (reservedRoot and below) are refused. Their capabilities are OPA's
// built-ins minus every built-in OPA marks nondeterministic (http.send,
// net.*, opa.runtime, json.match_schema and json.verify_schema, whose
// schemas' $refs are fetched over the network and from files, time.now_ns,
// rand.intn, uuid.rfc4122, the io.jwt functions that read the clock) and
// strings.render_template (a Go template may loop for ever inside one call,
// where no timeout reaches it). The built-ins that can make a value far
// larger than their arguments in one call, or that silently fail on an
// invalid regular expression, are replaced by bounded versions (see
// boundedBuiltins).
const (
	// MaxPolicyFileSize is the largest policy file read, in bytes. A policy
	// file of 1 MiB is some 30,000 lines; a 50 MB one took 4 GB to parse.
	MaxPolicyFileSize = 1 << 20
	// MaxBuiltinBytes is the largest string (or number, in bytes) one call
	// of a bounded built-in may make in a user policy: the memory guard
	// samples the heap between allocations and cannot stop one mid-call, so
	// this bounds how far one call may overshoot its budget.
	MaxBuiltinBytes = 16 << 20
	// MaxBuiltinElements is the most elements one call of split or
	// regex.split may make in a user policy (each costs some 100 bytes).
	MaxBuiltinElements = 1 << 18
)

// reservedRoot is the package root of everything built-in; boundedRoot is
// the name the bounded built-ins are called by once a policy is rewritten.
const (
	reservedRoot = "kubectl_workload"
	boundedRoot  = "kubectl_workload_bounded"
)

// refusedBuiltins are the built-ins withheld from user policies beyond the
// nondeterministic ones, and why.
var refusedBuiltins = map[string]string{
	"strings.render_template": "a template may run without bound inside one call",
	"graph.reachable_paths":   "it lists every path, exponentially many in one call for a dense graph",
}

// refusedReason says why a built-in is withheld from user policies, or ""
// if it is not.
func refusedReason(name string) string {
	if r, ok := refusedBuiltins[name]; ok {
		return r
	}
	b, ok := ast.BuiltinMap[name]
	switch {
	case !ok || !b.Nondeterministic:
		return ""
	case name == "json.match_schema" || name == "json.verify_schema":
		return "a schema's $ref may be fetched from the network or a local file"
	case name == "http.send" || name == "opa.runtime" || strings.HasPrefix(name, "net."):
		return "policies run without network or environment access"
	}
	return "its result changes from run to run (lint gives the same answer on every run)"
}

// userCapabilities are the capabilities user policies compile with: OPA's
// built-ins minus the refused ones, and with every bounded built-in under
// its bounded name only, so that a call the rewrite missed fails to compile
// rather than run unbounded.
var userCapabilities = sync.OnceValue(func() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if refusedReason(b.Name) != "" || isBounded(b.Name) {
			continue
		}
		kept = append(kept, b)
	}
	for _, name := range boundedNames() {
		kept = append(kept, &ast.Builtin{Name: boundedRoot + "." + name, Decl: ast.BuiltinMap[name].Decl})
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Name < kept[j].Name })
	caps.Builtins = kept
	return caps
})

// boundedFunctions are the rego options that implement the bounded
// built-ins for one query: each checks its arguments, then calls OPA's own
// implementation. A check that fails halts the evaluation (it is an error
// even where OPA would make a failing built-in undefined).
func boundedFunctions() []func(*rego.Rego) {
	var opts []func(*rego.Rego)
	for _, name := range boundedNames() {
		check, ctxCheck := boundedBuiltins[name], contextChecks[name]
		impl := topdown.GetBuiltin(name)
		replaced := replacedBuiltins[name]
		decl := &rego.Function{Name: boundedRoot + "." + name, Decl: ast.BuiltinMap[name].Decl}
		opts = append(opts, rego.FunctionDyn(decl, func(bctx rego.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
			if check != nil {
				if err := check(ops); err != nil {
					return nil, rego.NewHaltError(err) // named by rego
				}
			}
			if ctxCheck != nil {
				if err := ctxCheck(bctx.Context, ops); err != nil {
					return nil, rego.NewHaltError(err)
				}
			}
			if replaced != nil {
				return replaced(bctx, ops)
			}
			var out *ast.Term
			err := impl(bctx, ops, func(t *ast.Term) error {
				out = t
				return nil
			})
			return out, err
		}))
	}
	return opts
}

// boundedBuiltins check the arguments of the built-ins that could make far
// more than they are given in one call (a shift by 10^12 bits, a replace of
// "" in 30 kB by 64 kB, a concat with a huge delimiter, a sprintf width of
// 10^9), or that fail silently on an invalid regular expression (the rule
// would never fire). A nil error lets OPA's implementation run.
var boundedBuiltins = map[string]func(ops []*ast.Term) error{
	"bits.lsh": func(ops []*ast.Term) error {
		x, errX := bigOperand(ops[0])
		s, errS := bigOperand(ops[1])
		if errX != nil || errS != nil || s.Sign() < 0 {
			return nil // OPA's own error
		}
		bits := new(big.Int).Add(s, big.NewInt(int64(x.BitLen())))
		if bits.Cmp(big.NewInt(MaxBuiltinBytes*8)) > 0 {
			return fmt.Errorf("a shift by %s bits would make a number of %s bits, over the %d a policy may make in one call", s, bits, MaxBuiltinBytes*8)
		}
		return nil
	},
	"replace": func(ops []*ast.Term) error {
		s, old, repl, ok := strings3(ops[0], ops[1], ops[2])
		if !ok {
			return nil
		}
		return checkSize(int64(len(s)) + countOf(s, old)*int64(len(repl)-len(old)))
	},
	"strings.replace_n": func(ops []*ast.Term) error {
		patterns, ok1 := ops[0].Value.(ast.Object)
		s, ok2 := ops[1].Value.(ast.String)
		if !ok1 || !ok2 {
			return nil
		}
		size := int64(len(s))
		err := patterns.Iter(func(k, v *ast.Term) error {
			old, ok1 := k.Value.(ast.String)
			repl, ok2 := v.Value.(ast.String)
			if ok1 && ok2 && len(repl) > len(old) {
				size += countOf(string(s), string(old)) * int64(len(repl)-len(old))
			}
			return nil
		})
		if err != nil {
			return err
		}
		return checkSize(size)
	},
	"concat": func(ops []*ast.Term) error {
		delim, ok := ops[0].Value.(ast.String)
		if !ok {
			return nil
		}
		var n, size int64
		add := func(t *ast.Term) {
			if s, ok := t.Value.(ast.String); ok {
				n++
				size += int64(len(s))
			}
		}
		switch c := ops[1].Value.(type) {
		case *ast.Array:
			c.Foreach(add)
		case ast.Set:
			c.Foreach(add)
		}
		if n > 1 {
			size += (n - 1) * int64(len(delim))
		}
		return checkSize(size)
	},
	"sprintf": func(ops []*ast.Term) error {
		f, ok := ops[0].Value.(ast.String)
		if !ok {
			return nil
		}
		return checkFormat(string(f))
	},
	"split": func(ops []*ast.Term) error {
		s, ok1 := ops[0].Value.(ast.String)
		sep, ok2 := ops[1].Value.(ast.String)
		if !ok1 || !ok2 {
			return nil
		}
		return checkElements(countOf(string(s), string(sep)) + 1)
	},
	"json.marshal_with_options": func(ops []*ast.Term) error {
		o, ok := ops[1].Value.(ast.Object)
		if !ok {
			return nil
		}
		var n int
		for _, k := range []string{"prefix", "indent"} {
			if v := o.Get(ast.StringTerm(k)); v != nil {
				if s, ok := v.Value.(ast.String); ok {
					n += len(s)
				}
			}
		}
		if n > maxIndent {
			return fmt.Errorf("a prefix and indent of %d bytes, over the %d a policy may use (each is repeated on every line)", n, maxIndent)
		}
		return nil
	},
	// The regular-expression built-ins: an invalid pattern is an error.
	"regex.match":                      patternAt(0, nil),
	"regex.find_n":                     patternAt(0, nil),
	"regex.find_all_string_submatch_n": patternAt(0, nil),
	"regex.split": patternAt(0, func(re *regexp.Regexp, ops []*ast.Term) error {
		if s, ok := ops[1].Value.(ast.String); ok {
			return checkElements(int64(len(re.FindAllStringIndex(string(s), -1))) + 1)
		}
		return nil
	}),
	"regex.replace": patternAt(1, func(re *regexp.Regexp, ops []*ast.Term) error {
		s, ok1 := ops[0].Value.(ast.String)
		repl, ok2 := ops[2].Value.(ast.String)
		if !ok1 || !ok2 {
			return nil
		}
		// Each match becomes the replacement, in which every $ may
		// expand to a group of at most the whole string.
		matches := int64(len(re.FindAllStringIndex(string(s), -1)))
		per := int64(len(repl)) + int64(strings.Count(string(repl), "$"))*int64(len(s))
		return checkSize(int64(len(s)) + matches*per)
	}),
}

// maxIndent is the longest prefix and indent json.marshal_with_options may
// use in a user policy, together.
const maxIndent = 256

// maxFormatWidth is the largest width or precision a sprintf verb may ask
// for in a user policy.
const maxFormatWidth = 1 << 16

// patternAt checks that the argument at i, when a string, is a valid regular
// expression, then runs more (if any) with it compiled.
func patternAt(i int, more func(re *regexp.Regexp, ops []*ast.Term) error) func(ops []*ast.Term) error {
	return func(ops []*ast.Term) error {
		p, ok := ops[i].Value.(ast.String)
		if !ok {
			return nil
		}
		re, err := regexp.Compile(string(p))
		if err != nil {
			return fmt.Errorf("invalid regular expression %q: %w", string(p), err)
		}
		if more != nil {
			return more(re, ops)
		}
		return nil
	}
}

func bigOperand(t *ast.Term) (*big.Int, error) {
	n, ok := t.Value.(ast.Number)
	if !ok {
		return nil, errors.New("not a number")
	}
	i, ok := new(big.Int).SetString(string(n), 10)
	if !ok {
		f, ok := new(big.Float).SetString(string(n))
		if !ok {
			return nil, errors.New("not an integer")
		}
		i, _ = f.Int(nil)
	}
	return i, nil
}

func strings3(a, b, c *ast.Term) (string, string, string, bool) {
	x, ok1 := a.Value.(ast.String)
	y, ok2 := b.Value.(ast.String)
	z, ok3 := c.Value.(ast.String)
	return string(x), string(y), string(z), ok1 && ok2 && ok3
}

// countOf is how many times old is replaced in s: strings.Count, which for
// "" is one more than the runes in s.
func countOf(s, old string) int64 {
	if old == "" {
		return int64(utf8.RuneCountInString(s)) + 1
	}
	return int64(strings.Count(s, old))
}

func checkSize(size int64) error {
	if size > MaxBuiltinBytes {
		return fmt.Errorf("the result would be %d bytes, over the %d a policy may make in one call", size, MaxBuiltinBytes)
	}
	return nil
}

func checkElements(n int64) error {
	if n > MaxBuiltinElements {
		return fmt.Errorf("the result would have %d elements, over the %d a policy may make in one call", n, MaxBuiltinElements)
	}
	return nil
}

// checkFormat refuses a sprintf format whose widths or precisions are over
// maxFormatWidth, or taken from the arguments (*).
func checkFormat(f string) error {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		for i < len(f) && strings.IndexByte("+-# 0[]", f[i]) >= 0 || i < len(f) && f[i] >= '0' && f[i] <= '9' || i < len(f) && f[i] == '.' || i < len(f) && f[i] == '*' {
			if f[i] == '*' {
				return errors.New("a width or precision taken from the arguments (*) is not allowed in a policy")
			}
			if f[i] >= '1' && f[i] <= '9' {
				j := i
				for j < len(f) && f[j] >= '0' && f[j] <= '9' {
					j++
				}
				if j-i > 6 || atoi(f[i:j]) > maxFormatWidth {
					return fmt.Errorf("a width or precision of %s, over the %d a policy may use", f[i:j], maxFormatWidth)
				}
				i = j
				continue
			}
			i++
		}
	}
	return nil
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// rewriteBounded makes m call the bounded built-ins (boundedRoot.name) in
// place of OPA's.
func rewriteBounded(m *ast.Module) {
	ast.WalkTerms(m, func(t *ast.Term) bool {
		r, ok := t.Value.(ast.Ref)
		if !ok {
			return false
		}
		if name := r.String(); isBounded(name) {
			t.Value = ast.MustParseRef(boundedRoot + "." + name)
		}
		return false
	})
}

// checkUserModule refuses a user module in a reserved package, or one that
// refers to built-in state, and a constant regular expression that does not
// compile; each error names the file and row.
func checkUserModule(file string, m *ast.Module) []string {
	var errs []string
	pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
	for _, root := range []string{reservedRoot, boundedRoot} {
		if pkg == root || strings.HasPrefix(pkg, root+".") {
			errs = append(errs, fmt.Sprintf("%s:%d: package %s is reserved for built-in rules: a policy's package may not be %s or below it",
				file, m.Package.Location.Row, pkg, root))
		}
	}
	ast.WalkRefs(m, func(r ast.Ref) bool {
		if r.Equal(m.Package.Path) {
			return false // the package, refused above
		}
		if len(r) > 1 && r[0].Equal(ast.DefaultRootDocument) {
			if s, ok := r[1].Value.(ast.String); ok && (string(s) == reservedRoot || string(s) == boundedRoot) {
				errs = append(errs, fmt.Sprintf("%s: %s is reserved for built-in rules: policies see only their input and their own packages",
					where(file, r[0].Location), r))
			}
		}
		return false
	})
	ast.WalkExprs(m, func(e *ast.Expr) bool {
		call, ok := e.Terms.([]*ast.Term)
		if ok {
			errs = append(errs, checkConstantPatterns(file, call)...)
		}
		return false
	})
	ast.WalkTerms(m, func(t *ast.Term) bool {
		if call, ok := t.Value.(ast.Call); ok {
			errs = append(errs, checkConstantPatterns(file, call)...)
		}
		return false
	})
	return errs
}

// patternArg is, for the regular-expression built-ins, which argument is
// the pattern.
var patternArg = map[string]int{"regex.match": 0, "regex.find_n": 0, "regex.find_all_string_submatch_n": 0, "regex.split": 0, "regex.replace": 1}

// checkConstantPatterns checks a call's constant pattern, if it is a call of
// a regular-expression built-in.
func checkConstantPatterns(file string, call []*ast.Term) []string {
	if len(call) == 0 {
		return nil
	}
	i, ok := patternArg[call[0].String()]
	if !ok || len(call) <= i+1 {
		return nil
	}
	p, ok := call[i+1].Value.(ast.String)
	if !ok {
		return nil
	}
	if _, err := regexp.Compile(string(p)); err != nil {
		return []string{fmt.Sprintf("%s: %s: invalid regular expression %q: %v", where(file, call[i+1].Location), call[0], string(p), err)}
	}
	return nil
}

func where(file string, loc *ast.Location) string {
	if loc == nil {
		return file
	}
	return fmt.Sprintf("%s:%d", file, loc.Row)
}

// compiles counts the policy compiles this process ran.
var compiles atomic.Int32

// Compiles is how many times this process has compiled user policies: a
// test checks that a run without --policy compiles no Rego.
func Compiles() int { return int(compiles.Load()) }

// userCompile compiles the user policies alone: no built-in module is in
// their compiler. It checks and rewrites the modules first (they are the
// caller's: loadPolicies parsed them for this engine).
func userCompile(modules map[string]*ast.Module) (*ast.Compiler, error) {
	compiles.Add(1)
	var errs []string
	files := make([]string, 0, len(modules))
	for name := range modules {
		files = append(files, name)
	}
	sort.Strings(files)
	for _, name := range files {
		errs = append(errs, checkUserModule(strings.TrimPrefix(name, "policy:"), modules[name])...)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("policy errors:\n%s", strings.Join(errs, "\n"))
	}
	for _, m := range modules {
		rewriteBounded(m)
	}
	c := ast.NewCompiler().WithCapabilities(userCapabilities()).WithEnablePrintStatements(false)
	if err := recovered("compile policies", func() error { c.Compile(maps.Clone(modules)); return nil }); err != nil {
		return nil, err
	}
	if c.Failed() {
		return nil, compileError(c.Errors)
	}
	return c, nil
}

// explainRefused rewrites a compile error about a withheld built-in to say
// why it is withheld, and names the bounded built-ins as policies wrote
// them.
func explainRefused(e *ast.Error) string {
	msg := strings.ReplaceAll(e.Error(), boundedRoot+".", "")
	for _, prefix := range []string{"undefined function ", "undefined ref: "} {
		i := strings.Index(e.Message, prefix)
		if i < 0 {
			continue
		}
		fn := strings.TrimSpace(e.Message[i+len(prefix):])
		if j := strings.IndexAny(fn, " \n"); j >= 0 {
			fn = fn[:j]
		}
		for name := fn; name != ""; name = name[:max(strings.LastIndex(name, "."), 0)] {
			if reason := refusedReason(name); reason != "" {
				return fmt.Sprintf("%s: %s is not allowed: %s", e.Location, name, reason)
			}
			if !strings.Contains(name, ".") {
				break
			}
		}
	}
	return msg
}

// readPolicyFile reads one policy file under root ("" for a file named on
// its own): a regular file of at most MaxPolicyFileSize bytes, which, under
// a directory, a symbolic link may not lead out of.
func readPolicyFile(root, file string, d fs.DirEntry) ([]byte, error) {
	if root != "" && d != nil && d.Type()&fs.ModeSymlink != 0 {
		if err := boundedread.Inside(root, file); err != nil {
			return nil, err
		}
	}
	return boundedread.ReadFile(file, MaxPolicyFileSize)
}

// userEvalError names a bounded built-in as the policy wrote it.
func userEvalError(err error) error {
	if err == nil || !strings.Contains(err.Error(), boundedRoot+".") {
		return err
	}
	return &renamedError{msg: strings.ReplaceAll(err.Error(), boundedRoot+".", ""), err: err}
}

type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// recovered runs fn, and turns a panic in it (a built-in OPA's evaluator
// does not guard) into an error, so that a hostile policy ends the run with
// exit 2 and a message, never a Go stack dump.
func recovered(what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %v (a panic in OPA, stopped)", what, r)
		}
	}()
	return fn()
}

// parseCapabilities are the capabilities user policies are parsed with:
// OPA's built-ins minus network and environment access (the compile's
// userCapabilities withhold more). They are made once (OPA builds and sorts
// its list on every call) and only read.
var parseCapabilities = sync.OnceValue(func() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if b.Name == "http.send" || b.Name == "opa.runtime" || strings.HasPrefix(b.Name, "net.") {
			continue
		}
		kept = append(kept, b)
	}
	caps.Builtins = kept
	return caps
})

// parserOptions are the options every policy module is parsed with.
func parserOptions(v ast.RegoVersion) ast.ParserOptions {
	return ast.ParserOptions{ProcessAnnotation: true, RegoVersion: v, Capabilities: parseCapabilities()}
}
