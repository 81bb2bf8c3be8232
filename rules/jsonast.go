package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// A JSON reader that builds Rego values directly, without going through
// encoding/json's interface values first (what ast.ValueFromReader does):
// converting each object (and its defaulted form) was half of the rules'
// cost. The values are the same as ValueFromReader's: numbers keep their
// literal text, objects and arrays their elements; where a string holds an
// escape or bytes that are not UTF-8, encoding/json decodes it. Anything the
// reader does not expect makes it fall back to ValueFromReader.

// errJSON is the reader's own failure, answered by the fallback.
var errJSON = errors.New("unexpected JSON")

type jsonReader struct {
	b []byte
	i int
	// items holds the members of the objects being read, innermost last,
	// so that each object is made at its final size in one go.
	items [][2]*ast.Term
}

// valueFromJSON reads one JSON value as a Rego value.
func valueFromJSON(b []byte) (ast.Value, error) {
	r := &jsonReader{b: b}
	v, err := r.value()
	if err == nil {
		r.space()
		if r.i != len(r.b) {
			err = errJSON
		}
	}
	if err != nil {
		return ast.ValueFromReader(bytes.NewReader(b))
	}
	return v, nil
}

func (r *jsonReader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// value reads the value at r.i.
func (r *jsonReader) value() (ast.Value, error) {
	r.space()
	if r.i >= len(r.b) {
		return nil, errJSON
	}
	switch c := r.b[r.i]; {
	case c == '{':
		return r.object()
	case c == '[':
		return r.array()
	case c == '"':
		s, err := r.str()
		if err != nil {
			return nil, err
		}
		return ast.String(s), nil
	case c == 't':
		return r.literal("true", ast.Boolean(true))
	case c == 'f':
		return r.literal("false", ast.Boolean(false))
	case c == 'n':
		return r.literal("null", ast.Null{})
	case c == '-' || ('0' <= c && c <= '9'):
		return r.number()
	}
	return nil, errJSON
}

func (r *jsonReader) literal(word string, v ast.Value) (ast.Value, error) {
	if !bytes.HasPrefix(r.b[r.i:], []byte(word)) {
		return nil, errJSON
	}
	r.i += len(word)
	return v, nil
}

func (r *jsonReader) number() (ast.Value, error) {
	start := r.i
	for r.i < len(r.b) {
		c := r.b[r.i]
		if ('0' <= c && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			r.i++
			continue
		}
		break
	}
	lit := r.b[start:r.i]
	if !json.Valid(lit) {
		return nil, errJSON
	}
	return ast.Number(string(lit)), nil
}

// str reads a string; one with an escape or with bytes that are not UTF-8 is
// decoded by encoding/json, as ValueFromReader would.
func (r *jsonReader) str() (string, error) {
	start := r.i
	if err := r.skipString(); err != nil {
		return "", err
	}
	return unquote(r.b[start:r.i])
}

// unquote is the string a JSON string literal (quotes included) holds.
func unquote(quoted []byte) (string, error) {
	raw := quoted[1 : len(quoted)-1]
	plain := utf8.Valid(raw)
	for _, c := range raw {
		if c == '\\' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain {
		return string(raw), nil
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", errJSON
	}
	return s, nil
}

func (r *jsonReader) array() (ast.Value, error) {
	r.i++ // [
	var terms []*ast.Term
	r.space()
	if r.i < len(r.b) && r.b[r.i] == ']' {
		r.i++
		return ast.NewArray(), nil
	}
	for {
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		terms = append(terms, ast.NewTerm(v))
		r.space()
		if r.i >= len(r.b) {
			return nil, errJSON
		}
		switch r.b[r.i] {
		case ',':
			r.i++
		case ']':
			r.i++
			return ast.NewArray(terms...), nil
		default:
			return nil, errJSON
		}
	}
}

func (r *jsonReader) object() (ast.Value, error) {
	start := len(r.items)
	defer func() { r.items = r.items[:start] }()
	err := r.members(func(quoted []byte) error {
		key, err := unquote(quoted)
		if err != nil {
			return err
		}
		v, err := r.value()
		if err != nil {
			return err
		}
		r.items = append(r.items, [2]*ast.Term{ast.StringTerm(key), ast.NewTerm(v)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return newObject(r.items[start:]), nil
}

// members reads the object at r.i, calling member for each of its members
// with the key as written (quotes included) and r.i at the value, which
// member reads.
func (r *jsonReader) members(member func(key []byte) error) error {
	r.i++ // {
	r.space()
	if r.i < len(r.b) && r.b[r.i] == '}' {
		r.i++
		return nil
	}
	for {
		r.space()
		if r.i >= len(r.b) || r.b[r.i] != '"' {
			return errJSON
		}
		start := r.i
		if err := r.skipString(); err != nil {
			return err
		}
		key := r.b[start:r.i]
		r.space()
		if r.i >= len(r.b) || r.b[r.i] != ':' {
			return errJSON
		}
		r.i++
		if err := member(key); err != nil {
			return err
		}
		r.space()
		if r.i >= len(r.b) {
			return errJSON
		}
		switch r.b[r.i] {
		case ',':
			r.i++
		case '}':
			r.i++
			return nil
		default:
			return errJSON
		}
	}
}

// newObject makes an object of the members, the last of a repeated key
// winning, as encoding/json decodes.
func newObject(items [][2]*ast.Term) ast.Object {
	obj := ast.NewObject(items...)
	for _, it := range items {
		if obj.Get(it[0]) != it[1] { // a key seen twice: NewObject keeps both
			obj = ast.NewObject()
			for _, it := range items {
				obj.Insert(it[0], it[1])
			}
			break
		}
	}
	return obj
}

// valueFromJSONKept reads one JSON value as valueFromJSON does, keeping of
// its objects only the members fields names, as appendKept writes them:
// each level names the keys kept, with their own fields, or nil to keep a
// key's whole value; a value that is not an object where fields has more
// levels is kept whole. The members left out are read past, not built, and
// not checked beyond their brackets and strings: b is JSON that
// encoding/json wrote.
func valueFromJSONKept(b []byte, fields map[string]any) (ast.Value, error) {
	r := &jsonReader{b: b}
	v, err := r.kept(fields)
	if err == nil {
		r.space()
		if r.i != len(r.b) {
			err = errJSON
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read JSON: %w", err)
	}
	return v, nil
}

// kept reads the value at r.i, keeping of an object the members fields
// names (everything when fields is nil).
func (r *jsonReader) kept(fields map[string]any) (ast.Value, error) {
	r.space()
	if fields == nil || r.i >= len(r.b) || r.b[r.i] != '{' {
		return r.value()
	}
	start := len(r.items)
	defer func() { r.items = r.items[:start] }()
	err := r.members(func(key []byte) error {
		sub, keep := fields[string(key[1:len(key)-1])] // keys the fields name need no unescaping
		if !keep {
			return r.skip()
		}
		v, err := r.kept(asFields(sub))
		if err != nil {
			return err
		}
		r.items = append(r.items, [2]*ast.Term{ast.StringTerm(string(key[1 : len(key)-1])), ast.NewTerm(v)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return newObject(r.items[start:]), nil
}

// asFields is a fields entry's own fields: nil to keep the whole value.
func asFields(sub any) map[string]any {
	m, _ := sub.(map[string]any)
	return m
}

// skipString reads past the string at r.i.
func (r *jsonReader) skipString() error {
	r.i++ // "
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case '"':
			r.i++
			return nil
		case '\\':
			r.i += 2
		default:
			r.i++
		}
	}
	return errJSON
}

// skip reads past the value at r.i without building it.
func (r *jsonReader) skip() error {
	r.space()
	if r.i >= len(r.b) {
		return errJSON
	}
	switch r.b[r.i] {
	case '"':
		return r.skipString()
	case '{', '[':
		depth := 0
		for r.i < len(r.b) {
			switch r.b[r.i] {
			case '"':
				if err := r.skipString(); err != nil {
					return err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					r.i++
					return nil
				}
			}
			r.i++
		}
		return errJSON
	default: // a number, true, false or null
		for r.i < len(r.b) {
			switch r.b[r.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return nil
			}
			r.i++
		}
		return nil
	}
}

// keptJSON appends to dst the JSON value b, keeping of its objects only the
// members fields names, as valueFromJSONKept does, but as JSON: the kept
// members are copied as they are written, the others read past. b is JSON
// that encoding/json wrote (see valueFromJSONKept).
func keptJSON(dst, b []byte, fields map[string]any) ([]byte, error) {
	r := &jsonReader{b: b}
	out, err := r.keptJSON(dst, fields)
	if err == nil {
		r.space()
		if r.i != len(r.b) {
			err = errJSON
		}
	}
	return out, err
}

func (r *jsonReader) keptJSON(dst []byte, fields map[string]any) ([]byte, error) {
	r.space()
	if fields == nil || r.i >= len(r.b) || r.b[r.i] != '{' {
		start := r.i
		if err := r.skip(); err != nil {
			return dst, err
		}
		return append(dst, r.b[start:r.i]...), nil
	}
	dst = append(dst, '{')
	first := true
	err := r.members(func(key []byte) error {
		sub, keep := fields[string(key[1:len(key)-1])]
		if !keep {
			return r.skip()
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(append(dst, key...), ':')
		var err error
		dst, err = r.keptJSON(dst, asFields(sub))
		return err
	})
	return append(dst, '}'), err
}
