package safetext

import (
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"web", "web"},
		{"a\tb", "a\tb"},
		{"x\n::error file=x::forged", `x\n::error file=x::forged`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"cr\rover", `cr\rover`},
		{"del\x7f", `del\x7f`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"bidi\u202egnp.exe\u2066\u2069\u200f", `bidi\u202egnp.exe\u2066\u2069\u200f`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"replacement \uFFFD kept", "replacement \uFFFD kept"},
		{"ünïcödé 日本", "ünïcödé 日本"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"::error file=x::forged", `\x3a:error file=x::forged`},
		{":a", `\x3aa`},
		{"file.yaml:1:1: error x: y", "file.yaml:1:1: error x: y"},
		{"a\n::add-mask::s", `a\n::add-mask::s`},
	}
	for _, tt := range tests {
		if got := Line(tt.in); got != tt.want {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestLines: in a block of lines, no line can start with "::" and no raw
// control character is left, whatever the values held.
func TestLines(t *testing.T) {
	in := "Deployment ns/x\n::error file=x::forged  (f.yaml:1:1)\n  \x1b[31mred\x1b[0m\n"
	got := Lines(in)
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "::") {
			t.Errorf("Lines(%q) has the line %q", in, l)
		}
	}
	if strings.ContainsRune(got, 0x1b) {
		t.Errorf("Lines(%q) = %q holds ESC", in, got)
	}
	if same := "a\nb\n"; Lines(same) != same {
		t.Errorf("Lines(%q) = %q, want it unchanged", same, Lines(same))
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"x\n::error::y", "\x1b[31m", "\u2028", "\xff\xfe", "::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Line(s)
		if strings.HasPrefix(got, "::") || strings.ContainsAny(got, "\n\r\x1b\u2028\u2029\u0085") {
			t.Errorf("Line(%q) = %q", s, got)
		}
	})
}
