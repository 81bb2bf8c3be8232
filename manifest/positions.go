package manifest

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// positions maps a canonical field path to the position of its key (for a
// mapping entry) or of the element itself (for a sequence element).
//
// The canonical path is built one segment at a time: a mapping key that is a
// plain identifier becomes ".key" (no dot at the start), any other key or a
// sequence index becomes "[key]". A path in the API server's notation, where a
// struct field is ".name" and a map key is "[key]", canonicalizes to the same
// string, because canonicalization depends only on each segment's text. A node
// is either a mapping or a sequence, so "[0]" never means both at once.
type positions map[string]Pos

// isIdent reports whether a key prints as a .field segment.
func isIdent(key string) bool {
	if key == "" {
		return false
	}
	for i, r := range key {
		switch {
		case r == '_' || r == '$' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'):
		case i > 0 && ('0' <= r && r <= '9'):
		default:
			return false
		}
	}
	return true
}

// appendKey extends a canonical path by a mapping key.
func appendKey(parent, key string) string {
	if isIdent(key) {
		if parent == "" {
			return key
		}
		return parent + "." + key
	}
	return parent + "[" + key + "]"
}

// appendIndex extends a canonical path by a sequence index.
func appendIndex(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// splitFieldPath splits a path in the API server's notation into its segments:
// "spec.containers[0].env[FOO]" gives spec, containers, 0, env, FOO.
func splitFieldPath(path string) []string {
	var segs []string
	for i := 0; i < len(path); {
		switch path[i] {
		case '.':
			i++
		case '[':
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				segs = append(segs, path[i+1:])
				return segs
			}
			segs = append(segs, path[i+1:i+end])
			i += end + 1
		default:
			end := strings.IndexAny(path[i:], ".[")
			if end < 0 {
				segs = append(segs, path[i:])
				return segs
			}
			segs = append(segs, path[i:i+end])
			i += end
		}
	}
	return segs
}

// lookup finds the position of path, or of its nearest existing ancestor. The
// object's own start stands for the empty path.
func (p positions) lookup(path string, start Pos) (Pos, bool) {
	if path == "" || path == "<nil>" {
		return start, true
	}
	segs := splitFieldPath(path)
	canon := make([]string, len(segs))
	c := ""
	for i, s := range segs {
		c = appendKey(c, s) // an index canonicalizes as a non-identifier key: [0]
		canon[i] = c
	}
	for i := len(canon) - 1; i >= 0; i-- {
		if pos, ok := p[canon[i]]; ok {
			return pos, i == len(canon)-1
		}
	}
	return start, false
}

// walker records positions and duplicate keys of one object's node tree.
type walker struct {
	pos        positions
	lineOffset int
	dups       []DuplicateKey
}

func (w *walker) at(n *yaml.Node) Pos {
	return Pos{Line: n.Line + w.lineOffset, Column: n.Column}
}

// walk visits n, whose canonical path is path. Aliases are not followed: their
// content stands at the anchor, and following them could explode in size.
func (w *walker) walk(n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			w.walk(c, path)
		}
	case yaml.MappingNode:
		seen := make(map[string]Pos, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			child := appendKey(path, k.Value)
			here := w.at(k)
			if first, dup := seen[k.Value]; dup && k.Value != "<<" {
				w.dups = append(w.dups, DuplicateKey{Field: child, Pos: here, First: first})
			}
			seen[k.Value] = here
			w.pos[child] = here
			w.walk(v, child)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			child := appendIndex(path, i)
			w.pos[child] = w.at(c)
			w.walk(c, child)
		}
	}
}

// mappingValue returns the value node of key in mapping m, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	var found *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == key {
			found = m.Content[i+1] // the last one wins, as in kubectl
		}
	}
	return found
}
