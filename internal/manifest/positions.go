package manifest

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Positions are found on demand, in the object's YAML node tree, from a
// path in the API server's notation (lookup). The tree is the object's, not
// a copy; an Object keeps it only while it is linted.
//
// A path segment names a mapping key or a sequence index alike: a struct
// field is ".name", a map key "[key]" and an index "[0]", and a node is
// either a mapping or a sequence, so a segment's text is all that matters.

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

// lookup finds the position of path in the node tree n (the object's
// mapping), or of its nearest existing ancestor; the object's own start
// stands for the empty path. A mapping key's position is the key's; a
// sequence element's is the element's. The last of a repeated key counts,
// as in kubectl, and aliases are not followed (their content stands at the
// anchor).
func lookup(n *yaml.Node, lineOffset int, path string, start Pos) (Pos, bool) {
	if path == "" || path == "<nil>" || n == nil {
		return start, path == "" || path == "<nil>"
	}
	best := start
	segs := splitFieldPath(path)
	for i, seg := range segs {
		var at, next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				if k := n.Content[j]; k.Kind == yaml.ScalarNode && k.Value == seg {
					at, next = k, n.Content[j+1]
				}
			}
		case yaml.SequenceNode:
			if idx, err := strconv.Atoi(seg); err == nil && idx >= 0 && idx < len(n.Content) && strconv.Itoa(idx) == seg {
				at = n.Content[idx]
				next = at
			}
		}
		if at == nil {
			return best, false
		}
		best = Pos{Line: at.Line + lineOffset, Column: at.Column}
		if i == len(segs)-1 {
			return best, true
		}
		n = next
	}
	return best, false
}

// segment is one step of the path to a node: a mapping key, or a sequence
// index when isIndex.
type segment struct {
	key     string
	index   int
	isIndex bool
}

// smallMapping is the size up to which dupFinder scans a mapping's earlier
// keys instead of indexing them.
const smallMapping = 16

// dupFinder finds the keys that appear twice in one mapping of an object's
// node tree. It keeps the path as segments and writes it out only for a
// duplicate.
type dupFinder struct {
	lineOffset int
	path       []segment
	dups       []DuplicateKey
}

func (d *dupFinder) at(n *yaml.Node) Pos {
	return Pos{Line: n.Line + d.lineOffset, Column: n.Column}
}

// pathTo renders the current path extended by key in the API server's
// notation.
func (d *dupFinder) pathTo(key string) string {
	p := ""
	for _, s := range d.path {
		if s.isIndex {
			p = appendIndex(p, s.index)
		} else {
			p = appendKey(p, s.key)
		}
	}
	return appendKey(p, key)
}

// walk visits n. Aliases are not followed: their content stands at the
// anchor, and following them could explode in size.
func (d *dupFinder) walk(n *yaml.Node) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			d.walk(c)
		}
	case yaml.MappingNode:
		// The latest earlier occurrence of a key is the one it overrides:
		// found by a scan in a small mapping, through a map in a big one.
		var seen map[string]*yaml.Node
		if len(n.Content) > 2*smallMapping {
			seen = make(map[string]*yaml.Node, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			var prev *yaml.Node
			if seen != nil {
				prev = seen[k.Value]
				seen[k.Value] = k
			} else {
				for j := i - 2; j >= 0; j -= 2 {
					if c := n.Content[j]; c.Kind == yaml.ScalarNode && c.Value == k.Value {
						prev = c
						break
					}
				}
			}
			if prev != nil && k.Value != "<<" {
				d.dups = append(d.dups, DuplicateKey{Field: d.pathTo(k.Value), Pos: d.at(k), First: d.at(prev)})
			}
			d.path = append(d.path, segment{key: k.Value})
			d.walk(v)
			d.path = d.path[:len(d.path)-1]
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			d.path = append(d.path, segment{index: i, isIndex: true})
			d.walk(c)
			d.path = d.path[:len(d.path)-1]
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

// SplitFieldPath splits a path in the API server's notation into its
// segments: "spec.containers[0].env[FOO]" gives spec, containers, 0, env,
// FOO.
func SplitFieldPath(path string) []string { return splitFieldPath(path) }

// Tree returns the object's mapping in its YAML node tree and what turns
// the tree's lines into the file's (a node at tree line l stands at file
// line l+lineOffset), for a caller that reads many positions at once from
// the tree as Position reads one. ok is false where Position does not read
// the tree alone: an object built without one, one relocated to its source
// (Rendered), and one with a repeated key (Position takes the last).
func (o *Object) Tree() (node *yaml.Node, lineOffset int, ok bool) {
	if o.node == nil || o.origin != nil || len(o.Duplicates) > 0 || o.node.Kind != yaml.MappingNode {
		return nil, 0, false
	}
	return o.node, o.lineOffset, true
}
