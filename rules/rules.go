// Package rules is lint's Rego tier: the built-in rule catalogue (Rego v1
// files embedded from builtin/, with METADATA annotations) and user policies
// in conftest's style. Everything is compiled once; queries are prepared once
// per run and evaluated per object. Rules return findings as data; the
// package never prints.
package rules

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kubectl-workload/kubectl-workload/rules/compiled"
)

// Severities a rule may declare.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// builtinRoot is the package prefix of every built-in rule.
const builtinRoot = "kubectl_workload.rules"

// Rule is one built-in rule's metadata, read from its METADATA annotation.
type Rule struct {
	// ID is the rule id, such as rollout/downtime.
	ID       string `json:"id"`
	Title    string `json:"title"`
	Severity string `json:"severity"`
	// Description says what the rule checks and why it matters.
	Description string `json:"description"`
	// Remediation says how to fix a finding; it ends with a period.
	Remediation string `json:"remediation"`
	// Package is the Rego package, data.kubectl_workload.rules.<name>.
	Package string `json:"package"`
	// File is the rule's source file in builtin/.
	File string `json:"file"`
	// Kinds are the kinds of object the rule can report on (METADATA
	// custom.kinds), or nil for any: a cross-resource rule is evaluated
	// only on objects of its kinds.
	Kinds []string `json:"-"`
	// OptIn is set for a rule that is off by default (METADATA custom
	// default: off) until the configuration enables it (rules.enable).
	OptIn bool `json:"optIn,omitempty"`
}

// Options configure an Engine.
type Options struct {
	// Policies are user policy files or directories (.rego, recursively;
	// _test.rego files are left out).
	Policies []string
	// Namespaces are the packages whose deny/violation/warn rules are user
	// findings; ["main"] when empty, as in conftest.
	Namespaces []string
	// PolicyTimeout bounds one evaluation of one user policy rule on one
	// object; DefaultPolicyTimeout when 0. See sandbox.go.
	PolicyTimeout time.Duration
	// PolicyMemory bounds, in bytes, how far the heap may grow while a user
	// policy evaluates; DefaultPolicyMemory when 0.
	PolicyMemory uint64
}

// Engine holds the compiled built-in rules and user policies.
type Engine struct {
	// compiler has compiled the built-in rules with the user policies; it
	// is nil without user policies, when the per-process compiles of
	// package compiled serve instead (see localCompiler).
	compiler *ast.Compiler
	// userCompiler has compiled the user policies alone (userpolicy.go).
	userCompiler *ast.Compiler
	rules        []Rule
	byPackage    map[string]*Rule
	namespaces   []userNamespace
	// notRun says which packages of the user policies hold finding rules
	// but are not among the namespaces run (PoliciesNotRun).
	notRun []string
	// gate lets a guarded user-policy evaluation run alone (see Hold);
	// guarded is set when there are user policies to guard.
	gate    sync.RWMutex
	guarded bool
	// policyTimeout and policyMemory are the sandbox's limits (Options).
	policyTimeout time.Duration
	policyMemory  uint64
	// cross tells, by package, the built-in rules that read the inventory
	// (split.go).
	cross map[string]bool
	// crossByKind is, for a kind, the cross-resource packages (short
	// names) that can report on it, as a Rego set; crossAnyKind for a
	// kind no rule names (the rules without kinds). Made by classify.
	crossByKind  map[string]*ast.Term
	crossAnyKind *ast.Term
	// ready is closed once the fields above are set (New); err is what
	// building them met.
	ready chan struct{}
	err   error
	// localKinds are, by package, the kinds each per-object built-in rule
	// can report on (kinds.go), derived once (kindsOnce).
	localKinds map[string]kindSet
	kindsOnce  sync.Once
	// meta is closed once rules and byPackage are set, from the parsed
	// modules, before the compile; metaErr is what reading them met.
	meta    chan struct{}
	metaErr error
}

// userNamespace is one policy package and its finding rules.
type userNamespace struct {
	name string
	// rules are the deny*, violation* and warn* rule names in the package.
	rules []string
}

