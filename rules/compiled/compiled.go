// Package compiled parses and compiles the built-in Rego rules, once per
// process, when lint starts them (Warm).
//
// A short run (a pre-commit hook on a few files) spends much of its time
// waiting for the built-in rules to compile. lint calls Warm before it loads
// its inputs, and rules.New picks up the result. The rules of the first pass
// (Local) are compiled first, the cross-resource rules (Cross) after them,
// while the first files load. A process that never lints (kubectl workload
// version, predict) compiles nothing.
package compiled

import (
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kubectl-workload/kubectl-workload/internal/each"
	"github.com/kubectl-workload/kubectl-workload/rules/builtin"
	"github.com/kubectl-workload/kubectl-workload/rules/lib"
)

// Capabilities are OPA's built-ins minus network and environment access:
// lint must give the same answer on every machine and never call out. They
// are made once (OPA builds and sorts its list on every call) and only read.
var Capabilities = sync.OnceValue(func() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if forbiddenBuiltin(b.Name) {
			continue
		}
		kept = append(kept, b)
	}
	caps.Builtins = kept
	return caps
})

// forbiddenBuiltin names the built-ins policies may not call.
func forbiddenBuiltin(name string) bool {
	return name == "http.send" || name == "opa.runtime" || strings.HasPrefix(name, "net.")
}

// ParserOptions are the options every module is parsed with.
func ParserOptions(v ast.RegoVersion) ast.ParserOptions {
	return ast.ParserOptions{ProcessAnnotation: true, RegoVersion: v, Capabilities: Capabilities()}
}

// NewCompiler returns a compiler set up as the built-in rules need.
func NewCompiler() *ast.Compiler {
	return ast.NewCompiler().WithCapabilities(Capabilities()).WithEnablePrintStatements(false)
}

// source is an embedded directory and the prefix its files are named with
// ("builtin/x.rego", "lib/x.rego").
var sources = []struct {
	prefix string
	fs     fs.FS
}{{"builtin/", builtin.FS}, {"lib/", lib.FS}}

// Modules parses the embedded rules and their library, plus the _test.rego
// files when withTests is set, keyed by file name (builtin/x.rego,
// lib/x.rego). Each call parses them anew: the caller owns the result.
func Modules(withTests bool) (map[string]*ast.Module, error) {
	type file struct {
		name string
		fs   fs.FS
		path string
	}
	var files []file
	for _, src := range sources {
		found, err := fs.Glob(src.fs, "*.rego")
		if err != nil {
			return nil, fmt.Errorf("list built-in rules: %w", err)
		}
		for _, f := range found {
			if !strings.HasSuffix(f, "_test.rego") || withTests {
				files = append(files, file{src.prefix + f, src.fs, f})
			}
		}
	}
	// Parsed on every CPU: parsing is half the cost of the compile.
	parsed := make([]*ast.Module, len(files))
	errs := make([]error, len(files))
	each.Index(len(files), func(i int) {
		f := files[i]
		src, err := fs.ReadFile(f.fs, f.path)
		if err != nil {
			errs[i] = fmt.Errorf("read built-in rule %s: %w", f.name, err)
			return
		}
		if parsed[i], err = ast.ParseModuleWithOpts(f.name, string(src), ParserOptions(ast.RegoV1)); err != nil {
			errs[i] = fmt.Errorf("parse built-in rule %s: %w", f.name, err)
			return
		}
		freeze(parsed[i])
	})
	modules := make(map[string]*ast.Module, len(files))
	for i, f := range files {
		if errs[i] != nil {
			return nil, errs[i]
		}
		modules[f.name] = parsed[i]
	}
	return modules, nil
}

// freeze sorts, once and now, the keys of every object and set of m, which
// OPA otherwise sorts lazily on a first walk, under a sync.Once that a
// concurrent Copy does not take: the parsed modules are shared, and the two
// compiles copy them while lint's first pass walks them (readFields).
func freeze(m *ast.Module) {
	ast.WalkTerms(m, func(t *ast.Term) bool {
		switch v := t.Value.(type) {
		case ast.Object:
			v.Keys()
		case ast.Set:
			v.Slice()
		}
		return false
	})
}

// Parsed returns the built-in modules (without tests), parsed once per
// process and shared: callers only read them.
var Parsed = sync.OnceValues(func() (map[string]*ast.Module, error) { return Modules(false) })

// Local returns the built-in rules that read no other object than their
// input (see ReadsInventory), with the library they use, compiled once per
// process. It waits for the compile that Warm started. A run needs these
// rules for its first pass; the cross-resource rules (Cross), about twice as
// long to compile, are compiled beside them (on a pre-commit hook's few
// files their compile is what the run's end waits for).
var Local = sync.OnceValues(func() (*Compiled, error) { return compileSubset(false) })

