package bench

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// Mix is the shape of a directory of manifests: how many objects a file
// holds and which kinds, with their sizes. RepoShaped's weights and sizes
// come from the Mix of the real-world corpus (cmd bench/corpusmix prints it,
// TestRepoShapedFollowsRealWorldMix compares).
type Mix struct {
	// Files is the number of files holding at least one object.
	Files int
	// Objects is the number of objects (List items counted one by one).
	Objects int
	// ByKind counts the objects of each kind.
	ByKind map[string]int
	// JSONBytes sums the JSON size of the objects of each kind.
	JSONBytes map[string]int
	// Namespaced counts the objects that name a namespace.
	Namespaced int
}

// MeasureMix loads every manifest under dir with lint's own loader and
// returns its Mix.
func MeasureMix(dir string) (Mix, error) {
	if _, err := os.Stat(dir); err != nil {
		return Mix{}, fmt.Errorf("measuring the mix of %s: %w", dir, err)
	}
	set := manifest.Load([]string{dir}, strings.NewReader(""))
	m := Mix{ByKind: map[string]int{}, JSONBytes: map[string]int{}}
	files := map[string]bool{}
	for _, o := range set.Objects {
		files[o.File] = true
		m.Objects++
		m.ByKind[o.Kind]++
		m.JSONBytes[o.Kind] += len(o.JSON)
		if o.Namespace != "" {
			m.Namespaced++
		}
	}
	m.Files = len(files)
	return m, nil
}

// PerFile is the mean number of objects a file holds.
func (m Mix) PerFile() float64 {
	if m.Files == 0 {
		return 0
	}
	return float64(m.Objects) / float64(m.Files)
}

// Share is the fraction of the objects among kinds that are of kind k.
func (m Mix) Share(k string, kinds []string) float64 {
	total := 0
	for _, kk := range kinds {
		total += m.ByKind[kk]
	}
	if total == 0 {
		return 0
	}
	return float64(m.ByKind[k]) / float64(total)
}

// Print writes the mix as a table, kinds by count.
func (m Mix) Print(w io.Writer) {
	fmt.Fprintf(w, "%d objects in %d files: %.2f objects per file; %d name a namespace\n", m.Objects, m.Files, m.PerFile(), m.Namespaced)
	kinds := make([]string, 0, len(m.ByKind))
	for k := range m.ByKind {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if m.ByKind[kinds[i]] != m.ByKind[kinds[j]] {
			return m.ByKind[kinds[i]] > m.ByKind[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	for _, k := range kinds {
		fmt.Fprintf(w, "%-32s %5d  %5.1f%%  mean JSON %5d bytes\n", k, m.ByKind[k],
			100*float64(m.ByKind[k])/float64(m.Objects), m.JSONBytes[k]/m.ByKind[k])
	}
}