// BuiltinModules parses the embedded rules and their library, plus the
// _test.rego files when withTests is set.
func BuiltinModules(withTests bool) (map[string]*ast.Module, error) {
	return compiled.Modules(withTests)
}

// New compiles the built-in rules and the user policies in opts. Policy
// errors name the file and row.
//
// Without user policies there is nothing New could fail on that the tests
// have not seen, so it returns at once and the engine is built in the
// background from the process's shared compiles (package compiled): it is
// ready once the first pass's rules are compiled, and
// the cross-resource rules compile while the first files load, which
// matters to a pre-commit hook's run on a few files. Every method waits
// for what it needs.
func New(opts Options) (*Engine, error) {
	e := &Engine{byPackage: map[string]*Rule{}, policyTimeout: opts.PolicyTimeout, policyMemory: opts.PolicyMemory,
		ready: make(chan struct{}), meta: make(chan struct{}), guarded: len(opts.Policies) > 0}
	if len(opts.Policies) == 0 {
		compiled.Warm()
		go func() {
			defer close(e.ready)
			e.err = e.build(opts)
		}()
		return e, nil
	}
	defer close(e.ready)
	if err := e.build(opts); err != nil {
		return nil, err
	}
	return e, nil
}

// wait blocks until the engine is built, and returns the error building it
// met.
func (e *Engine) wait() error {
	<-e.ready
	return e.err
}

// build parses and compiles the rules and policies. The built-in rules'
// metadata is published (e.meta) as soon as the modules are parsed, before
// the compile: settings checks and ignore annotations need the rule ids
// only, and must not hold up the loading that the compile overlaps.
func (e *Engine) build(opts Options) error {
	user, parsed, err := e.readMetadata(opts)
	e.metaErr = err
	close(e.meta)
	if err != nil {
		return err
	}
	modules := parsed
	var compiler *ast.Compiler
	if len(user) == 0 {
		// The process's shared compiles, started by Warm (package
		// compiled): the engine is ready once the rules of the first pass
		// are compiled.
		if _, err := compiled.Local(); err != nil {
			return builtinCompileError(err)
		}
	} else {
		// The user policies are compiled alone, in a world of their own
		// (userpolicy.go); the built-in rules use the shared compiles.
		if e.userCompiler, err = userCompile(user); err != nil {
			return err
		}
		if _, err := compiled.Local(); err != nil {
			return builtinCompileError(err)
		}
	}
	e.compiler = compiler
	e.classify(modules)

	namespaces := opts.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{"main"}
	}
	run := map[string]bool{}
	for _, ns := range namespaces {
		e.namespaces = append(e.namespaces, userNamespace{name: ns, rules: findingRules(user, ns)})
		run[ns] = true
	}
	e.notRun = packagesNotRun(user, run, namespaces)
	return nil
}

// readMetadata loads the user policies and the parsed built-in modules, and
// sets the built-in rules (rules, byPackage) from their METADATA.
func (e *Engine) readMetadata(opts Options) (user, parsed map[string]*ast.Module, err error) {
	if user, err = loadPolicies(opts.Policies); err != nil {
		return nil, nil, err
	}
	if parsed, err = compiled.Parsed(); err != nil {
		return nil, nil, err
	}
	for file, m := range parsed {
		if !strings.HasPrefix(file, "builtin/") {
			continue
		}
		r, err := ruleFromModule(file, m)
		if err != nil {
			return nil, nil, err
		}
		e.rules = append(e.rules, r)
	}
	sort.Slice(e.rules, func(i, j int) bool { return e.rules[i].ID < e.rules[j].ID })
	for i := range e.rules {
		if prev, dup := e.byPackage[e.rules[i].Package]; dup {
			return nil, nil, fmt.Errorf("built-in rules %s and %s share package %s", prev.File, e.rules[i].File, e.rules[i].Package)
		}
		e.byPackage[e.rules[i].Package] = &e.rules[i]
	}
	return user, parsed, nil
}

// builtinCompileError is the error of a shared compile (package compiled).
func builtinCompileError(err error) error {
	if errs, ok := err.(ast.Errors); ok {
		return compileError(errs)
	}
	return err
}

