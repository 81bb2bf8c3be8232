package helper

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestOnlyOneKubectlPlugin: kubectl takes every executable named
// kubectl-NAME on PATH for a plugin, so no executable the project builds or
// ships but kubectl-workload may be named kubectl-workload-*: the helper
// once was, and `kubectl workload <TAB>` offered "render".
func TestOnlyOneKubectlPlugin(t *testing.T) {
	if strings.HasPrefix(Name, "kubectl-") {
		t.Errorf("Name = %q: kubectl would run it as a plugin", Name)
	}
	entries, err := os.ReadDir("../../../cmd")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "kubectl-") && e.Name() != "kubectl-workload" {
			t.Errorf("cmd/%s builds an executable kubectl takes for a plugin", e.Name())
		}
	}
	for _, file := range []string{"../../../.krew.yaml", "../../../hack/dist.sh"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`kubectl-workload[-_.][A-Za-z0-9_.-]*`).FindAllString(string(data), -1) {
			if strings.HasPrefix(m, "kubectl-workload-") || strings.HasPrefix(m, "kubectl-workload.exe-") {
				t.Errorf("%s names %s: kubectl would take it for a plugin", file, m)
			}
		}
		if !strings.Contains(string(data), Name) {
			t.Errorf("%s does not ship %s", file, Name)
		}
	}
}
