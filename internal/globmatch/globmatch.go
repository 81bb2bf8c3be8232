// Package globmatch matches globs in gobwas/glob's syntax ("*", "**", "?",
// "[a-z]", "[!a]", "{a,b}", "\" escapes) in time linear in the text.
//
// gobwas/glob's own matcher backtracks through alternatives: a pattern of
// 200 bytes, "{a,a}" forty times then "[b]", takes it some 2^40 steps on a
// text of forty a's, and a configuration file or a user policy (glob.match)
// can hold such a pattern. Here a pattern is read with gobwas/glob's lexer
// (the same tokens, so the same syntax) and translated into an RE2 regular
// expression, which Go's regexp package matches without backtracking, in
// time proportional to the pattern's length times the text's. Patterns are
// also bounded in length and in how deeply their groups nest.
package globmatch

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gobwas/glob"
	"github.com/gobwas/glob/syntax"
)

// Limits on one pattern. No real glob comes near them; a longer or deeper
// one is a syntax error that says which limit it passed.
const (
	// MaxPatternLength is the longest pattern compiled, in bytes.
	MaxPatternLength = 4096
	// MaxNesting is how deeply "{...}" groups may nest.
	MaxNesting = 32
)

// Glob is a compiled pattern. It is safe for concurrent use.
type Glob struct {
	// re compiles the translation on first use: a configuration of 30,000
	// excludes tries a few of them on each path (see Prefix), and most
	// are never compiled.
	re func() *regexp.Regexp
	// prefix is the literal text every match starts with; literal is set
	// when the pattern is that text and nothing else.
	prefix  string
	literal bool
	// suffix is the literal text every match ends with.
	suffix string
}

// Compile compiles pattern. With separators, "*" and "?" do not match them
// and "**" does, as in gobwas/glob's Compile(pattern, separators...). A
// malformed pattern is a *glob.SyntaxError, as gobwas/glob reports it.
func Compile(pattern string, separators ...rune) (*Glob, error) {
	if len(pattern) > MaxPatternLength {
		return nil, &glob.SyntaxError{Offset: MaxPatternLength, Reason: fmt.Sprintf("pattern of %d bytes is over the %d a glob may have", len(pattern), MaxPatternLength)}
	}
	t := translator{lex: syntax.NewLexer(pattern)}
	if len(separators) == 0 {
		t.any, t.single = "(?s:.*)", "(?s:.)"
	} else {
		var seps strings.Builder
		for _, r := range separators {
			writeClassRune(&seps, r)
		}
		t.any, t.single = "[^"+seps.String()+"]*", "[^"+seps.String()+"]"
	}
	expr, err := t.translate()
	if err != nil {
		return nil, err
	}
	// The translation is a valid regular expression: its groups nest at
	// most MaxNesting deep and it has no counted repetition. Were it not,
	// it would match nothing.
	re := sync.OnceValue(func() *regexp.Regexp {
		re, err := regexp.Compile(`\A(?:` + expr + `)\z`)
		if err != nil {
			return nil
		}
		return re
	})
	return &Glob{re: re, prefix: t.prefix.String(), literal: t.literal, suffix: t.suffix.String()}, nil
}

// Match reports whether the whole of s matches the pattern.
func (g *Glob) Match(s string) bool {
	if g.literal {
		return s == g.prefix
	}
	if !strings.HasPrefix(s, g.prefix) || !strings.HasSuffix(s, g.suffix) {
		return false
	}
	re := g.re()
	return re != nil && re.MatchString(s)
}

// Prefix returns the literal text every string the pattern matches starts
// with, and whether the pattern matches that text only.
func (g *Glob) Prefix() (prefix string, literal bool) { return g.prefix, g.literal }

// Suffix returns the literal text every string the pattern matches ends
// with ("" if it ends in a wildcard, a class or a group).
func (g *Glob) Suffix() string { return g.suffix }

// checkInterval is how many bytes of text MatchContext matches between two
// looks at its context.
const checkInterval = 1 << 16