// localCompiler is the compiler of the first pass: the built-in rules that
// read no inventory, and the user policies.
func (e *Engine) localCompiler() (*ast.Compiler, error) { return e.compilerOr(compiled.Local) }

// crossCompiler is the compiler of the second pass: the cross-resource
// rules. Without user policies, the first call may wait for their compile.
func (e *Engine) crossCompiler() (*ast.Compiler, error) { return e.compilerOr(compiled.Cross) }

// fullCompiler has compiled every built-in rule and user policy.
func (e *Engine) fullCompiler() (*ast.Compiler, error) { return e.compilerOr(compiled.Builtin) }

// compilerOr is the engine's compiler (with user policies), or else the
// shared compile shared returns.
func (e *Engine) compilerOr(shared func() (*compiled.Compiled, error)) (*ast.Compiler, error) {
	if e.compiler != nil {
		return e.compiler, nil
	}
	c, err := shared()
	if err != nil {
		return nil, builtinCompileError(err)
	}
	return c.Compiler, nil
}

// Rules returns the built-in rules, sorted by id, or the error building the
// engine met.
func (e *Engine) Rules() ([]Rule, error) {
	if err := e.wait(); err != nil {
		return nil, err
	}
	return e.rules, nil
}

// Metadata returns the built-in rules, sorted by id, as soon as their
// modules are parsed: unlike Rules, it does not wait for the compile. A
// settings check or an ignore annotation needs no more, and a run's loading
// goes on meanwhile.
func (e *Engine) Metadata() ([]Rule, error) {
	<-e.meta
	if e.metaErr != nil {
		return nil, e.metaErr
	}
	return e.rules, nil
}

// OptIn reports whether the built-in rule id is off by default.
func (e *Engine) OptIn(id string) bool {
	r, ok := e.Rule(id)
	return ok && r.OptIn
}

