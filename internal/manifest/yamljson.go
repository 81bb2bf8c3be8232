package manifest

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// docJSON is one YAML document's JSON, exactly as kubectl would send it.
type docJSON struct {
	js []byte
	// fromTree is set when treeJSON wrote js from the yaml.v3 node tree. The
	// tree then holds no alias, anchor, explicit tag or merge key, and every
	// mapping key is a string that appears once in its mapping, so that
	// treeHeader may read an object's header from the tree.
	fromTree bool
	// items are the elements of the top-level "items" sequence, as slices of
	// js, when fromTree is set and "items" is a sequence.
	items []json.RawMessage
}

// documentJSON converts one parsed YAML document (root, parsed from text) to
// JSON. The common document is written straight from the node tree by
// treeJSON; any other, or any when fast is false, goes through
// sigs.k8s.io/yaml.YAMLToJSON, as kubectl does, which parses the text again.
// Both give the same bytes for every document treeJSON accepts.
func documentJSON(root *yaml.Node, text []byte, fast bool) (docJSON, error) {
	if fast {
		if d, ok := treeJSON(root, text); ok {
			return d, nil
		}
	}
	js, err := sigsyaml.YAMLToJSON(text)
	return docJSON{js: js}, err
}

// treeJSON writes the JSON of a document from its yaml.v3 node tree, giving
// the bytes sigs.k8s.io/yaml.YAMLToJSON gives for the same text: that
// function decodes the text with go.yaml.in/yaml/v2 into interface{} values,
// turns every mapping into a map[string]interface{} (convertToJSONableObject)
// and calls json.Marshal. So treeJSON resolves every plain scalar with
// yaml.v2's YAML 1.1 rules (resolvePlain), sorts each mapping's keys as
// json.Marshal sorts a map's, and formats strings and numbers as
// encoding/json does (AppendJSONString, appendJSONFloat).
//
// It reports false, and writes nothing of use, for any document where it
// cannot be sure of giving the same bytes: one with an alias or anchor, an
// explicit tag, a merge key ("<<"), a mapping key that is not a scalar or
// that yaml.v2 would resolve to anything but a string (yes, 1, null), a key
// that appears twice in a mapping, a value yaml.v2 resolves to NaN or an
// infinity (which json.Marshal refuses), or a plain value that may carry the
// non-specific tag "!" (which yaml.v3 drops and yaml.v2 resolves as a
// string).
func treeJSON(root *yaml.Node, text []byte) (docJSON, bool) {
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return docJSON{}, false
	}
	w := &treeWriter{
		buf:  make([]byte, 0, len(text)+64),
		text: text,
		bang: bytes.IndexByte(text, '!') >= 0,
	}
	if !w.value(root.Content[0], true) {
		return docJSON{}, false
	}
	d := docJSON{js: w.buf, fromTree: true}
	if w.items != nil {
		d.items = make([]json.RawMessage, len(w.items))
		for i, s := range w.items {
			d.items[i] = w.buf[s[0]:s[1]:s[1]]
		}
	}
	return d, true
}

// treeWriter holds the state of one treeJSON call.
type treeWriter struct {
	buf  []byte
	text []byte
	// bang is set when text holds a '!', so that a node may carry a tag.
	bang bool
	// lines are the offsets in text where its lines start, once needed;
	// linesBad is set when text holds a line break other than "\n" and
	// "\r\n", or a byte-order mark, so that columns cannot be trusted.
	lines    []int
	linesBad bool
	// keys is a stack of mapping key indexes being sorted, shared by all
	// the mappings being written.
	keys []int
	// items are the spans in buf of the elements of the top-level "items"
	// sequence.
	items [][2]int
}

// value writes n's JSON. top is set for the document's root node.
func (w *treeWriter) value(n *yaml.Node, top bool) bool {
	if n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 {
		return false
	}
	switch n.Kind {
	case yaml.MappingNode:
		return w.mapping(n, top)
	case yaml.SequenceNode:
		return w.sequence(n, false)
	case yaml.ScalarNode:
		return w.scalar(n)
	}
	return false // AliasNode, or a DocumentNode inside a document
}

// quotedStyles are the scalar styles yaml.v2 always reads as a string.
const quotedStyles = yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle

