// Package safetext makes text that came from the input (object names,
// namespaces, file names, messages of user policies) safe to print on a
// terminal and in a CI log: a control character could move the cursor,
// recolour or hide what follows (ESC), or end the line and start another
// that a GitHub Actions runner executes as a workflow command ("::error
// file=...", "::add-mask::..."), and a bidi control could reorder what is
// shown. Escape shows each as an escape sequence instead; Line also keeps a
// line we compose from such values from starting with "::".
package safetext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// needsEscape reports whether r is shown as an escape: the C0 controls but
// tab, DEL, the C1 controls, the line and paragraph separators, and the
// bidi and zero-width format characters, and the byte of invalid UTF-8.
func needsEscape(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, // bidi marks
		r >= 0x202a && r <= 0x202e, // bidi embeddings and overrides
		r >= 0x2066 && r <= 0x2069, // bidi isolates
		r == 0xfeff:                // byte order mark
		return true
	case r == utf8.RuneError:
		return true
	}
	return false
}

// Escape returns s with every control character (C0 but tab, DEL, C1),
// line or paragraph separator, bidi control and invalid UTF-8 byte shown as
// a Go escape (\n, \r, \x1b, \u2028, \xff); the rest is unchanged. A string
// without such characters is returned as is, without copying.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r) && !(r == utf8.RuneError && n == 3) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case r == utf8.RuneError && n == 3:
			b.WriteString(s[i : i+n]) // U+FFFD written out: a character like any other
		case needsEscape(r):
			q := strconv.QuoteRune(r) // '\n', '\x1b', '\u2028'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Line is Escape for a whole output line composed from input values: a
// line that would start with ':' gets it as \x3a, so that no line we print
// from the input can be a workflow command (a runner reads "::" at the
// start of a line as one).
func Line(s string) string {
	s = Escape(s)
	if strings.HasPrefix(s, ":") {
		return `\x3a` + s[1:]
	}
	return s
}

// Lines applies Line to each line of text (split at "\n", which this
// writes back): for a block of lines that we composed, each from one
// record, where the values were not escaped one by one.
func Lines(text string) string {
	if text == "" {
		return text
	}
	parts := strings.Split(text, "\n")
	changed := false
	for i, p := range parts {
		if l := Line(p); l != p {
			parts[i], changed = l, true
		}
	}
	if !changed {
		return text
	}
	return strings.Join(parts, "\n")
}
