package config

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/globmatch"
)

// excludeIndex finds the exclude globs a path may match without trying
// each: a configuration of 30,000 excludes over 3,000 files would otherwise
// match 90 million times. Each glob is filed under its longer literal end:
// the text every path it matches starts with ("charts/app/*.yaml" under
// "charts/app/"), or the text every such path ends with ("**/gen.yaml"
// under "/gen.yaml" after the globstar rewrite, ".yaml" for
// "{**/,}x/*.yaml"); a pattern that is all literal text is looked up
// exactly. Only globs with neither end literal are tried on every path.
type excludeIndex struct {
	globs []*globmatch.Glob
	// exact maps a literal pattern to its indexes in globs.
	exact map[string][]int
	// prefixes and suffixes map a literal end to the globs filed under it;
	// prefixLens and suffixLens are the lengths they hold, ascending.
	prefixes, suffixes     map[string][]int
	prefixLens, suffixLens []int
	// rest are the globs tried on every path.
	rest []int
}

// newExcludeIndex compiles and files the exclude globs (those that do not
// compile are left out: Load rejects them).
func newExcludeIndex(patterns []string) *excludeIndex {
	x := &excludeIndex{
		globs:    make([]*globmatch.Glob, len(patterns)),
		exact:    map[string][]int{},
		prefixes: map[string][]int{},
		suffixes: map[string][]int{},
	}
	for i, p := range patterns {
		g, err := compilePattern(pathPattern, p)
		if err != nil {
			continue
		}
		x.globs[i] = g
		prefix, literal := g.Prefix()
		suffix := g.Suffix()
		switch {
		case literal:
			x.exact[prefix] = append(x.exact[prefix], i)
		case prefix != "" && len(prefix) >= len(suffix):
			x.prefixes[prefix] = append(x.prefixes[prefix], i)
		case suffix != "":
			x.suffixes[suffix] = append(x.suffixes[suffix], i)
		default:
			x.rest = append(x.rest, i)
		}
	}
	x.prefixLens = lengths(x.prefixes)
	x.suffixLens = lengths(x.suffixes)
	return x
}

func lengths(m map[string][]int) []int {
	seen := map[int]bool{}
	var out []int
	for k := range m {
		if !seen[len(k)] {
			seen[len(k)] = true
			out = append(out, len(k))
		}
	}
	slices.Sort(out)
	return out
}

// first returns the index of the first glob (in the file's order) that path
// or one of its suffixes starting at a directory boundary matches, or -1,
// and how many globs it tried.
func (x *excludeIndex) first(path string) (index, tried int) {
	p := filepath.ToSlash(filepath.Clean(path))
	var tails []string
	for q := p; ; {
		tails = append(tails, q)
		i := strings.IndexByte(q, '/')
		if i < 0 {
			break
		}
		q = q[i+1:]
	}
	candidates := slices.Clone(x.rest)
	for _, q := range tails {
		candidates = append(candidates, x.exact[q]...)
		for _, n := range x.prefixLens {
			if n > len(q) {
				break
			}
			candidates = append(candidates, x.prefixes[q[:n]]...)
		}
		for _, n := range x.suffixLens {
			if n > len(q) {
				break
			}
			candidates = append(candidates, x.suffixes[q[len(q)-n:]]...)
		}
	}
	slices.Sort(candidates)
	candidates = slices.Compact(candidates)
	for n, i := range candidates {
		for _, q := range tails {
			if x.globs[i].Match(q) {
				return i, n + 1
			}
		}
	}
	return -1, len(candidates)
}
