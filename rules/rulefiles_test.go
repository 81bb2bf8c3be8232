package rules_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// isRuleFile reports whether name is a rule's own file: one rule, its
// check and its private helpers.
func isRuleFile(name string) bool {
	return strings.HasPrefix(name, "cross_") || strings.HasPrefix(name, "object_")
}

// isCatalogueFile reports whether name lists the rules: the one place
// that names each rule file's rule.
func isCatalogueFile(name string) bool { return strings.HasPrefix(name, "catalogue_") }

// TestRuleFilesStandAlone fails when a rule file (cross_*.go, object_*.go)
// uses an identifier or a method that another rule file defines, or when
// any other file but the catalogue files (which list each rule's
// entry) does: helpers shared by several rules live in the support files
// (support*.go), so that a rule can be read, and deleted, alone.
func TestRuleFilesStandAlone(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	definedIn := map[string]string{} // package-level name -> its rule file
	methodIn := map[string]string{}  // method name -> its rule file
	rules := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed[name] = f
		if !isRuleFile(name) {
			continue
		}
		rules++
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					methodIn[d.Name.Name] = name
				} else {
					definedIn[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						definedIn[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							definedIn[n.Name] = name
						}
					}
				}
			}
		}
	}
	if rules < 50 {
		t.Fatalf("only %d rule files found: the test reads the wrong directory", rules)
	}
	var arrows []string
	for name, f := range parsed {
		seen := map[string]bool{}
		use := func(id, from string) {
			if from == "" || from == name || seen[id] {
				return
			}
			if isCatalogueFile(name) && strings.HasSuffix(id, "Rule") {
				return // the catalogue lists the rule's entry
			}
			seen[id] = true
			arrows = append(arrows, name+" uses "+id+" from "+from)
		}
		// Unresolved identifiers are the package-level names the file does
		// not declare itself.
		for _, id := range f.Unresolved {
			use(id.Name, definedIn[id.Name])
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if se, ok := n.(*ast.SelectorExpr); ok {
				use("."+se.Sel.Name, methodIn[se.Sel.Name])
			}
			return true
		})
	}
	sort.Strings(arrows)
	for _, a := range arrows {
		t.Error(a + ": move it to a support file")
	}
}
