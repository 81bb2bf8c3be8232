package config

import (
	"fmt"
	"strings"
	"sync"

	"github.com/kubectl-workload/kubectl-workload/internal/globmatch"
)

// A configuration file holds two sorts of pattern, both in gobwas/glob's
// syntax ("*", "?", "[a-z]", "[!a]", "{a,b}", "\" escapes), matched by
// internal/globmatch in time linear in the text (gobwas/glob's own matcher
// takes exponential time on "{a,a}" forty times then "[b]"):
//
//   - Name patterns (rule ids, kinds, namespaces, names, containers) have no
//     separator: "*" matches any run of characters, "/" included, so
//     rules.disable: ["*"] disables every rule and "pss/*" every pss rule.
//   - Path patterns (exclude) have "/" as their separator: "*" and "?" stop
//     at it, "**" crosses it, and "**/" also matches no directory at all, as
//     in shells' globstar ("**/gen/*.yaml" matches "gen/a.yaml").

// patternKind says which sort a pattern is, for the compile cache.
type patternKind int

const (
	namePattern patternKind = iota
	pathPattern
)

type patternKey struct {
	kind    patternKind
	pattern string
}

// compiled holds every pattern compiled so far, by kind and text: a pattern
// is compiled once per process, as ExcludedBy asks for every file of a run
// and Exempt for every finding. It holds *globmatch.Glob values only.
var compiled sync.Map

// matchName reports whether a name pattern matches s; a pattern that does
// not compile matches nothing (Load rejects it before any match).
func matchName(pattern, s string) bool {
	g, err := compilePattern(namePattern, pattern)
	return err == nil && g.Match(s)
}

// compilePattern compiles pattern as kind, once.
func compilePattern(kind patternKind, pattern string) (*globmatch.Glob, error) {
	key := patternKey{kind, pattern}
	if g, ok := compiled.Load(key); ok {
		return g.(*globmatch.Glob), nil
	}
	var (
		g   *globmatch.Glob
		err error
	)
	switch kind {
	case pathPattern:
		g, err = globmatch.Compile(globstar(pattern), '/')
	default:
		g, err = globmatch.Compile(pattern)
	}
	if err != nil {
		return nil, err
	}
	compiled.Store(key, g)
	return g, nil
}

// globstar rewrites each "**/" of a path pattern outside a class or an
// escape as "{**/,}", so that it also matches no directory: gobwas/glob's
// "**" is a "*" that crosses separators, and its "a/**/b" needs two
// slashes, where users of .gitignore and shells expect it to match "a/b".
func globstar(pattern string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			b.WriteByte(c)
			i++
			b.WriteByte(pattern[i])
			continue
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case strings.HasPrefix(pattern[i:], "**/"):
			b.WriteString("{**/,}")
			i += 2
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// checkNamePattern returns why a name pattern is wrong, or nil.
func checkNamePattern(pattern string) error {
	if _, err := compilePattern(namePattern, pattern); err != nil {
		return fmt.Errorf("bad pattern %q: %w", pattern, err)
	}
	return nil
}

// checkPathPattern returns why an exclude pattern is wrong: it does not
// compile, or it can match no path lint is given. Lint matches cleaned
// paths (filepath.Clean), which never end in "/", hold no "//" and no "."
// segment; a pattern with one of those matches nothing, silently, so it is
// an error that says what to write instead.
func checkPathPattern(pattern string) error {
	if pattern == "" {
		return fmt.Errorf("empty pattern matches no path")
	}
	if _, err := compilePattern(pathPattern, pattern); err != nil {
		return fmt.Errorf("bad pattern %q: %w", pattern, err)
	}
	if strings.HasSuffix(pattern, "/") {
		return fmt.Errorf("pattern %q ends in \"/\" and matches no file; write %q for everything under it", pattern, pattern+"**")
	}
	segments := strings.Split(pattern, "/")
	for i, s := range segments {
		switch {
		case s == "" && i > 0:
			return fmt.Errorf("pattern %q holds \"//\" and matches no path; write one \"/\"", pattern)
		case s == ".":
			return fmt.Errorf("pattern %q holds a \".\" segment and matches no path (paths are cleaned); write %q", pattern, strings.Join(dropDots(segments), "/"))
		}
	}
	return nil
}

func dropDots(segments []string) []string {
	var out []string
	for _, s := range segments {
		if s != "." {
			out = append(out, s)
		}
	}
	return out
}
