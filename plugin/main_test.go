package plugin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// TestMain builds the render helper (kubectl_workload-render) that the
// commands run for charts and kustomizations, and points the plugin at it.
func TestMain(m *testing.M) {
	os.Exit(runWithHelper(m))
}

func runWithHelper(m *testing.M) int {
	if os.Getenv(helper.EnvPath) == "" {
		dir, err := os.MkdirTemp("", "kubectl_workload-render-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, helper.Name)
		cmd := exec.Command("go", "build", "-o", bin, "../cmd/kubectl_workload-render")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build the render helper:", err)
			return 2
		}
		os.Setenv(helper.EnvPath, bin)
	}
	return m.Run()
}
