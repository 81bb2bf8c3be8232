package manifest

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Limits on one input. They keep a hostile or broken file (a YAML alias
// bomb, a file of 100 MB, a document nested 10,000 levels deep, a stream of
// 100,000 documents) from exhausting memory or time; no real manifest comes
// near them. A file or document over a limit is a LimitExceeded problem at
// its file and line, and is not linted; every other file is.
const (
	// MaxFileSize is the largest file (or standard input) read, in bytes.
	// The API server takes requests of at most 3 MiB, so no file of objects
	// meant for it needs more than a few; a larger file is not read at all.
	MaxFileSize = 16 << 20
	// MaxDocuments is the most YAML documents or JSON values one file may
	// hold. A file with more is not linted.
	MaxDocuments = 10_000
	// MaxDepth is the deepest nesting of mappings and sequences one document
	// may have. Workload manifests nest about 15 levels, CRD schemas rarely
	// 60. A deeper document is not linted.
	MaxDepth = 256
	// MaxAliasExpansion is the most nodes YAML aliases may add to one file
	// once expanded: each alias adds the size of what its anchor names,
	// aliases inside it expanded too. kubectl expands every alias before it
	// sends an object; a billion-laughs document of a few hundred bytes would
	// expand to gigabytes. Once a file's aliases have used up the allowance,
	// every further document of it that holds an alias is not linted.
	MaxAliasExpansion = 100_000
)

// LimitExceeded is the ProblemKind of a file or document over one of the
// limits above.
const LimitExceeded ProblemKind = "limit-exceeded"

// aliasBudget counts the nodes aliases have added in one file.
type aliasBudget struct{ used int }

// shape measures one parsed YAML document: how deep it nests, and how many
// nodes its aliases add once expanded, without expanding anything.
type shape struct {
	budget *aliasBudget
	// expanded memoizes the expanded size and depth of anchored nodes.
	expanded map[*yaml.Node][2]int
	// deep is the first node beyond MaxDepth; alias the first alias that
	// took the file over MaxAliasExpansion.
	deep, alias *yaml.Node
}

// checkShape returns a LimitExceeded problem message and the node it is
// about when the document nests too deeply or its aliases expand too far.
func checkShape(root *yaml.Node, budget *aliasBudget) (string, *yaml.Node) {
	s := &shape{budget: budget, expanded: map[*yaml.Node][2]int{}}
	s.visit(root, 0, false)
	switch {
	case s.deep != nil:
		return fmt.Sprintf("document nests more than %d levels deep (manifest.MaxDepth); it is not linted", MaxDepth), s.deep
	case s.alias != nil:
		return fmt.Sprintf("YAML aliases in this file expand to more than %d nodes (manifest.MaxAliasExpansion), which looks like an alias bomb; the document is not linted",
			MaxAliasExpansion), s.alias
	}
	return "", nil
}

// visit walks n at the given depth. It returns the number of nodes n stands
// for once aliases are expanded, and the depth of its subtree. inAlias is set
// below an alias, where sizes are only measured (the budget is charged once,
// at the alias).
func (s *shape) visit(n *yaml.Node, depth int, inAlias bool) (size, height int) {
	if n == nil || s.deep != nil || s.alias != nil {
		return 0, 0
	}
	switch n.Kind {
	case yaml.AliasNode:
		target := n.Alias
		if target == nil {
			return 1, 0
		}
		m, ok := s.expanded[target]
		if !ok {
			s.expanded[target] = [2]int{1, 0} // an alias inside its own anchor counts once
			sz, h := s.visit(target, 0, true)
			m = [2]int{sz, h}
			s.expanded[target] = m
		}
		if depth+m[1] > MaxDepth && s.deep == nil {
			s.deep = n
		}
		if !inAlias {
			s.budget.used += m[0]
			if s.budget.used > MaxAliasExpansion && s.alias == nil {
				s.alias = n
			}
		}
		return m[0], m[1]
	case yaml.MappingNode, yaml.SequenceNode:
		if depth+1 > MaxDepth {
			if s.deep == nil {
				s.deep = n
			}
			return 1, 1
		}
		size, height = 1, 0
		for _, c := range n.Content {
			sz, h := s.visit(c, depth+1, inAlias)
			// Saturate: sizes only matter up to the limit.
			size = min(size+sz, MaxAliasExpansion+1)
			height = max(height, h)
		}
		return size, height + 1
	default: // DocumentNode, ScalarNode
		size = 1
		for _, c := range n.Content {
			sz, h := s.visit(c, depth, inAlias)
			size = min(size+sz, MaxAliasExpansion+1)
			height = max(height, h)
		}
		return size, height
	}
}

// jsonDepth returns the byte offset in a JSON value where its nesting first
// goes beyond MaxDepth, or -1.
func jsonDepth(raw []byte) int {
	depth := 0
	inString, escaped := false, false
	for i, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > MaxDepth {
				return i
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return -1
}
