package render

import (
	"strconv"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// keyLine is a line of a YAML file or template that starts a mapping key,
// with the key path that leads to it (sequence indices left out: a
// template's lists are often written by a range loop).
type keyLine struct {
	line int // 1-based
	col  int // 1-based column of the key
	path string
}

// scanKeys reads the mapping keys of YAML text line by line, by
// indentation, as a person reads a template: lines holding only a template
// action ({{ ... }}), comments and blank lines are passed over, and a
// document separator starts over at the top. It does not need the text to
// be valid YAML, so it reads Helm templates. The returned slices are one per
// document.
func scanKeys(text string) [][]keyLine {
	type frame struct {
		indent int
		key    string
	}
	var docs [][]keyLine
	var cur []keyLine
	var stack []frame
	lines := strings.Split(text, "\n")
	for i, raw := range lines {
		l := strings.TrimRight(raw, " \t\r")
		if strings.HasPrefix(l, "---") {
			docs = append(docs, cur)
			cur, stack = nil, nil
			continue
		}
		t := strings.TrimLeft(l, " ")
		if t == "" || strings.HasPrefix(t, "#") || (strings.HasPrefix(t, "{{") && strings.HasSuffix(t, "}}") && strings.Count(t, "{{") == 1) {
			continue
		}
		indent := len(l) - len(t)
		// A sequence entry "- key: v" opens a mapping one level deeper, at
		// the key's column; the entry itself is recorded as the parent's
		// path and "[]".
		for strings.HasPrefix(t, "- ") || t == "-" {
			// The key a sequence is the value of may stand at the entry's
			// own column ("containers:" then "- name: web" below it, as
			// kubectl and most charts write it): it stays the parent.
			for len(stack) > 0 && stack[len(stack)-1].indent > indent {
				stack = stack[:len(stack)-1]
			}
			parts := make([]string, 0, len(stack)+1)
			for _, f := range stack {
				parts = append(parts, f.key)
			}
			cur = append(cur, keyLine{line: i + 1, col: indent + 1, path: strings.Join(append(parts, itemMarker), "\x00")})
			t = strings.TrimLeft(t[1:], " ")
			indent = len(l) - len(t)
			if t == "" {
				break
			}
		}
		key, ok := lineKey(t)
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		if !ok {
			continue
		}
		parts := make([]string, 0, len(stack)+1)
		for _, f := range stack {
			parts = append(parts, f.key)
		}
		parts = append(parts, key)
		cur = append(cur, keyLine{line: i + 1, col: indent + 1, path: strings.Join(parts, "\x00")})
		stack = append(stack, frame{indent: indent, key: key})
	}
	return append(docs, cur)
}

// lineKey returns the mapping key a (trimmed) line starts with: a plain,
// single- or double-quoted scalar followed by ":" and a space or the end of
// the line. A key holding a template action is not a key one can find.
func lineKey(t string) (string, bool) {
	if t == "" {
		return "", false
	}
	var key, rest string
	switch t[0] {
	case '"', '\'':
		end := strings.IndexByte(t[1:], t[0])
		if end < 0 {
			return "", false
		}
		key, rest = t[1:1+end], t[2+end:]
		if t[0] == '"' {
			if u, err := strconv.Unquote(t[:2+end]); err == nil {
				key = u
			}
		}
	default:
		i := strings.Index(t, ": ")
		if i < 0 {
			if !strings.HasSuffix(t, ":") {
				return "", false
			}
			i = len(t) - 1
		}
		key, rest = t[:i], t[i:]
	}
	if !strings.HasPrefix(rest, ":") || (len(rest) > 1 && rest[1] != ' ') || strings.Contains(key, "{{") || key == "" {
		return "", false
	}
	return key, true
}

// itemMarker stands for a sequence entry in a key path: "containers" then
// itemMarker is the line of a "- " under containers.
const itemMarker = "[]"

// fieldKeys turns a field path in the API server's notation into the keys
// scanKeys records: spec.template.spec.containers[0].image gives spec,
// template, spec, containers, image. A bracketed segment that is not an
// index is a map key (metadata.labels[app.kubernetes.io/name]).
func fieldKeys(path string) []string {
	var keys []string
	for _, seg := range manifest.SplitFieldPath(path) {
		if _, err := strconv.Atoi(seg); err == nil {
			keys = append(keys, itemMarker)
			continue
		}
		keys = append(keys, seg)
	}
	return keys
}

// keyPath joins keys as scanKeys records them: item markers only at the
// end.
func keyPath(keys []string) string {
	var kept []string
	for i, k := range keys {
		if k != itemMarker || i == len(keys)-1 {
			kept = append(kept, k)
		}
	}
	return strings.Join(kept, "\x00")
}

// findKey returns the line of the key path in one document's keys when
// exactly one line holds it; otherwise, that of its nearest ancestor found
// exactly once (exact is then false). ok is false when not even the first
// key is found once.
func findKey(keys []keyLine, path string) (kl keyLine, exact, ok bool) {
	want := fieldKeys(path)
	for n := len(want); n > 0; n-- {
		p := keyPath(want[:n])
		var found []keyLine
		for _, k := range keys {
			if k.path == p {
				found = append(found, k)
			}
		}
		if len(found) == 1 {
			return found[0], n == len(want), true
		}
	}
	return keyLine{}, false, false
}

// firstKey returns a document's first key (apiVersion, usually).
func firstKey(keys []keyLine) (keyLine, bool) {
	if len(keys) == 0 {
		return keyLine{}, false
	}
	return keys[0], true
}
