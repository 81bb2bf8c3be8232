package plugin

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// readmeExample is one `$ kubectl workload predict …` example of README.md and the output
// lines it shows; "..." stands for any number of lines.
type readmeExample struct {
	line int
	args []string
	want []string
}

// readmeExamples reads the predict examples of the README's fenced code blocks.
func readmeExamples(t *testing.T, path string) []readmeExample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeExample
	var cur *readmeExample
	inFence := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			inFence = !inFence
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
		case !inFence:
		case strings.HasPrefix(line, "$ kubectl workload predict "):
			if cur != nil {
				out = append(out, *cur)
			}
			cur = &readmeExample{line: n, args: strings.Fields(strings.TrimPrefix(line, "$ kubectl workload "))}
		case cur != nil:
			cur.want = append(cur.want, strings.TrimRight(line, " "))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// matchElided reports whether got holds the want lines in order, where a want line "..."
// (indented or not) stands for any number of lines, and other lines are consecutive.
func matchElided(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "..." {
		for i := 0; i <= len(got); i++ {
			if matchElided(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchElided(want[1:], got[1:])
}

// TestREADMEPredictExamples runs every predict example of README.md as written, from the
// repository root, and compares its output with the lines the README shows.
func TestREADMEPredictExamples(t *testing.T) {
	t.Chdir("..")
	examples := readmeExamples(t, "README.md")
	if len(examples) < 2 {
		t.Fatalf("README.md has %d predict examples, want the Deployment and the CronJob ones at least", len(examples))
	}
	for _, ex := range examples {
		t.Run(strings.Join(ex.args, " "), func(t *testing.T) {
			for _, a := range ex.args {
				if strings.HasSuffix(a, ".yaml") || strings.HasSuffix(a, ".json") {
					if _, err := os.Stat(a); err != nil {
						t.Errorf("README.md:%d: %s does not exist: %v", ex.line, a, err)
					}
				}
			}
			out, errOut, code := run(t, "", ex.args...)
			if code == ExitError {
				t.Fatalf("README.md:%d: exit %d, stderr %q", ex.line, code, errOut)
			}
			got := strings.Split(strings.TrimRight(out, "\n"), "\n")
			for i := range got {
				got[i] = strings.TrimRight(got[i], " ")
			}
			if !matchElided(ex.want, got) {
				t.Errorf("README.md:%d: the output shown is not what %v prints:\n%s\nREADME shows:\n%s",
					ex.line, ex.args, out, strings.Join(ex.want, "\n"))
			}
		})
	}
}