func (w *treeWriter) scalar(n *yaml.Node) bool {
	if n.Style&quotedStyles != 0 {
		w.buf = AppendJSONString(w.buf, n.Value)
		return true
	}
	p := resolvePlain(n.Value)
	if p.kind != plainString && w.bang && !w.untagged(n) {
		return false
	}
	switch p.kind {
	case plainString:
		w.buf = AppendJSONString(w.buf, n.Value)
	case plainNull:
		w.buf = append(w.buf, "null"...)
	case plainBool:
		w.buf = strconv.AppendBool(w.buf, p.b)
	case plainInt:
		w.buf = strconv.AppendInt(w.buf, p.i, 10)
	case plainUint:
		w.buf = strconv.AppendUint(w.buf, p.u, 10)
	case plainFloat:
		w.buf = appendJSONFloat(w.buf, p.f)
	default: // plainNonFinite: json.Marshal fails; leave the error to it
		return false
	}
	return true
}

// untagged reports whether the plain scalar n surely carries no tag. yaml.v3
// records no tag for the non-specific tag "!", but yaml.v2 reads "! 1" as the
// string "1"; a tagged node starts at its tag, so n is untagged when the
// character at its position is not '!'.
func (w *treeWriter) untagged(n *yaml.Node) bool {
	if w.lines == nil {
		w.lines = append(w.lines, 0)
		for i, c := range w.text {
			switch {
			case c == '\n':
				w.lines = append(w.lines, i+1)
			case c == '\r' && (i+1 == len(w.text) || w.text[i+1] != '\n'):
				w.linesBad = true
			}
		}
		// NEL, LS and PS end lines in YAML too; a byte-order mark may
		// not count as a column.
		for _, s := range []string{"\u0085", "\u2028", "\u2029", "\ufeff"} {
			if bytes.Contains(w.text, []byte(s)) {
				w.linesBad = true
			}
		}
	}
	if w.linesBad || n.Line < 1 || n.Line > len(w.lines) || n.Column < 1 {
		return false
	}
	line := w.text[w.lines[n.Line-1]:]
	if end := bytes.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	for range n.Column - 1 {
		_, size := utf8.DecodeRune(line)
		if size == 0 {
			return false
		}
		line = line[size:]
	}
	return len(line) > 0 && line[0] != '!'
}

func (w *treeWriter) sequence(n *yaml.Node, record bool) bool {
	w.buf = append(w.buf, '[')
	for i, c := range n.Content {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		start := len(w.buf)
		if !w.value(c, false) {
			return false
		}
		if record {
			w.items = append(w.items, [2]int{start, len(w.buf)})
		}
	}
	w.buf = append(w.buf, ']')
	return true
}

// mapping writes a mapping as json.Marshal writes a map[string]any: its keys
// sorted by their bytes.
func (w *treeWriter) mapping(n *yaml.Node, top bool) bool {
	if len(n.Content)%2 != 0 {
		return false
	}
	base := len(w.keys) // on failure w is dropped, so only success pops keys
	sorted := true
	for i := 0; i < len(n.Content); i += 2 {
		k := n.Content[i]
		if !stringKey(k) {
			return false
		}
		if i > 0 && n.Content[i-2].Value >= k.Value {
			sorted = false
		}
		w.keys = append(w.keys, i)
	}
	if !sorted {
		keys := w.keys[base:]
		slices.SortFunc(keys, func(a, b int) int { return strings.Compare(n.Content[a].Value, n.Content[b].Value) })
		for j := 1; j < len(keys); j++ {
			if n.Content[keys[j-1]].Value == n.Content[keys[j]].Value {
				// yaml.v2 keeps the last; this package's duplicate
				// detection and yaml.v2's merge rules are left to it.
				return false
			}
		}
	}
	w.buf = append(w.buf, '{')
	for j := base; j < base+len(n.Content)/2; j++ {
		i := w.keys[j] // w.keys may grow (and move) while the values are written
		if j > base {
			w.buf = append(w.buf, ',')
		}
		k, v := n.Content[i], n.Content[i+1]
		w.buf = AppendJSONString(w.buf, k.Value)
		w.buf = append(w.buf, ':')
		var ok bool
		if top && k.Value == "items" && v.Kind == yaml.SequenceNode && v.Anchor == "" && v.Style&yaml.TaggedStyle == 0 {
			w.items = make([][2]int, 0, len(v.Content))
			ok = w.sequence(v, true)
		} else {
			ok = w.value(v, false)
		}
		if !ok {
			return false
		}
	}
	w.buf = append(w.buf, '}')
	w.keys = w.keys[:base]
	return true
}

