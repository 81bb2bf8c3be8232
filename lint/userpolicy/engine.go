// Package userpolicy runs the policies users write (--policy), in Rego and
// in conftest's layout: it compiles them once per run, only when there are
// some, in a world of their own (userpolicy.go: no network, no file
// system, bounded built-ins), and evaluates each prepared query on each
// object under a time and memory guard (sandbox.go). Findings are data
// (rules.Finding); the package never prints.
package userpolicy

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
)

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

// Engine holds the compiled user policies. Without user policies it holds
// nothing, and nothing of OPA is compiled or prepared.
type Engine struct {
	// userCompiler has compiled the user policies alone (userpolicy.go);
	// nil without user policies.
	userCompiler *ast.Compiler
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
}

// userNamespace is one policy package and its finding rules.
type userNamespace struct {
	name string
	// rules are the deny*, violation* and warn* rule names in the package.
	rules []string
}

// New compiles the user policies in opts. Policy errors name the file and
// row. Without user policies it compiles nothing.
func New(opts Options) (*Engine, error) {
	e := &Engine{policyTimeout: opts.PolicyTimeout, policyMemory: opts.PolicyMemory, guarded: len(opts.Policies) > 0}
	if len(opts.Policies) == 0 {
		return e, nil
	}
	user, err := loadPolicies(opts.Policies)
	if err != nil {
		return nil, err
	}
	if len(user) > 0 {
		// The user policies are compiled alone, in a world of their own
		// (userpolicy.go).
		if e.userCompiler, err = userCompile(user); err != nil {
			return nil, err
		}
	}
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
	return e, nil
}

// HasPolicies reports whether the engine has user policy rules to run.
func (e *Engine) HasPolicies() bool {
	for _, ns := range e.namespaces {
		if len(ns.rules) > 0 {
			return true
		}
	}
	return false
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
			m, errV1 := ast.ParseModuleWithOpts(f, string(src), parserOptions(ast.RegoV1))
			if errV1 != nil {
				var errV0 error
				if m, errV0 = ast.ParseModuleWithOpts(f, string(src), parserOptions(ast.RegoV0)); errV0 != nil {
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
