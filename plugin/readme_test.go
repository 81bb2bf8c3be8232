package plugin

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeExample is one "$ kubectl workload ..." example of README.md: the
// command line and the output the README shows for it.
type readmeExample struct {
	line    int
	command string
	output  []string
}

// readmeSubcommands are the subcommands whose README examples
// TestREADMEExamples runs: every one with examples.
var readmeSubcommands = map[string]bool{"lint": true, "predict": true}

// readmeExamples reads the examples of a Markdown file: in each fenced code
// block, a line "$ kubectl workload ARGS" starts an example, and the lines up
// to the next such line or the end of the block are its output.
func readmeExamples(t *testing.T, path string) []readmeExample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeExample
	var cur *readmeExample
	inBlock := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "```"):
			inBlock = !inBlock
			cur = nil
		case inBlock && strings.HasPrefix(l, "$ kubectl workload "):
			out = append(out, readmeExample{line: n, command: strings.TrimPrefix(l, "$ kubectl workload ")})
			cur = &out[len(out)-1]
		case inBlock && cur != nil:
			cur.output = append(cur.output, strings.TrimRight(l, " "))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// matchOutput reports whether got (the lines printed) is what want shows: the
// same lines in order, where a line "..." (alone, or indented) stands for any
// number of lines left out, and the lines between two elisions are
// consecutive in got.
func matchOutput(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "..." {
		for i := 0; i <= len(got); i++ {
			if matchOutput(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && want[0] == got[0] && matchOutput(want[1:], got[1:])
}

// TestREADMEExamples runs every example of README.md and of the reference
// pages under docs/, from the repository's root as a reader would, and
// compares what each prints with what the page shows.
func TestREADMEExamples(t *testing.T) {
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"../README.md"}, pages...)
	ran := map[string]int{}
	for _, page := range pages {
		name := strings.TrimPrefix(page, "../")
		for _, ex := range readmeExamples(t, page) {
			args := strings.Fields(ex.command)
			t.Run(name+":"+ex.command, func(t *testing.T) {
				if !readmeSubcommands[args[0]] {
					t.Skipf("%s:%d: %s examples are not checked yet (see readmeSubcommands)", name, ex.line, args[0])
				}
				if strings.ContainsAny(ex.command, `"'|<>$`) {
					t.Fatalf("%s:%d: the example uses shell syntax this test does not run: %s", name, ex.line, ex.command)
				}
				t.Chdir("..")
				for _, a := range args {
					if strings.HasSuffix(a, ".yaml") || strings.HasSuffix(a, ".json") {
						if _, err := os.Stat(a); err != nil {
							t.Errorf("%s:%d: %s does not exist: %v", name, ex.line, a, err)
						}
					}
				}
				out, errOut, code := run(t, "", args...)
				if code == ExitError {
					t.Fatalf("%s:%d: kubectl workload %s: exit 2: %s", name, ex.line, ex.command, errOut)
				}
				got := strings.Split(strings.TrimRight(out, "\n"), "\n")
				for i := range got {
					got[i] = strings.TrimRight(got[i], " ")
				}
				if !matchOutput(ex.output, got) {
					t.Errorf("%s:%d: kubectl workload %s prints\n%s\nwhich is not what the page shows:\n%s",
						name, ex.line, ex.command, out, strings.Join(ex.output, "\n"))
				}
			})
			if name == "README.md" {
				ran[args[0]]++
			}
		}
	}
	for sub := range readmeSubcommands {
		if ran[sub] == 0 {
			t.Errorf("README.md has no %s example: is the example syntax ($ kubectl workload ...) still the README's?", sub)
		}
	}
}

func TestMatchOutput(t *testing.T) {
	got := []string{"a", "b", "c", "d"}
	tests := []struct {
		want []string
		ok   bool
	}{
		{[]string{"a", "b", "c", "d"}, true},
		{[]string{"a", "...", "d"}, true},
		{[]string{"...", "c", "d"}, true},
		{[]string{"a", "b", "..."}, true},
		{[]string{"a", "c", "d"}, false},
		{[]string{"a", "...", "c"}, false},
		{[]string{"b", "...", "d"}, false},
	}
	for _, tt := range tests {
		if ok := matchOutput(tt.want, got); ok != tt.ok {
			t.Errorf("matchOutput(%q, %q) = %v, want %v", tt.want, got, ok, tt.ok)
		}
	}
}

// TestREADMEFrontDoor: the README shows the picture (a file that exists) and a
// GitHub Actions workflow that uploads SARIF to code scanning.
func TestREADMEFrontDoor(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	img := regexp.MustCompile(`!\[[^\]]+\]\((docs/img/[^)]+\.png)\)`).FindStringSubmatch(readme)
	if img == nil {
		t.Errorf("README.md shows no picture from docs/img")
	} else if _, err := os.Stat("../" + img[1]); err != nil {
		t.Errorf("README.md shows %s: %v", img[1], err)
	}
	for _, want := range []string{"github/codeql-action/upload-sarif", "lint -o sarif", "security-events: write", "reports:\n      junit:", "id: workload-lint"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q (the CI examples)", want)
		}
	}
}
