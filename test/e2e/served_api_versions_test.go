package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/discovery"

	"github.com/kubectl-workload/kubectl-workload/internal/live"
)

var updateServed = flag.Bool("update-served", false, "rewrite internal/render/served-api-versions.txt from the real API server's discovery")

// TestServedAPIVersions requires the API versions charts are rendered with
// (internal/render/served-api-versions.txt, .Capabilities.APIVersions) to be
// what a real v1.37.1 kube-apiserver's discovery gives helm install: each
// group/version and group/version/kind, as helm's action.GetVersionSet builds
// them. -update-served rewrites the file.
func TestServedAPIVersions(t *testing.T) {
	c := sharedCluster(t)
	dc, err := discovery.NewDiscoveryClientForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	got, err := live.VersionSet(dc)
	if err != nil {
		t.Fatal(err)
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "internal", "render", "served-api-versions.txt")
	text := strings.Join(got, "\n") + "\n"
	if *updateServed {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if text != string(want) {
		t.Errorf("the real API server's discovery differs from %s (rerun with -update-served):\n%s", file, text)
	}
}
