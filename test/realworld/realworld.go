// Package realworld reads the real-world corpus: charts and kustomize
// installs of public projects, rendered (rendered/, see SOURCES.md and
// hack/update-realworld.sh), and a real v1.37.1 API server's verdict on
// each of their objects (verdicts.json, recorded by the e2e test
// TestRealWorldVerdicts with -record-realworld).
package realworld

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// Dir is the corpus's directory, relative to the repository root.
const Dir = "test/realworld"

// Dir2 is the second corpus (issue 43): charts and installs of families
// Dir has none of, laid out as Dir (sources.txt, rendered/, verdicts.json),
// with split.txt putting each input in a tuning or a held-out half and
// review.tsv a reviewer's verdict on each distinct default finding
// (hack/realworld-review).
const Dir2 = "test/realworld2"

// VerdictsFile is the verdicts' file in Dir.
const VerdictsFile = "verdicts.json"

// Verdict is the API server's answer to kubectl create --dry-run=server
// --validate=strict for one object.
type Verdict struct {
	// File is the rendered file, relative to Dir; Document and Item place
	// the object in it as manifest does.
	File       string `json:"file"`
	Document   int    `json:"document"`
	Item       int    `json:"item"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	// Accepted is true when the server would create the object.
	Accepted bool `json:"accepted"`
	// Message is kubectl's error output for a rejection.
	Message string `json:"message,omitempty"`
	// Warnings are the server's warnings.
	Warnings []string `json:"warnings,omitempty"`
}

// Objects loads every object of the rendered files under dir, as lint
// loads them.
func Objects(dir string) ([]*manifest.Object, error) {
	files, err := filepath.Glob(filepath.Join(dir, "rendered", "*.yaml"))
	if err != nil {
		return nil, err
	}
	var objs []*manifest.Object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		set := manifest.Parse(f, data)
		if len(set.Problems) > 0 {
			return nil, fmt.Errorf("%s: %s", f, set.Problems[0].Message)
		}
		objs = append(objs, set.Objects...)
	}
	return objs, nil
}

// ReadVerdicts reads dir's verdicts.
func ReadVerdicts(dir string) ([]Verdict, error) {
	data, err := os.ReadFile(filepath.Join(dir, VerdictsFile))
	if err != nil {
		return nil, err
	}
	var vs []Verdict
	if err := json.Unmarshal(data, &vs); err != nil {
		return nil, fmt.Errorf("%s: %w", VerdictsFile, err)
	}
	return vs, nil
}

// Sort orders verdicts by file, document and item.
func Sort(vs []Verdict) {
	slices.SortFunc(vs, func(a, b Verdict) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Document, b.Document), cmp.Compare(a.Item, b.Item))
	})
}
