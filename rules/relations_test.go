package rules

import (
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestRelate checks the inventory's relations against hand-worked answers:
// matchLabels and every expression operator, Pods by their own labels,
// objects without pod labels, selectors upstream refuses, and identical
// lists shared.
func TestRelate(t *testing.T) {
	sel := func(ml map[string]any, exprs ...map[string]any) map[string]any {
		s := map[string]any{}
		if ml != nil {
			s["matchLabels"] = ml
		}
		if exprs != nil {
			l := []any{}
			for _, e := range exprs {
				l = append(l, e)
			}
			s["matchExpressions"] = l
		}
		return s
	}
	objects := map[string]entry{
		"Deployment/web":   {Kind: "Deployment", TemplateLabels: map[string]string{"app": "web", "tier": "front"}, Selector: sel(map[string]any{"app": "web"})},
		"Deployment/web2":  {Kind: "Deployment", TemplateLabels: map[string]string{"app": "web", "tier": "front"}, Selector: sel(map[string]any{"app": "web"})},
		"Deployment/api":   {Kind: "Deployment", TemplateLabels: map[string]string{"app": "api"}, Selector: sel(nil, map[string]any{"key": "app", "operator": "In", "values": []any{"api", "db"}})},
		"Pod/stray":        {Kind: "Pod", Labels: map[string]string{"app": "web"}},
		"Pod/bare":         {Kind: "Pod"},
		"Service/front":    {Kind: "Service", Selector: sel(map[string]any{"tier": "front"})},
		"Service/notweb":   {Kind: "Service", Selector: sel(nil, map[string]any{"key": "app", "operator": "NotIn", "values": []any{"web"}})},
		"PDB/all":          {Kind: "PodDisruptionBudget", Selector: sel(nil)},
		"PDB/has-tier":     {Kind: "PodDisruptionBudget", Selector: sel(nil, map[string]any{"key": "tier", "operator": "Exists"})},
		"PDB/no-tier":      {Kind: "PodDisruptionBudget", Selector: sel(nil, map[string]any{"key": "tier", "operator": "DoesNotExist"})},
		"PDB/bad-operator": {Kind: "PodDisruptionBudget", Selector: sel(nil, map[string]any{"key": "app", "operator": "Near", "values": []any{"web"}})},
		"PDB/in-nothing":   {Kind: "PodDisruptionBudget", Selector: sel(nil, map[string]any{"key": "app", "operator": "In"})},
		"PDB/bad-type":     {Kind: "PodDisruptionBudget", Selector: sel(map[string]any{"app": 1})},
		"ConfigMap/c":      {Kind: "ConfigMap"},
	}
	rel := relate(objects)
	show := func(v ast.Value) string {
		if v == nil {
			return "none"
		}
		return v.String()
	}
	wantSelects := map[string]string{
		"Deployment/web":   `["Deployment/web", "Deployment/web2", "Pod/stray"]`,
		"Deployment/web2":  `["Deployment/web", "Deployment/web2", "Pod/stray"]`,
		"Deployment/api":   `["Deployment/api"]`,
		"Service/front":    `["Deployment/web", "Deployment/web2"]`,
		"Service/notweb":   `["Deployment/api", "Pod/bare"]`,
		"PDB/all":          `["Deployment/api", "Deployment/web", "Deployment/web2", "Pod/bare", "Pod/stray"]`,
		"PDB/has-tier":     `["Deployment/web", "Deployment/web2"]`,
		"PDB/no-tier":      `["Deployment/api", "Pod/bare", "Pod/stray"]`,
		"PDB/bad-operator": "none",
		"PDB/in-nothing":   "none",
		"PDB/bad-type":     "none",
		"Pod/stray":        "none",
		"ConfigMap/c":      "none",
	}
	for key, want := range wantSelects {
		if got := show(rel.selects[key]); got != want {
			t.Errorf("selects of %s = %s, want %s", key, got, want)
		}
	}
	wantSelectedBy := map[string]string{
		"Deployment/web":   `["Deployment/web", "Deployment/web2", "PDB/all", "PDB/has-tier", "Service/front"]`,
		"Deployment/api":   `["Deployment/api", "PDB/all", "PDB/no-tier", "Service/notweb"]`,
		"Pod/stray":        `["Deployment/web", "Deployment/web2", "PDB/all", "PDB/no-tier"]`,
		"Pod/bare":         `["PDB/all", "PDB/no-tier", "Service/notweb"]`,
		"Service/front":    "none",
		"ConfigMap/c":      "none",
		"PDB/bad-operator": "none",
	}
	for key, want := range wantSelectedBy {
		if got := show(rel.selectedBy[key]); got != want {
			t.Errorf("selected_by of %s = %s, want %s", key, got, want)
		}
	}
	if fmt.Sprintf("%p", rel.selects["Deployment/web"]) != fmt.Sprintf("%p", rel.selects["Deployment/web2"]) {
		t.Error("identical selectors got lists of their own; they should share one")
	}
}
