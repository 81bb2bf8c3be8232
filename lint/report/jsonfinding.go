package report

import (
	"strconv"
	"unicode/utf8"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// appendFinding appends f as a json.Encoder with SetIndent("    ", "  ")
// encodes it (without the newline Encode ends a value with): the JSON
// report's array element. encoding/json spent most of the report's time in
// reflection and in re-indenting what it had encoded; a finding's layout is
// fixed, so it is written directly. TestAppendFindingIsTheEncoders holds it
// to the encoder byte for byte, escapes and omitted fields included.
func appendFinding(b []byte, f *lint.Finding) []byte {
	b = append(b, "{\n      \"rule\": "...)
	b = appendJSONString(b, f.Rule)
	b = append(b, ",\n      \"severity\": "...)
	b = appendJSONString(b, f.Severity.String()) // Severity.MarshalJSON
	b = append(b, ",\n      \"message\": "...)
	b = appendJSONString(b, f.Message)
	b = append(b, ",\n      \"file\": "...)
	b = appendJSONString(b, f.File)
	b = append(b, ",\n      \"document\": "...)
	b = strconv.AppendInt(b, int64(f.Document), 10)
	b = append(b, ",\n      \"line\": "...)
	b = strconv.AppendInt(b, int64(f.Line), 10)
	b = append(b, ",\n      \"column\": "...)
	b = strconv.AppendInt(b, int64(f.Column), 10)
	if f.Field != "" {
		b = append(b, ",\n      \"field\": "...)
		b = appendJSONString(b, f.Field)
	}
	if o := f.Object; o != nil {
		b = append(b, ",\n      \"object\": {\n        \"apiVersion\": "...)
		b = appendJSONString(b, o.APIVersion)
		b = append(b, ",\n        \"kind\": "...)
		b = appendJSONString(b, o.Kind)
		if o.Namespace != "" {
			b = append(b, ",\n        \"namespace\": "...)
			b = appendJSONString(b, o.Namespace)
		}
		b = append(b, ",\n        \"name\": "...)
		b = appendJSONString(b, o.Name)
		b = append(b, "\n      }"...)
	}
	if f.Related != 0 {
		b = append(b, ",\n      \"related\": "...)
		b = strconv.AppendInt(b, int64(f.Related), 10)
	}
	if r := f.Rendered; r != nil {
		b = append(b, ",\n      \"rendered\": {\n        \"file\": "...)
		b = appendJSONString(b, r.File)
		b = append(b, ",\n        \"document\": "...)
		b = strconv.AppendInt(b, int64(r.Document), 10)
		b = append(b, ",\n        \"line\": "...)
		b = strconv.AppendInt(b, int64(r.Line), 10)
		b = append(b, ",\n        \"column\": "...)
		b = strconv.AppendInt(b, int64(r.Column), 10)
		b = append(b, "\n      }"...)
	}
	if s := f.Suppressed; s != nil {
		b = append(b, ",\n      \"suppressed\": {\n        \"kind\": "...)
		b = appendJSONString(b, s.Kind)
		b = append(b, ",\n        \"reason\": "...)
		b = appendJSONString(b, s.Reason)
		b = append(b, "\n      }"...)
	}
	return append(b, "\n    }"...)
}

// findingsSize is about the bytes appendFinding writes for fs, with their
// separators: the strings as they are (escapes are rare) and each finding's
// fixed layout, so that a chunk's buffer is allocated once, not grown by
// doubling into garbage that the collector must find room for.
func findingsSize(fs []lint.Finding) int {
	const layout = 300 // keys, indentation, numbers and the object's braces
	n := 0
	for i := range fs {
		f := &fs[i]
		n += layout + len(f.Rule) + len(f.Message) + len(f.File) + len(f.Field)
		if o := f.Object; o != nil {
			n += len(o.APIVersion) + len(o.Kind) + len(o.Namespace) + len(o.Name)
		}
		if r := f.Rendered; r != nil {
			n += 100 + len(r.File)
		}
		if s := f.Suppressed; s != nil {
			n += 60 + len(s.Kind) + len(s.Reason)
		}
	}
	return n
}

// appendJSONString appends s quoted as encoding/json quotes a string with
// HTML escaping on (its default, and the Encoder's): '<', '>' and '&' as
// \u003c, \u003e and \u0026; the control characters with a short escape
// where JSON has one (\b \f \n \r \t), else \u00XX; invalid UTF-8 as
// \ufffd; and U+2028 and U+2029, which JavaScript takes for line ends,
// escaped. It mirrors encoding/json's unexported appendString.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
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
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
