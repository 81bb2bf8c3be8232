package manifest

import (
	"go.yaml.in/yaml/v3"
)

// allPositions walks an object's whole node tree and records the position
// of every field under its canonical path (mapping keys as appendKey writes
// them, indices as appendIndex does), the last of a repeated key winning
// and aliases not followed: what lookup must find for each of those paths.
// The fuzz tests and TestLookupMatchesFullWalk use it as the oracle.
func allPositions(o *Object) map[string]Pos {
	out := map[string]Pos{}
	if o.node == nil {
		return out
	}
	at := func(n *yaml.Node) Pos { return Pos{Line: n.Line + o.lineOffset, Column: n.Column} }
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Kind != yaml.ScalarNode {
					continue
				}
				child := appendKey(path, k.Value)
				out[child] = at(k)
				walk(v, child)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				child := appendIndex(path, i)
				out[child] = at(c)
				walk(c, child)
			}
		}
	}
	walk(o.node, "")
	return out
}