// Cross returns the cross-resource rules (see ReadsInventory), with the
// library they use, compiled once per process.
var Cross = sync.OnceValues(func() (*Compiled, error) { return compileSubset(true) })

// Builtin returns every built-in rule, compiled once per process when
// first called.
var Builtin = sync.OnceValues(func() (*Compiled, error) {
	modules, err := Parsed()
	if err != nil {
		return nil, err
	}
	return compile(modules)
})

// Compiled is built-in rules, parsed and compiled.
type Compiled struct {
	// Modules are keyed by file name; do not modify.
	Modules map[string]*ast.Module
	// Compiler has compiled Modules; use it read-only.
	Compiler *ast.Compiler
}

// compileSubset compiles the cross-resource rules or the others, with the
// library modules they may import: lib/lib.rego for both, lib/xref.rego,
// which reads the inventory, for the cross-resource rules only.
func compileSubset(cross bool) (*Compiled, error) {
	modules, err := Parsed()
	if err != nil {
		return nil, err
	}
	subset := map[string]*ast.Module{}
	for name, m := range modules {
		if ReadsInventory(name, m) == cross || name == libModule {
			subset[name] = m // the compiler copies the modules it is given
		}
	}
	return compile(subset)
}

// compiles counts the compiles this process ran.
var compiles atomic.Int32

// Compiles is how many compiles of the built-in rules this process has run
// (a test checks that predict and version run none).
func Compiles() int { return int(compiles.Load()) }

func compile(modules map[string]*ast.Module) (*Compiled, error) {
	compiles.Add(1)
	c := NewCompiler().WithSkipStages(checkOnlyStages...)
	c.Compile(modules)
	if c.Failed() {
		return &Compiled{Modules: modules, Compiler: c}, c.Errors
	}
	return &Compiled{Modules: modules, Compiler: c}, nil
}

// checkOnlyStages are the compiler's stages that only check the modules
// (types, conflicts, recursion, undefined functions, unsafe or deprecated
// built-ins, ...) and change nothing evaluation uses. The shared compiles
// of the embedded rules skip them, a quarter of the compile a run waits
// for: the embedded rules cannot change after the build, and
// TestBuiltinRulesPassEveryCheck compiles them with every stage. User
// policies, compiled with the rules (rules.New), get every check.
var checkOnlyStages = []ast.StageID{
	ast.StageCheckUnusedImports, ast.StageCheckKeywordOverrides, ast.StageCheckDuplicateImports,
	ast.StageCheckVoidCalls, ast.StageCheckRuleConflicts, ast.StageCheckUndefinedFuncs,
	ast.StageCheckSafetyRuleHeads, ast.StageCheckRecursion, ast.StageCheckTypes,
	ast.StageCheckUnsafeBuiltins, ast.StageCheckDeprecatedBuiltins, ast.StageBuildRequiredCapabilities,
}

// libModule is the library every rule may import; xrefModule is the
// cross-resource library, which reads the inventory.
const (
	libModule  = "lib/lib.rego"
	xrefModule = "lib/xref.rego"
)

var (
	xrefPackage      = ast.MustParseRef("data.kubectl_workload.lib.xref")
	inventoryPackage = ast.MustParseRef("data.kubectl_workload.inventory")
)

// ReadsInventory reports whether the parsed built-in module name can read
// the inventory of the run, and so runs in the second pass: it is the
// cross-resource library, or it imports it or refers to the inventory.
// (A test checks this against what the compiled rules depend on.)
func ReadsInventory(name string, m *ast.Module) bool {
	if name == xrefModule {
		return true
	}
	for _, imp := range m.Imports {
		if ref, ok := imp.Path.Value.(ast.Ref); ok && (ref.HasPrefix(xrefPackage) || ref.HasPrefix(inventoryPackage)) {
			return true
		}
	}
	found := false
	ast.WalkRefs(m, func(ref ast.Ref) bool {
		if ref.HasPrefix(xrefPackage) || ref.HasPrefix(inventoryPackage) {
			found = true
		}
		return found
	})
	return found
}

// Warm starts the shared compiles in the background, the first pass's rules
// (Local) and the cross-resource rules (Cross) side by side, and returns at
// once: lint calls it before it loads its inputs, so that the compiles
// overlap the loading (which waits for neither). Commands that
// evaluate no rule (predict, version) never call it and compile nothing.
//
// It is called from main's goroutine, after every package init: OPA's global
// maps of interned terms and built-ins, which topdown's inits write
// (ast.InternStringTerm) and which the compile reads, are complete by then.
func Warm() {
	go func() { _, _ = Local() }()
	go func() { _, _ = Cross() }()
}