// stringKey reports whether yaml.v2 surely decodes the mapping key k as a
// string: an untagged, unanchored scalar, quoted or plain, other than the
// merge key "<<", that yaml.v2 does not resolve to a bool, number or null.
// (A "!"-tagged plain key is a string to yaml.v2 whatever it holds, so only
// keys that are strings either way are accepted.)
func stringKey(k *yaml.Node) bool {
	if k.Kind != yaml.ScalarNode || k.Anchor != "" || k.Style&yaml.TaggedStyle != 0 || k.Value == "<<" {
		return false
	}
	return k.Style&quotedStyles != 0 || resolvePlain(k.Value).kind == plainString
}

// plainKind is what yaml.v2 resolves a plain scalar to.
type plainKind uint8

const (
	plainString plainKind = iota
	plainNull
	plainBool
	plainInt
	plainUint
	plainFloat
	// plainNonFinite is .nan or .inf: a float64 json.Marshal refuses.
	plainNonFinite
)

// plain is a resolved plain scalar.
type plain struct {
	kind plainKind
	b    bool
	i    int64
	u    uint64
	f    float64
}

// resolvePlain resolves an untagged plain scalar as go.yaml.in/yaml/v2's
// resolve (resolve.go) does with an empty tag, for a value decoded into an
// interface{}:
//
//   - the empty string, ~, null, Null and NULL are null;
//   - y, Y, yes, Yes, YES, true, True, TRUE, on, On, ON are true, and n, N,
//     no, No, NO, false, False, FALSE, off, Off, OFF false;
//   - .nan, .inf, +.inf, -.inf (each also capitalized and upper case) are
//     NaN and infinities;
//   - a string starting with '.' is a float when strconv.ParseFloat takes it;
//   - a string starting with a sign or digit, once its underscores are
//     removed, is an int when strconv.ParseInt (base 0) takes it, else a
//     uint64 when strconv.ParseUint (base 0) does, else a float when it has
//     YAML's float shape and strconv.ParseFloat takes it, else a binary int
//     after "0b" or "-0b";
//   - anything else is a string. A timestamp (2001-12-14) is a string too:
//     yaml.v2 gives the scalar's text for a timestamp decoded into an
//     interface{}, and no text with four digits and a '-' at its start is a
//     number, so timestamps need no test of their own here.
//
// (yaml.v2 gives an int, or an int64 where int is 32 bits; json.Marshal
// writes both alike.)
func resolvePlain(s string) plain {
	if s == "" {
		return plain{kind: plainNull}
	}
	c := s[0]
	digitOrSign := c == '+' || c == '-' || '0' <= c && c <= '9'
	if !digitOrSign && c != '.' && strings.IndexByte("yYnNtTfFoO~", c) < 0 {
		return plain{}
	}
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return plain{kind: plainBool, b: true}
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return plain{kind: plainBool, b: false}
	case "~", "null", "Null", "NULL":
		return plain{kind: plainNull}
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return plain{kind: plainNonFinite}
	}
	if c == '.' {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return plain{kind: plainFloat, f: f}
		}
		return plain{}
	}
	if !digitOrSign || !numberBytes(s) {
		return plain{}
	}
	p := s
	if strings.IndexByte(s, '_') >= 0 {
		p = strings.ReplaceAll(s, "_", "")
	}
	if i, err := strconv.ParseInt(p, 0, 64); err == nil {
		return plain{kind: plainInt, i: i}
	}
	if u, err := strconv.ParseUint(p, 0, 64); err == nil {
		return plain{kind: plainUint, u: u}
	}
	if yamlFloatShape(p) {
		if f, err := strconv.ParseFloat(p, 64); err == nil {
			return plain{kind: plainFloat, f: f}
		}
	}
	if rest, ok := strings.CutPrefix(p, "0b"); ok {
		if i, err := strconv.ParseInt(rest, 2, 64); err == nil {
			return plain{kind: plainInt, i: i}
		}
		if u, err := strconv.ParseUint(rest, 2, 64); err == nil {
			return plain{kind: plainUint, u: u}
		}
	} else if rest, ok := strings.CutPrefix(p, "-0b"); ok {
		if i, err := strconv.ParseInt("-"+rest, 2, 64); err == nil {
			return plain{kind: plainInt, i: i}
		}
	}
	return plain{}
}

