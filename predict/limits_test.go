package predict

import (
	"context"
	"strings"
	"testing"
)

// TestSizeFlagsCapped: --next 10000000 and --nodes 1000000000 are usage
// errors naming the limit before anything is simulated or allocated.
func TestSizeFlagsCapped(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts Options
		want string
	}{
		{"next", Options{Output: "text", Next: 10_000_000, Filenames: []string{"cj.yaml"}}, "--next 10000000: at most 1000 scheduled times are listed (runner.MaxNext)"},
		{"nodes", Options{Output: "text", Next: DefaultNext, Nodes: 1_000_000_000, Filenames: []string{"ds.yaml"}}, "--nodes 1000000000: predict simulates a DaemonSet node by node, and at most 10000 nodes (runner.MaxPods)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(context.Background(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New(%s) error = %v, want %q", tt.name, err, tt.want)
			}
		})
	}
}
