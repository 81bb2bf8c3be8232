package plugin

import (
	"strings"
	"testing"
)

// TestSizeFlagsCapped: --next 10000000 and --nodes 1000000000 are usage
// errors naming the limit before anything is simulated or allocated.
func TestSizeFlagsCapped(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"next", []string{"predict", "-f", "cj.yaml", "--next", "10000000"}, "--next 10000000: at most 1000 scheduled times are listed (runner.MaxNext)"},
		{"nodes", []string{"predict", "-f", "ds.yaml", "--nodes", "1000000000"}, "--nodes 1000000000: predict simulates a DaemonSet node by node, and at most 10000 nodes (runner.MaxPods)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, "", tt.args...)
			if code != ExitError || !strings.Contains(errOut, tt.want) {
				t.Fatalf("%v = exit %d, stderr %q, want exit 2 and %q", tt.args, code, errOut, tt.want)
			}
		})
	}
}
