package lint

import (
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/slab"
	"github.com/kubectl-workload/kubectl-workload/manifest"
)

func TestShallowIndexLookup(t *testing.T) {
	known := map[string]manifest.Pos{
		"metadata":                 {Line: 3, Column: 1},
		"metadata.labels":          {Line: 5, Column: 3},
		"metadata.name":            {Line: 4, Column: 3},
		"spec":                     {Line: 8, Column: 1},
		"spec.selector":            {Line: 9, Column: 3},
		"spec[odd key]":            {Line: 12, Column: 3},
		"spec.template":            {Line: 14, Column: 3},
		"status.conditions.absent": {}, // asked for, not found exactly: left out
	}
	paths := []string{"metadata", "metadata.labels", "metadata.name", "spec", "spec.selector", "spec.template", "spec[odd key]", "status.conditions.absent"}
	start := manifest.Pos{Line: 2, Column: 1}
	for _, s := range []*slab.Slab{slab.New(), nil} {
		idx := newShallowIndex(start, paths, func(p string) (manifest.Pos, bool) {
			pos, ok := known[p]
			return pos, ok && pos.Line > 0
		}, s)
		checkLookups(t, idx, start)
	}
	var empty shallowIndex
	if got := empty.lookup("spec.selector"); got != (manifest.Pos{}) {
		t.Errorf("empty index: lookup = %v, want the zero position", got)
	}
}

func checkLookups(t *testing.T, idx shallowIndex, start manifest.Pos) {
	t.Helper()
	for _, tt := range []struct {
		path string
		want manifest.Pos
	}{
		{"metadata.name", manifest.Pos{Line: 4, Column: 3}},
		{"metadata", manifest.Pos{Line: 3, Column: 1}},
		{"metadata.labels[app.kubernetes.io/name]", manifest.Pos{Line: 5, Column: 3}},
		{"spec.selector.matchLabels.app", manifest.Pos{Line: 9, Column: 3}},
		{"spec[odd key]", manifest.Pos{Line: 12, Column: 3}},
		{"spec.template.spec.containers[0].image", manifest.Pos{Line: 14, Column: 3}},
		{"spec.replicas", manifest.Pos{Line: 8, Column: 1}},
		{"spec.sel", manifest.Pos{Line: 8, Column: 1}}, // a prefix of a path is not that path
		{"status.conditions.absent", start},
		{"kind", start},
		{"", start},
	} {
		if got := idx.lookup(tt.path); got != tt.want {
			t.Errorf("lookup(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
