package lint

import (
	"cmp"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// shallowField is a field where cross-resource findings may point, and its
// position.
type shallowField struct {
	path string
	pos  manifest.Pos
}

// shallowFields lists the fields of shallowPaths that obj.Position finds
// exactly, with their positions, sorted by path. Where the object's node
// tree stands for its JSON key for key (treeFields), it reads them from the
// tree in one walk; otherwise it decodes the JSON (shallowPaths) and looks
// each path up.
func shallowFields(obj *manifest.Object, out []shallowField) []shallowField {
	if node, lineOffset, ok := obj.Tree(); ok {
		if fields, ok := treeFields(node, lineOffset, out[:0]); ok {
			slices.SortFunc(fields, func(a, b shallowField) int { return cmp.Compare(a.path, b.path) })
			return slices.CompactFunc(fields, func(a, b shallowField) bool { return a.path == b.path })
		}
	}
	out = out[:0]
	for _, p := range shallowPaths(obj.JSON) {
		if pos, exact := obj.Position(p); exact {
			out = append(out, shallowField{path: p, pos: pos})
		}
	}
	return out
}

// treeFields is shallowPaths read from the object's mapping n, with each
// field's position as Position gives it (a key's for a mapping's field, an
// element's for a list's). It reports false, and the caller decodes the
// JSON, wherever the tree and the JSON may differ in the mappings it reads:
// a key that is not a plain string (an integer, a merge key "<<"), a key
// holding "]" (which a field path cannot spell back), or an alias, whose
// content the JSON holds and Position does not follow. The tree has no
// repeated key (manifest.Object.Tree).
func treeFields(n *yaml.Node, lineOffset int, out []shallowField) ([]shallowField, bool) {
	at := func(k *yaml.Node) manifest.Pos { return manifest.Pos{Line: k.Line + lineOffset, Column: k.Column} }
	if !plainMapping(n) {
		return out, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		parent := appendSegment("", k.Value)
		out = append(out, shallowField{path: parent, pos: at(k)})
		if v.Kind == yaml.MappingNode {
			if !plainMapping(v) {
				return out, false
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				out = append(out, shallowField{path: appendSegment(parent, v.Content[j].Value), pos: at(v.Content[j])})
			}
		}
	}
	for _, pattern := range deepPaths {
		var ok bool
		if out, ok = treeDeep(out, "", n, pattern, at); !ok {
			return out, false
		}
	}
	return out, true
}

// treeDeep is appendDeep on the node tree: it appends the fields of v that
// pattern names below parent, and each of their ancestors.
func treeDeep(out []shallowField, parent string, v *yaml.Node, pattern []string, at func(*yaml.Node) manifest.Pos) ([]shallowField, bool) {
	if len(pattern) == 0 {
		return out, true
	}
	switch v.Kind {
	case yaml.AliasNode:
		return out, false
	case yaml.MappingNode:
		if pattern[0] == "*" || pattern[0] == "?" {
			return out, true
		}
		if !plainMapping(v) {
			return out, false
		}
		for i := 0; i+1 < len(v.Content); i += 2 {
			if k := v.Content[i]; k.Value == pattern[0] {
				p := appendSegment(parent, pattern[0])
				out = append(out, shallowField{path: p, pos: at(k)})
				return treeDeep(out, p, v.Content[i+1], pattern[1:], at)
			}
		}
	case yaml.SequenceNode:
		if pattern[0] != "*" && pattern[0] != "?" {
			return out, true
		}
		for i, elem := range v.Content {
			if elem.Kind == yaml.AliasNode {
				return out, false
			}
			if pattern[0] == "?" && elem.Kind == yaml.MappingNode {
				if !plainMapping(elem) {
					return out, false
				}
				if probed(elem) {
					continue
				}
			}
			p := parent + "[" + strconv.Itoa(i) + "]"
			out = append(out, shallowField{path: p, pos: at(elem)})
			var ok bool
			if out, ok = treeDeep(out, p, elem, pattern[1:], at); !ok {
				return out, false
			}
		}
	}
	return out, true
}

// probed reports whether the container m has a readinessProbe that is not
// null, as appendDeep's o["readinessProbe"] != nil reads its JSON.
func probed(m *yaml.Node) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "readinessProbe" {
			v := m.Content[i+1]
			return !(v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null")
		}
	}
	return false
}