// MatchContext is Match for a caller that can be cancelled: it gives up
// with ctx's error before matching a text longer than checkInterval once
// ctx is done. A match itself is linear and not interrupted.
func (g *Glob) MatchContext(ctx context.Context, s string) (bool, error) {
	if len(s) > checkInterval {
		if err := ctx.Err(); err != nil {
			return false, err
		}
	}
	return g.Match(s), nil
}

// translator turns the lexer's tokens into a regular expression. It mirrors
// the structure gobwas/glob's compile (parse.go) builds from the same
// tokens: a group opens at "{", its alternatives are split at "," and it
// closes at "}".
type translator struct {
	lex         *syntax.Lexer
	any, single string
	out         strings.Builder
	depth       int
	prefix      strings.Builder
	suffix      strings.Builder
	// leading is set while only literal text has been read.
	leading, literal bool
}

func (t *translator) fail(reason string) error {
	return &glob.SyntaxError{Offset: t.lex.Offset(), Reason: reason}
}

func (t *translator) translate() (string, error) {
	t.leading, t.literal = true, true
	for {
		tok := t.lex.Next()
		if tok.Type != syntax.Text && tok.Type != syntax.EOF {
			t.leading, t.literal = false, false
			t.suffix.Reset()
		}
		switch tok.Type {
		case syntax.EOF:
			if t.depth > 0 {
				return "", t.fail("unclosed `{`")
			}
			return t.out.String(), nil
		case syntax.Error:
			return "", t.fail(tok.Data)
		case syntax.Text:
			if t.leading {
				t.prefix.WriteString(tok.Data)
			}
			if t.depth == 0 {
				t.suffix.WriteString(tok.Data)
			}
			t.out.WriteString(regexp.QuoteMeta(tok.Data))
		case syntax.Any:
			t.out.WriteString(t.any)
		case syntax.Super:
			t.out.WriteString("(?s:.*)")
		case syntax.Single:
			t.out.WriteString(t.single)
		case syntax.RangeOpen:
			if err := t.class(); err != nil {
				return "", err
			}
		case syntax.TermsOpen:
			t.depth++
			if t.depth > MaxNesting {
				return "", t.fail(fmt.Sprintf("groups nest more than %d deep", MaxNesting))
			}
			t.out.WriteString("(?:")
		case syntax.TermSeparator:
			t.out.WriteString("|")
		case syntax.TermsClose:
			t.depth--
			t.out.WriteString(")")
		default:
			return "", t.fail("unexpected token " + tok.String())
		}
	}
}

// class translates a character class, "[abc]", "[!a-z]", read up to its
// "]", with the checks of gobwas/glob's parseRange.
func (t *translator) class() error {
	var (
		not    bool
		lo, hi rune = -1, -1
		chars  string
		isSet  bool
	)
	for {
		tok := t.lex.Next()
		switch tok.Type {
		case syntax.EOF:
			return t.fail("unclosed `[`")
		case syntax.Error:
			return t.fail(tok.Data)
		case syntax.Not:
			not = true
		case syntax.RangeLo, syntax.RangeHi:
			r, w := utf8.DecodeRuneInString(tok.Data)
			if len(tok.Data) > w {
				return t.fail("unexpected length of range character")
			}
			if tok.Type == syntax.RangeLo {
				lo = r
			} else {
				hi = r
				if hi < lo {
					return t.fail("range hi character is less than lo")
				}
			}
		case syntax.RangeBetween:
		case syntax.Text:
			chars, isSet = tok.Data, true
		case syntax.RangeClose:
			isRange := lo >= 0 && hi >= 0
			if isRange == isSet {
				return t.fail("could not parse range")
			}
			t.out.WriteString("[")
			if not {
				t.out.WriteString("^")
			}
			if isRange {
				writeClassRune(&t.out, lo)
				t.out.WriteString("-")
				writeClassRune(&t.out, hi)
			} else {
				for _, r := range chars {
					writeClassRune(&t.out, r)
				}
			}
			t.out.WriteString("]")
			return nil
		default:
			return t.fail("unexpected token " + tok.String())
		}
	}
}

// writeClassRune writes r as it is written inside a regular expression's
// character class, escaped.
func writeClassRune(b *strings.Builder, r rune) {
	fmt.Fprintf(b, `\x{%x}`, r)
}
