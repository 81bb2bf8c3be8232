package lint

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// jsonFields is shallowFields's other way: the JSON's paths, each looked
// up in the tree.
func jsonFields(obj *manifest.Object) []shallowField {
	var out []shallowField
	for _, p := range shallowPaths(obj.JSON) {
		if pos, exact := obj.Position(p); exact {
			out = append(out, shallowField{path: p, pos: pos})
		}
	}
	return out
}

// TestTreeFieldsMatchJSON checks that the fields read from the node tree
// (treeFields) are, path for path and position for position, those the
// JSON's paths give looked up one by one, on the rule fixtures, the
// examples, the rendered real-world corpus, the real-world corpus and
// documents written to differ between the two (where the tree must not
// answer).
func TestTreeFieldsMatchJSON(t *testing.T) {
	odd := filepath.Join(t.TempDir(), "odd.yaml")
	if err := os.WriteFile(odd, []byte(`apiVersion: v1
kind: Service
metadata:
  name: plain
  "a.b": quoted key with a dot
  "": empty key
spec:
  ports:
  - port: 80
    targetPort: http
  - {port: 81, targetPort: 8081}
---
apiVersion: v1
kind: Pod
metadata: {name: probes}
spec:
  containers:
  - name: a
    readinessProbe: null
  - name: b
    readinessProbe: {}
  - name: c
    readinessProbe:
  - name: d
  - just a string
  initContainers: []
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: anchored
  labels: &l {app: x}
spec:
  selector: {matchLabels: *l}
  template:
    metadata: {labels: *l}
    spec:
      affinity: {}
      containers: [{name: a, image: x}]
---
apiVersion: v1
kind: Service
metadata:
  name: numeric
  1: one
spec:
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata:
  name: bracket
  "a]b": x
---
apiVersion: v1
kind: ConfigMap
metadata: {name: merge}
data:
  <<: {a: b}
  c: d
`), 0o600); err != nil {
		t.Fatal(err)
	}
	paths := []string{"../rules/testdata", "../examples", "../test/realworld/rendered", odd, "../../shared/corpus/real-world"}
	if _, err := os.Stat(paths[4]); err != nil {
		paths = paths[:4] // the corpus lives beside the checkout
	}
	set := manifest.Load(paths, nil)
	fromTree, fromJSON := 0, 0
	for _, obj := range set.Objects {
		want := jsonFields(obj)
		node, lineOffset, ok := obj.Tree()
		if ok {
			if _, ok = treeFields(node, lineOffset, nil); ok {
				fromTree++
				// shallowFields answers from the tree, sorted.
				if got := shallowFields(obj, nil); !slices.Equal(got, want) {
					t.Errorf("%s %s: fields from the tree\n%v\nwant those from the JSON\n%v", obj.File, obj.Ref(), got, want)
				}
				continue
			}
		}
		fromJSON++
		if got := shallowFields(obj, nil); !slices.Equal(got, want) {
			t.Errorf("%s %s: shallowFields = %v, want %v", obj.File, obj.Ref(), got, want)
		}
		if obj.File == odd && obj.Name == "plain" || obj.Name == "probes" {
			t.Errorf("%s %s: the tree did not answer, want it to", obj.File, obj.Ref())
		}
	}
	// The anchored, numeric, bracket and merge documents are the JSON's to
	// answer; the rest of the inputs mostly the tree's.
	if fromJSON < 4 || fromTree < 10*fromJSON {
		t.Errorf("objects read from the tree %d, from the JSON %d: want at least 4 from the JSON and ten times as many from the tree", fromTree, fromJSON)
	}
}
