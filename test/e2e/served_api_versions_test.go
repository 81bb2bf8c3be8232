package e2e

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
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
	all, err := live.VersionSet(dc)
	if err != nil {
		t.Fatal(err)
	}
	// Other tests of the shared cluster install CRDs: their groups are not
	// what a v1.37 server serves by itself.
	out, err := c.Kubectl(context.Background(), "get", "crd", "-o", "jsonpath={.items[*].spec.group}")
	if err != nil {
		t.Fatalf("kubectl get crd: %v\n%s", err, out)
	}
	crdGroups := strings.Fields(string(out))
	var got []string
	for _, v := range all {
		if group, _, _ := strings.Cut(v, "/"); !slices.Contains(crdGroups, group) {
			got = append(got, v)
		}
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