// numberBytes reports whether s holds only bytes that strconv.ParseInt and
// strconv.ParseUint (base 0), yaml.v2's float shape and its binary ints may
// take: digits, hexadecimal letters, signs, '.', '_' and the base prefixes'
// letters. Testing it first spares the failing parses (and the errors they
// allocate) for common strings such as 100m or 128Mi; it changes no result.
func numberBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		case c == '+', c == '-', c == '.', c == '_', c == 'x', c == 'X', c == 'o', c == 'O':
		default:
			return false
		}
	}
	return true
}

// yamlFloatShape reports whether s has the shape yaml.v2 requires of a float
// that starts with a sign or digit: an optional sign, then digits with an
// optional fraction or a fraction alone, then an optional exponent (the
// regular expression yamlStyleFloat in yaml.v2's resolve.go).
func yamlFloatShape(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// appendJSONFloat appends f as encoding/json writes a finite float64 (its
// floatEncoder): like strconv's shortest 'f' format, but in 'e' format below
// 1e-6 and from 1e21 on, with a one-digit exponent not padded ("1e-7").
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// strconv writes at least two exponent digits: "e-07" becomes "e-7".
		if n := len(b); n-start >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// jsonSafe marks the ASCII bytes encoding/json writes as they are when it
// escapes HTML, as json.Marshal does: everything from space on but '"',
// '\\', '<', '>' and '&'.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = !strings.ContainsRune("\"\\<>&", c)
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, escaped as json.Marshal
// escapes it (encoding/json's appendString with HTML escaping): '"' and '\\'
// by a backslash; \b, \f, \n, \r and \t by their short forms; other control
// characters, '<', '>' and '&' as \u00XX; U+2028 and U+2029 as \u2028 and
// \u2029; and each byte of invalid UTF-8 as \ufffd.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// treeHeader reads an object's header from the node tree of a document
// treeJSON converted, giving what json.Unmarshal would decode into a header
// from the object's JSON: the value of each field as a string when it is a
// string, and nothing otherwise (metadata that is not a mapping is skipped,
// as encoding/json skips a value of the wrong type). Items is left to the
// caller. It reports false when it cannot be sure: when a key matches a
// header field only case-insensitively (encoding/json would take it), or a
// value is not valid UTF-8.
func treeHeader(m *yaml.Node, h *header) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i].Value, m.Content[i+1]
		var ok bool
		switch k {
		case "apiVersion":
			h.APIVersion, ok = treeString(v)
		case "kind":
			h.Kind, ok = treeString(v)
		case "metadata":
			ok = v.Kind != yaml.MappingNode || treeMetadata(v, h)
		case "items":
			ok = true
		default:
			ok = !foldsTo(k, "apiVersion", "kind", "metadata", "items")
		}
		if !ok {
			return false
		}
	}
	return true
}

func treeMetadata(m *yaml.Node, h *header) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i].Value, m.Content[i+1]
		ok := true
		switch k {
		case "name":
			h.Metadata.Name, ok = treeString(v)
		case "namespace":
			h.Metadata.Namespace, ok = treeString(v)
		case "generateName":
			h.Metadata.GenerateName, ok = treeString(v)
		default:
			ok = !foldsTo(k, "name", "namespace", "generateName")
		}
		if !ok {
			return false
		}
	}
	return true
}

// foldsTo reports whether k matches one of names as encoding/json matches a
// key to a field case-insensitively (bytes.EqualFold).
func foldsTo(k string, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(k, n) {
			return true
		}
	}
	return false
}

// treeString returns v's value as json.Unmarshal gives a header field from
// the JSON treeJSON wrote: the string for a scalar treeJSON writes as a
// string, and nil for anything else. ok is false for a string that is not
// valid UTF-8, which the JSON does not give back unchanged.
func treeString(v *yaml.Node) (s any, ok bool) {
	if v.Kind != yaml.ScalarNode || v.Style&quotedStyles == 0 && resolvePlain(v.Value).kind != plainString {
		return nil, true
	}
	return v.Value, utf8.ValidString(v.Value)
}
