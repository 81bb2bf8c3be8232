package apicheck

import (
	"context"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// TestCRDRuleCostRefused: a rule nesting all() four deep over an unbounded
// list is refused as the API server refuses the CRD at creation (its
// estimated cost is over the per-expression limit), quickly and with the
// server's words; the same rule over a list of at most 4 items, whose
// estimated cost is small, is accepted and runs.
func TestCRDRuleCostRefused(t *testing.T) {
	const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: nests.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: nests, singular: nest, kind: Nest, listKind: NestList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.items.all(a, self.items.all(b, self.items.all(c, self.items.all(d, a + b + c + d != 'xxxx'))))"
            properties:
              items:
                type: array
                MAXITEMS
                items: {type: string, MAXLENGTH}
`
	for _, tt := range []struct {
		name, maxItems, maxLength, want string
	}{
		{"unbounded", "", "", "estimated rule cost exceeds budget"},
		{"bounded", "maxItems: 4", "maxLength: 1", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Replace(strings.Replace(crd, "MAXITEMS", tt.maxItems, 1), ", MAXLENGTH", map[bool]string{true: ", " + tt.maxLength, false: ""}[tt.maxLength != ""], 1)
			js, err := yaml.YAMLToJSON([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			crds := NewCRDs()
			if err := crds.Add(js, "nest.yaml"); err != nil {
				t.Fatal(err)
			}
			obj, err := yaml.YAMLToJSON([]byte("apiVersion: example.com/v1\nkind: Nest\nmetadata: {name: n}\nspec: {items: [x, x, x, x]}"))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res := crds.CheckCustom(context.Background(), Object{APIVersion: "example.com/v1", Kind: "Nest", Name: "n", JSON: obj}, Options{})
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("CheckCustom took %s", d)
			}
			var got []string
			for _, is := range res.Issues {
				got = append(got, is.Message)
			}
			switch {
			case tt.want == "" && strings.Contains(strings.Join(got, "\n"), "cost"):
				t.Errorf("CheckCustom = %q, want no cost error", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want) || !strings.Contains(got[0], "nests.example.com (nest.yaml)")):
				t.Errorf("CheckCustom = %q, want one issue naming the CRD and containing %q", got, tt.want)
			}
		})
	}
}
