package userpolicy

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/rules"
)

// readFindings reads a policy rule's results: strings, or objects with
// "msg" and an optional "path" (a string in field-path notation, or an
// array of segments), and returns apart, left out of the findings, the
// results that are neither a string nor an object with a string "msg".
func readFindings(v any) ([]rules.Finding, []any) {
	var items []any
	switch t := v.(type) {
	case []any:
		items = t
	case map[string]any: // a rule returning one object
		items = []any{t}
	case string:
		items = []any{t}
	}
	var out []rules.Finding
	var bad []any
	for _, it := range items {
		switch t := it.(type) {
		case string:
			out = append(out, rules.Finding{Message: t})
		case map[string]any:
			f := rules.Finding{}
			f.Message, _ = t["msg"].(string)
			f.Severity, _ = t["severity"].(string)
			switch n := t["related_count"].(type) {
			case json.Number:
				if i, err := n.Int64(); err == nil && i > 0 {
					f.Related = int(i)
				}
			case float64:
				if n > 0 {
					f.Related = int(n)
				}
			}
			switch p := t["path"].(type) {
			case string:
				f.Path = p
			case []any:
				f.Path = joinPath(p)
			}
			if _, ok := t["msg"].(string); !ok {
				bad = append(bad, it)
				continue
			}
			out = append(out, f)
		default:
			bad = append(bad, it)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Message < out[j].Message
	})
	return out, bad
}

// joinPath renders ["spec", "containers", 0, "image"] as spec.containers[0].image.
func joinPath(segs []any) string {
	var b strings.Builder
	for _, s := range segs {
		switch t := s.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(t)
		case json.Number:
			b.WriteString("[" + t.String() + "]")
		case float64:
			fmt.Fprintf(&b, "[%d]", int(t))
		}
	}
	return b.String()
}
