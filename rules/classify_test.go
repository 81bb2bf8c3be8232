package rules

import (
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kubectl-workload/kubectl-workload/rules/compiled"
)

// TestReadsInventoryMatchesCompiledDependencies checks the static split of
// the built-in rules (compiled.ReadsInventory, which decides what the first
// pass compiles) against what the compiled rules depend on: a rule reads
// the inventory if any rule or function it calls, however indirectly, does.
// It also checks that each half's compile holds its rules and no other.
func TestReadsInventoryMatchesCompiledDependencies(t *testing.T) {
	modules, err := compiled.Parsed()
	if err != nil {
		t.Fatal(err)
	}
	full, err := compiled.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	local, err := compiled.Local()
	if err != nil {
		t.Fatal(err)
	}
	cross, err := compiled.Cross()
	if err != nil {
		t.Fatal(err)
	}
	nCross := 0
	for name, m := range modules {
		if !strings.HasPrefix(name, "builtin/") {
			continue
		}
		pkg := m.Package.Path.String()
		static := compiled.ReadsInventory(name, m)
		if dynamic := dependsOnInventory(full.Compiler, pkg); static != dynamic {
			t.Errorf("%s: ReadsInventory = %v, but the compiled rules say %v", name, static, dynamic)
		}
		if static {
			nCross++
		}
		ref := ast.MustParseRef(pkg)
		inLocal, inCross := len(local.Compiler.GetRulesDynamicWithOpts(ref, ast.RulesOptions{})) > 0, len(cross.Compiler.GetRulesDynamicWithOpts(ref, ast.RulesOptions{})) > 0
		if inLocal == static || inCross != static {
			t.Errorf("%s: in the local compile %v, in the cross-resource compile %v; it reads the inventory: %v", name, inLocal, inCross, static)
		}
	}
	if nCross == 0 {
		t.Error("no built-in rule reads the inventory: the split finds nothing")
	}
}

// inventoryRef is where the inventory is in data.
var inventoryRef = ast.MustParseRef("data.kubectl_workload.inventory")

// dependsOnInventory reports whether any rule of package pkg reads
// data.kubectl_workload.inventory, directly or through the rules and
// functions it calls. Refs are followed through the compiled modules, where
// imports are already resolved to full data paths.
func dependsOnInventory(c *ast.Compiler, pkg string) bool {
	seen := map[*ast.Rule]bool{}
	var visit func(r *ast.Rule) bool
	visit = func(r *ast.Rule) bool {
		if seen[r] {
			return false
		}
		seen[r] = true
		found := false
		ast.WalkRefs(r, func(ref ast.Ref) bool {
			if found || len(ref) == 0 || !ref[0].Equal(ast.DefaultRootDocument) {
				return found
			}
			prefix := ref.GroundPrefix()
			if prefix.HasPrefix(inventoryRef) || inventoryRef.HasPrefix(prefix) {
				found = true
				return true
			}
			for _, dep := range c.GetRules(prefix) {
				if visit(dep) {
					found = true
					return true
				}
			}
			return false
		})
		return found
	}
	for _, m := range c.Modules {
		if m.Package.Path.String() != pkg {
			continue
		}
		for _, r := range m.Rules {
			if visit(r) {
				return true
			}
		}
	}
	return false
}

// TestInventoryReadByInputNamespaceOnly checks what lets the second pass
// index and evaluate a namespace at a time (lint's batches): the built-in
// rules and their library read the inventory only as
// data.kubectl_workload.inventory.namespaces[input.namespace], and no ref
// reaches into data.kubectl_workload with a variable before "inventory".
func TestInventoryReadByInputNamespaceOnly(t *testing.T) {
	modules, err := compiled.Parsed()
	if err != nil {
		t.Fatal(err)
	}
	inventory := ast.MustParseRef("data.kubectl_workload.inventory")
	allowed := ast.MustParseRef("data.kubectl_workload.inventory.namespaces[input.namespace]")
	reads := 0
	for name, m := range modules {
		ast.WalkRefs(m, func(ref ast.Ref) bool {
			if !ref.HasPrefix(ast.DefaultRootRef) {
				return false
			}
			if ref.HasPrefix(inventory) {
				reads++
				if !ref.HasPrefix(allowed) {
					t.Errorf("%s reads the inventory as %v, not through the input's namespace", name, ref)
				}
				return false
			}
			if gp := ref.GroundPrefix(); len(gp) < len(ref) && inventory.HasPrefix(gp) {
				t.Errorf("%s: %v may reach the inventory through a variable", name, ref)
			}
			return false
		})
	}
	if reads == 0 {
		t.Error("no module reads the inventory: the check found nothing to check")
	}
}
