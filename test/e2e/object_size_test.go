package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestObjectSizeMatchesServer: a 3.5 MB object, which lint reports as
// input/object-size in the API server's words, is refused by the real API
// server with those words.
func TestObjectSizeMatchesServer(t *testing.T) {
	c := sharedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	path := filepath.Join(t.TempDir(), "huge.yaml")
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\n  namespace: default\ndata:\n  blob: " + strings.Repeat("a", 3_500_000) + "\n"
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := c.Kubectl(ctx, "create", "--dry-run=server", "-f", path)
	const words = "Request entity too large: limit is 3145728"
	if err == nil || !strings.Contains(string(out), words) {
		t.Fatalf("kubectl create --dry-run=server (3.5 MB) = %v\n%s\nwant the server to refuse it with %q", err, out, words)
	}
	p, err := runPlugin(ctx, pluginBinary(t), path)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range p.report.Findings {
		found = found || f.Rule == "input/object-size" && f.Severity == severityError && strings.Contains(f.Message, words)
	}
	if !found {
		t.Errorf("lint %s findings = %+v, want input/object-size with the server's words %q", path, p.report.Findings, words)
	}
}
