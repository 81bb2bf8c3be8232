package manifest

import (
	"encoding/json"
	"sort"

	"unicode"
)

// ResolveLoose finds the real field path for a path as Go's JSON decoder
// names it in a type error ("spec.volumes.VolumeSource.fc.lun"): without list
// indices, and with the names of embedded Go structs in it. It returns the
// first field, in document order, whose segments match (indices may stand
// anywhere, and capitalized segments that are not keys are taken for struct
// names) and whose JSON value has the type the decoder reported: "string",
// "number", "bool", "array" or "object"; an empty valueType accepts any.
func (o *Object) ResolveLoose(loose, valueType string) (string, bool) {
	want := splitFieldPath(loose)
	var doc any
	if err := json.Unmarshal(o.JSON, &doc); err != nil {
		return "", false
	}
	type candidate struct {
		path string
		pos  Pos
	}
	var found []candidate
	var walk func(v any, path string, rest []string)
	walk = func(v any, path string, rest []string) {
		if len(rest) == 0 {
			if valueType == "" || jsonType(v) == valueType {
				pos, exact := o.Position(path)
				if !exact {
					pos = Pos{}
				}
				found = append(found, candidate{path, pos})
			}
			return
		}
		switch t := v.(type) {
		case map[string]any:
			if child, ok := t[rest[0]]; ok {
				walk(child, appendKey(path, rest[0]), rest[1:])
			} else if isGoTypeName(rest[0]) {
				walk(v, path, rest[1:]) // an embedded struct's name, not a key
			}
		case []any:
			for i, child := range t {
				walk(child, appendIndex(path, i), rest)
			}
		}
	}
	walk(doc, "", want)
	if len(found) == 0 {
		return "", false
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].pos.Less(found[j].pos) })
	return found[0].path, true
}

// isGoTypeName reports whether a segment looks like an exported Go type name.
func isGoTypeName(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}

// jsonType names a decoded JSON value's type as Go's decoder does in errors.
func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case nil:
		return "null"
	}
	return ""
}
