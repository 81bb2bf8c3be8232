package lint

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
)

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
