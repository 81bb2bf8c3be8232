package globmatch

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/glob"
)

// cases are patterns and texts on which Match must agree with gobwas/glob.
var cases = []struct {
	pattern string
	seps    []rune
	texts   []string
}{
	{"*", nil, []string{"", "a", "a/b", "a\nb"}},
	{"*", []rune{'/'}, []string{"", "a", "a/b"}},
	{"**", []rune{'/'}, []string{"", "a/b/c"}},
	{"a/**/b", []rune{'/'}, []string{"a/b", "a//b", "a/x/b", "a/x/y/b"}},
	{"{**/,}gen/*.yaml", []rune{'/'}, []string{"gen/a.yaml", "x/gen/a.yaml", "x/gen/y/a.yaml", "gen/.yaml"}},
	{"?at", []rune{'f'}, []string{"cat", "fat", "at"}},
	{"[abc]at", nil, []string{"cat", "dat", "at"}},
	{"[!abc]at", nil, []string{"cat", "dat", "/at"}},
	{"[a-c]at", nil, []string{"bat", "dat"}},
	{"[!a-c]at", nil, []string{"bat", "dat"}},
	{"{a,b*,}c", nil, []string{"ac", "bxxc", "c", "dc"}},
	{"{a{b,c},d}", nil, []string{"ab", "ac", "d", "a"}},
	{`\*\{x\}`, nil, []string{"*{x}", "a{x}"}},
	{"a,b}", nil, []string{"a,b}", "a"}},
	{"pss/*", nil, []string{"pss/restricted", "pss", "pss/a/b"}},
	{"*.github.com", []rune{'.'}, []string{"api.github.com", "a.b.github.com"}},
	{"(x)+|y.", nil, []string{"(x)+|y.", "xxy."}},
	{"[.][*]", nil, []string{".*", "a*"}},
	{"ü?[ä-ö]", nil, []string{"üxä", "üxa"}},
}

func TestMatchAgreesWithGobwas(t *testing.T) {
	for _, tt := range cases {
		want := glob.MustCompile(tt.pattern, tt.seps...)
		got, err := Compile(tt.pattern, tt.seps...)
		if err != nil {
			t.Fatalf("Compile(%q, %q) = %v", tt.pattern, tt.seps, err)
		}
		for _, s := range tt.texts {
			if g, w := got.Match(s), want.Match(s); g != w {
				t.Errorf("Compile(%q, %q).Match(%q) = %v, want %v (gobwas/glob)", tt.pattern, tt.seps, s, g, w)
			}
		}
	}
}

func TestSyntaxErrorsAgreeWithGobwas(t *testing.T) {
	for _, p := range []string{"{a", "[a", "[]", "[z-a]", `a\`, "[a-]", "{a,[b}"} {
		_, want := glob.Compile(p)
		_, got := Compile(p)
		if (got == nil) != (want == nil) {
			t.Errorf("Compile(%q) = %v, gobwas/glob says %v", p, got, want)
		}
		var se *glob.SyntaxError
		if got != nil && !errors.As(got, &se) {
			t.Errorf("Compile(%q) = %T, want a *glob.SyntaxError", p, got)
		}
	}
}

func TestPrefix(t *testing.T) {
	for _, tt := range []struct {
		pattern, prefix string
		literal         bool
		suffix          string
	}{
		{"vendor/**", "vendor/", false, ""},
		{`a\*b`, "a*b", true, "a*b"},
		{"charts/x.yaml", "charts/x.yaml", true, "charts/x.yaml"},
		{"**/gen", "", false, "/gen"},
		{"{**/,}gen/*.yaml", "", false, ".yaml"},
		{"a{b,c}", "a", false, ""},
		{"a{b,c}d", "a", false, "d"},
		{"", "", true, ""},
	} {
		g, err := Compile(tt.pattern, '/')
		if err != nil {
			t.Fatal(err)
		}
		if p, l := g.Prefix(); p != tt.prefix || l != tt.literal {
			t.Errorf("Compile(%q).Prefix() = %q, %v, want %q, %v", tt.pattern, p, l, tt.prefix, tt.literal)
		}
		if s := g.Suffix(); s != tt.suffix {
			t.Errorf("Compile(%q).Suffix() = %q, want %q", tt.pattern, s, tt.suffix)
		}
	}
}

// TestBombIsLinear is the pattern gobwas/glob needs some 2^40 steps for.
func TestBombIsLinear(t *testing.T) {
	p := strings.Repeat("{a,a}", 40) + "[b]"
	start := time.Now()
	g, err := Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{strings.Repeat("a", 40) + "c", strings.Repeat("a", 40) + "b", strings.Repeat("a", 1<<16)} {
		if got, want := g.Match(s), strings.HasSuffix(s, "b") && len(s) == 41; got != want {
			t.Errorf("Match(%.50q) = %v, want %v", s, got, want)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("compiling and matching %q took %s", p, d)
	}
}

func TestLimits(t *testing.T) {
	for _, p := range []string{strings.Repeat("a", MaxPatternLength+1), strings.Repeat("{", MaxNesting+1) + strings.Repeat("}", MaxNesting+1)} {
		if _, err := Compile(p); err == nil {
			t.Errorf("Compile(%.40q...) = nil error, want one naming the limit", p)
		}
	}
}

// FuzzMatch checks that Compile accepts what gobwas/glob accepts, and that
// the two agree on every match, for patterns small enough for gobwas/glob.
func FuzzMatch(f *testing.F) {
	for _, tt := range cases {
		for _, s := range tt.texts {
			f.Add(tt.pattern, s, len(tt.seps) > 0)
		}
	}
	f.Fuzz(func(t *testing.T, pattern, s string, slash bool) {
		if len(pattern) > 64 || len(s) > 64 || strings.Count(pattern, "{") > 6 {
			return
		}
		var seps []rune
		if slash {
			seps = []rune{'/'}
		}
		want, werr := glob.Compile(pattern, seps...)
		got, gerr := Compile(pattern, seps...)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("Compile(%q) error %v, gobwas/glob %v", pattern, gerr, werr)
		}
		if werr != nil {
			return
		}
		if g, w := got.Match(s), want.Match(s); g != w {
			t.Fatalf("Compile(%q, %q).Match(%q) = %v, gobwas/glob %v", pattern, seps, s, g, w)
		}
	})
}