// Rule returns the built-in rule with the given id. An engine whose rules
// failed to parse has none (its evaluations return the error). It does not
// wait for the compile (see Metadata).
func (e *Engine) Rule(id string) (Rule, bool) {
	builtins, _ := e.Metadata()
	for _, r := range builtins {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// ruleFromModule reads a built-in rule's METADATA.
func ruleFromModule(file string, m *ast.Module) (Rule, error) {
	pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
	if !strings.HasPrefix(pkg, builtinRoot+".") {
		return Rule{}, fmt.Errorf("built-in rule %s: package %s is not under %s", file, pkg, builtinRoot)
	}
	for _, a := range m.Annotations {
		if a.Scope != "package" {
			continue
		}
		str := func(key string) string {
			s, _ := a.Custom[key].(string)
			return strings.TrimSpace(s)
		}
		r := Rule{ID: str("id"), Title: a.Title, Severity: str("severity"), Description: strings.TrimSpace(a.Description),
			Remediation: str("remediation"), Package: pkg, File: file}
		switch d := str("default"); d {
		case "", "on":
		case "off":
			r.OptIn = true
		default:
			return Rule{}, fmt.Errorf("built-in rule %s: custom default %q: want on or off", file, d)
		}
		if ks, ok := a.Custom["kinds"]; ok {
			list, _ := ks.([]any)
			for _, k := range list {
				if k, ok := k.(string); ok && k != "" {
					r.Kinds = append(r.Kinds, k)
				}
			}
			if len(r.Kinds) == 0 || len(r.Kinds) != len(list) {
				return Rule{}, fmt.Errorf("built-in rule %s: custom kinds must be a list of kinds", file)
			}
		}
		if r.ID == "" || r.Title == "" || r.Description == "" || r.Remediation == "" {
			return Rule{}, fmt.Errorf("built-in rule %s: METADATA needs title, description and custom id and remediation", file)
		}
		switch r.Severity {
		case SeverityError, SeverityWarning, SeverityInfo:
		default:
			return Rule{}, fmt.Errorf("built-in rule %s: severity %q: want error, warning or info", file, r.Severity)
		}
		return r, nil
	}
	return Rule{}, fmt.Errorf("built-in rule %s: no package METADATA annotation", file)
}

// loadPolicies parses user policy files and directories. A file that does
// not parse as Rego v1 is tried as v0, since many conftest policies predate
// v1; when both fail, the v1 error is reported.
func loadPolicies(paths []string) (map[string]*ast.Module, error) {
	modules := map[string]*ast.Module{}
	var errs []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", p, err)
		}
		var files []string
		root, entries := "", map[string]fs.DirEntry{}
		if info.IsDir() {
			root = p
			err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if !d.IsDir() && strings.HasSuffix(path, ".rego") && !strings.HasSuffix(path, "_test.rego") {
					files = append(files, path)
					entries[path] = d
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("policy directory %s: %w", p, err)
			}
		} else {
			files = []string{p}
		}
		for _, f := range files {
			src, err := readPolicyFile(root, f, entries[f])
			if err != nil {
				errs = append(errs, fmt.Sprintf("policy %s: %v", f, err))
				continue
			}
			m, errV1 := ast.ParseModuleWithOpts(f, string(src), compiled.ParserOptions(ast.RegoV1))
			if errV1 != nil {
				var errV0 error
				if m, errV0 = ast.ParseModuleWithOpts(f, string(src), compiled.ParserOptions(ast.RegoV0)); errV0 != nil {
					errs = append(errs, errV1.Error())
					continue
				}
			}
			modules["policy:"+f] = m
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("policy errors:\n%s", strings.Join(errs, "\n"))
	}
	return modules, nil
}

// compileError explains compile errors, naming file and row, and says plainly
// when a policy calls a built-in that is withheld.
func compileError(errs ast.Errors) error {
	var lines []string
	for _, e := range errs {
		lines = append(lines, explainRefused(e))
	}
	return fmt.Errorf("policy compile errors:\n%s", strings.Join(lines, "\n"))
}

// PoliciesNotRun returns one message for each package of the user policies
// that holds deny, violation or warn rules but is not run, because it is
// not among the packages named (main by default, as in conftest): a policy
// that silently does nothing otherwise. Sorted by package.
func (e *Engine) PoliciesNotRun() []string {
	if !e.guarded {
		return nil // no user policies (and New builds those it has before it returns)
	}
	if e.wait() != nil {
		return nil
	}
	return e.notRun
}

// packagesNotRun lists, as messages, the packages of modules with finding
// rules that are not in run.
func packagesNotRun(modules map[string]*ast.Module, run map[string]bool, namespaces []string) []string {
	files := map[string][]string{}
	for file, m := range modules {
		ns := strings.TrimPrefix(m.Package.Path.String(), "data.")
		if run[ns] || len(findingRules(map[string]*ast.Module{file: m}, ns)) == 0 {
			continue
		}
		files[ns] = append(files[ns], strings.TrimPrefix(file, "policy:"))
	}
	pkgs := make([]string, 0, len(files))
	for ns := range files {
		pkgs = append(pkgs, ns)
	}
	sort.Strings(pkgs)
	out := make([]string, 0, len(pkgs))
	for _, ns := range pkgs {
		sort.Strings(files[ns])
		out = append(out, fmt.Sprintf("package %s (%s) has deny, violation or warn rules, but only package %s runs: add --policy-namespace %s to run it",
			ns, strings.Join(files[ns], ", "), strings.Join(namespaces, ", "), ns))
	}
	return out
}

// findingRules lists the rules of package ns, across modules, whose names
// make them conftest findings: deny, violation and warn, with any suffix.
func findingRules(modules map[string]*ast.Module, ns string) []string {
	seen := map[string]bool{}
	for _, m := range modules {
		if m.Package.Path.String() != "data."+ns {
			continue
		}
		for _, r := range m.Rules {
			name := r.Head.Name.String()
			if name == "" && len(r.Head.Reference) > 0 {
				name = r.Head.Reference[0].Value.String()
			}
			for _, prefix := range []string{"deny", "violation", "warn"} {
				if strings.HasPrefix(name, prefix) {
					seen[name] = true
				}
			}
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
