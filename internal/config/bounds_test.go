package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/globmatch"
)

// bomb is 200 bytes that gobwas/glob's matcher needs some 2^40 steps for.
var bomb = strings.Repeat("{a,a}", 40) + "[b]"

// TestGlobBombIsBounded: the pattern as an exclude, an exemption's name and
// a rule glob loads, and matching it against texts that almost match takes
// no time.
func TestGlobBombIsBounded(t *testing.T) {
	f, err := loadText(t, fmt.Sprintf(`exclude: [%q]
rules:
  disable: [%q]
exemptions:
  - name: %q
    reason: hostile
`, bomb, bomb, bomb))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	start := time.Now()
	almost := strings.Repeat("a", 40) + "c"
	if f.Excluded(almost) || f.Excluded("dir/"+almost) {
		t.Errorf("Excluded(%q) = true, want false", almost)
	}
	if !f.Excluded(strings.Repeat("a", 40) + "b") {
		t.Errorf("Excluded(a×40 b) = false, want true")
	}
	if f.Disabled(almost) {
		t.Errorf("Disabled(%q) = true, want false", almost)
	}
	if _, ok := f.Exempt("kind/bare-pod", "Pod", "ns", almost); ok {
		t.Errorf("Exempt(..., %q) = true, want false", almost)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("matching the bomb took %s", d)
	}
}

// TestGlobLimitsNameFileAndLine: a glob over the nesting or length limit is
// a configuration error naming the file and the line.
func TestGlobLimitsNameFileAndLine(t *testing.T) {
	deep := strings.Repeat("{", globmatch.MaxNesting+1) + "a" + strings.Repeat("}", globmatch.MaxNesting+1)
	long := strings.Repeat("a*", globmatch.MaxPatternLength/2+1)
	for _, tt := range []struct{ name, text, want string }{
		{"exclude nesting", "failOn: error\nexclude:\n  - x\n  - \"" + deep + "\"\n", ":4: exclude: bad pattern"},
		{"exemption length", "exemptions:\n  - name: \"" + long + "\"\n    reason: r\n", ":2: exemption 1: bad pattern"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadText(t, tt.text)
			if err == nil || !strings.Contains(err.Error(), FileName+tt.want) {
				t.Fatalf("Load = %v, want an error containing %q", err, FileName+tt.want)
			}
		})
	}
}

// TestManyExcludesAreIndexed: 30,000 exclude globs over 3,000 files try a
// handful of globs per file, not 30,000, and find what trying each finds.
func TestManyExcludesAreIndexed(t *testing.T) {
	var patterns []string
	for i := range 30_000 {
		switch i % 3 {
		case 0:
			patterns = append(patterns, fmt.Sprintf("gen/team-%d/*.yaml", i))
		case 1:
			patterns = append(patterns, fmt.Sprintf("**/generated-%d.yaml", i))
		default:
			patterns = append(patterns, fmt.Sprintf("charts/app-%d/templates/deploy.yaml", i))
		}
	}
	patterns = append(patterns, "*/never-[xyz]/**") // tried on every path
	start := time.Now()
	f := &File{Exclude: patterns}
	x := newExcludeIndex(patterns)
	f.excludes = x
	t.Logf("indexed %d globs in %s", len(patterns), time.Since(start))
	tried := 0
	for i := range 3_000 {
		var path string
		switch i % 4 {
		case 0:
			path = fmt.Sprintf("repo/gen/team-%d/a.yaml", i*3)
		case 1:
			path = fmt.Sprintf("deploy/x/generated-%d.yaml", i*3+1)
		case 2:
			path = fmt.Sprintf("charts/app-%d/templates/deploy.yaml", i*3+2)
		default:
			path = fmt.Sprintf("src/app-%d/never-y/deploy.yaml", i)
		}
		got, n := x.first(path)
		tried += n
		if got < 0 {
			t.Errorf("first(%q) = -1, want a match", path)
		}
		if i%100 == 0 { // the same as trying every glob in order
			want := -1
		each:
			for j, p := range patterns {
				g, err := compilePattern(pathPattern, p)
				if err != nil {
					t.Fatal(err)
				}
				for q := path; ; q = q[strings.IndexByte(q, '/')+1:] {
					if g.Match(q) {
						want = j
						break each
					}
					if !strings.Contains(q, "/") {
						break
					}
				}
			}
			if got != want {
				t.Errorf("first(%q) = %d, want %d (trying each glob)", path, got, want)
			}
			if g, ok := f.ExcludedBy(path); !ok || g != patterns[want] {
				t.Errorf("ExcludedBy(%q) = %q, %v, want %q", path, g, ok, patterns[want])
			}
		}
	}
	t.Logf("matched 3,000 paths in %s", time.Since(start))
	if tried > 3_000*3 {
		t.Errorf("3,000 paths tried %d globs, want at most 3 a path", tried)
	}
}