// plainMapping reports whether every key of the mapping m is a plain
// string that a field path spells back, and no key or value is an alias:
// the keys its JSON has, with the same values.
func plainMapping(m *yaml.Node) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" || k.Value == "<<" || strings.IndexByte(k.Value, ']') >= 0 || v.Kind == yaml.AliasNode {
			return false
		}
	}
	return true
}

// shallowPaths lists the fields of the object js (as written) down to two
// levels (kind, metadata, metadata.labels, spec.selector ...), and the
// deeper fields of deepPaths, in field-path notation, sorted: where
// cross-resource findings point. Lint keeps their positions alone once the
// object is done with (shallowIndex).
func shallowPaths(js []byte) []string {
	var o map[string]any
	if json.Unmarshal(js, &o) != nil {
		return nil
	}
	var out []string
	for key, v := range o {
		parent := appendSegment("", key)
		out = append(out, parent)
		if child, ok := v.(map[string]any); ok {
			for key2 := range child {
				out = append(out, appendSegment(parent, key2))
			}
		}
	}
	for _, pattern := range deepPaths {
		out = appendDeep(out, "", o, pattern)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// deepPaths are the fields deeper than two levels where cross-resource
// findings point, "*" standing for every element of a list, "?" for every
// element without a readinessProbe: a Service's ports, an Ingress's backend
// ports, the containers of a pod spec that probes/readiness-missing may
// report, and a pod template's affinity (availability/no-spread).
var deepPaths = func() [][]string {
	var out [][]string
	for _, p := range []string{
		"spec.ports.*.targetPort", "spec.ports.*.port",
		"spec.defaultBackend.service.port", "spec.rules.*.http.paths.*.backend.service.port",
		"spec.containers.?", "spec.initContainers.?",
		"spec.template.spec.containers.?", "spec.template.spec.initContainers.?",
		"spec.template.spec.affinity", // availability/no-spread
	} {
		out = append(out, strings.Split(p, "."))
	}
	return out
}()

// appendDeep appends to out the paths of v that pattern names below parent,
// and each of their ancestors.
func appendDeep(out []string, parent string, v any, pattern []string) []string {
	if len(pattern) == 0 {
		return out
	}
	switch x := v.(type) {
	case map[string]any:
		if pattern[0] == "*" || pattern[0] == "?" {
			return out
		}
		child, ok := x[pattern[0]]
		if !ok {
			return out
		}
		p := appendSegment(parent, pattern[0])
		out = append(out, p)
		return appendDeep(out, p, child, pattern[1:])
	case []any:
		if pattern[0] != "*" && pattern[0] != "?" {
			return out
		}
		for i, elem := range x {
			if pattern[0] == "?" {
				if o, ok := elem.(map[string]any); ok && o["readinessProbe"] != nil {
					continue
				}
			}
			p := parent + "[" + strconv.Itoa(i) + "]"
			out = append(out, p)
			out = appendDeep(out, p, elem, pattern[1:])
		}
	}
	return out
}

// appendSegment extends a field path by a key: .key for an identifier,
// [key] otherwise, as the API server writes paths.
func appendSegment(parent, key string) string {
	ident := key != ""
	for i, r := range key {
		if !(r == '_' || r == '$' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || (i > 0 && '0' <= r && r <= '9')) {
			ident = false
			break
		}
	}
	switch {
	case !ident:
		return parent + "[" + key + "]"
	case parent == "":
		return key
	default:
		return parent + "." + key
	}
}
