package apicheck

import (
	"bytes"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// headerMetaFactory reads an object's apiVersion and kind for the JSON
// serializer in one pass over the bytes, giving what
// json.SimpleMetaFactory.Interpret gives: that function decodes the whole
// document with encoding/json (a validity scan, then a decode that skips
// every other field), which was the API tier's second full parse of every
// object (the strict decode that follows is the first).
//
// The scan validates the JSON as encoding/json does and reads the top-level
// members. It gives up, and calls SimpleMetaFactory.Interpret, on anything
// where it could not be sure of the same answer or the same error: invalid
// JSON, a top level that is not an object, a key or value with an escape
// sequence or invalid UTF-8 in a value it reads, a key that matches
// "apiVersion" or "kind" only case-insensitively (encoding/json would take it
// too), a value of another type than a string or null, or nesting deeper
// than maxHeaderDepth.
type headerMetaFactory struct{}

var _ json.MetaFactory = headerMetaFactory{}

// maxHeaderDepth bounds the nesting the scan follows; encoding/json's own
// limit is 10,000, and deeper documents go to SimpleMetaFactory.
const maxHeaderDepth = 512

// Interpret returns the group, version and kind of data, as
// json.SimpleMetaFactory.Interpret does.
func (headerMetaFactory) Interpret(data []byte) (*schema.GroupVersionKind, error) {
	apiVersion, kind, ok := scanHeader(data)
	if !ok {
		return json.SimpleMetaFactory{}.Interpret(data)
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	return &schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}, nil
}

var (
	apiVersionKey = []byte("apiVersion")
	kindKey       = []byte("kind")
)

// scanHeader returns the last top-level "apiVersion" and "kind" string
// members of data (empty when absent or null, as encoding/json leaves a
// string field it is given null for), and false when data is not a JSON
// document the fast path can answer for (see headerMetaFactory).
func scanHeader(data []byte) (apiVersion, kind string, ok bool) {
	s := headerScanner{data: data}
	s.space()
	if !s.next('{') {
		return "", "", false
	}
	s.space()
	if !s.next('}') {
		for {
			s.space()
			key, plain, good := s.str()
			if !good || !plain {
				return "", "", false
			}
			s.space()
			if !s.next(':') {
				return "", "", false
			}
			s.space()
			var dst *string
			switch {
			case bytes.Equal(key, apiVersionKey):
				dst = &apiVersion
			case bytes.Equal(key, kindKey):
				dst = &kind
			case bytes.EqualFold(key, apiVersionKey), bytes.EqualFold(key, kindKey):
				return "", "", false
			}
			if dst != nil {
				switch {
				case s.literal("null"):
				case s.peek() == '"':
					// encoding/json turns invalid UTF-8 into U+FFFD.
					v, plain, good := s.str()
					if !good || !plain || !utf8.Valid(v) {
						return "", "", false
					}
					*dst = string(v)
				default:
					return "", "", false
				}
			} else if !s.value(1) {
				return "", "", false
			}
			s.space()
			if s.next(',') {
				continue
			}
			if s.next('}') {
				break
			}
			return "", "", false
		}
	}
	s.space()
	return apiVersion, kind, s.i == len(data)
}

// headerScanner is a validating JSON reader over data from offset i,
// accepting what encoding/json's scanner accepts (RFC 8259; invalid UTF-8
// inside strings is allowed, as encoding/json allows it).
type headerScanner struct {
	data []byte
	i    int
}

func (s *headerScanner) peek() byte {
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

// next consumes c if it is the next byte.
func (s *headerScanner) next(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// space skips JSON whitespace.
func (s *headerScanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// literal consumes word (true, false, null) if it comes next.
func (s *headerScanner) literal(word string) bool {
	if len(s.data)-s.i >= len(word) && string(s.data[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// str consumes a string and returns its bytes between the quotes; plain is
// false when it holds an escape sequence (the bytes are then not its value).
func (s *headerScanner) str() (raw []byte, plain, ok bool) {
	if !s.next('"') {
		return nil, false, false
	}
	start := s.i
	plain = true
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			raw = s.data[start:s.i]
			s.i++
			return raw, plain, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			plain = false
			s.i++
			if s.i >= len(s.data) {
				return nil, false, false
			}
			switch s.data[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				s.i++
				if len(s.data)-s.i < 4 {
					return nil, false, false
				}
				for _, h := range s.data[s.i : s.i+4] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				s.i += 4
			default:
				return nil, false, false
			}
		case c < utf8.RuneSelf:
			s.i++
		default:
			s.i++ // any byte of a multi-byte or invalid sequence
		}
	}
	return nil, false, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number consumes a JSON number.
func (s *headerScanner) number() bool {
	s.next('-')
	switch {
	case s.next('0'):
	case s.i < len(s.data) && '1' <= s.data[s.i] && s.data[s.i] <= '9':
		for s.i < len(s.data) && isDigit(s.data[s.i]) {
			s.i++
		}
	default:
		return false
	}
	if s.next('.') {
		if !s.digits() {
			return false
		}
	}
	if s.next('e') || s.next('E') {
		if !s.next('+') {
			s.next('-')
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits consumes one or more decimal digits.
func (s *headerScanner) digits() bool {
	start := s.i
	for s.i < len(s.data) && isDigit(s.data[s.i]) {
		s.i++
	}
	return s.i > start
}

// value consumes any JSON value at nesting depth.
func (s *headerScanner) value(depth int) bool {
	switch c := s.peek(); {
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == '{' || c == '[':
		if depth >= maxHeaderDepth {
			return false
		}
		return s.composite(depth)
	case c == '-' || isDigit(c):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

// composite consumes an object or an array.
func (s *headerScanner) composite(depth int) bool {
	object := s.data[s.i] == '{'
	closing := byte(']')
	if object {
		closing = '}'
	}
	s.i++
	s.space()
	if s.next(closing) {
		return true
	}
	for {
		s.space()
		if object {
			if _, _, ok := s.str(); !ok {
				return false
			}
			s.space()
			if !s.next(':') {
				return false
			}
			s.space()
		}
		if !s.value(depth + 1) {
			return false
		}
		s.space()
		if s.next(',') {
			continue
		}
		return s.next(closing)
	}
}
