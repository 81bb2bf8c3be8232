package live

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/version"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// EmbeddedMinor is the Kubernetes minor version whose API server and
// controller code the plugin embeds (v1.37).
const EmbeddedMinor = 37

// ServerVersion asks the API server its version (GET /version).
func (c *Client) ServerVersion(ctx context.Context) (*version.Info, error) {
	dc, err := c.bounded.ToDiscoveryClient()
	if err != nil {
		return nil, c.Explain(err, "discovery")
	}
	var info *version.Info
	err = c.within(func() (err error) {
		info, err = dc.ServerVersion()
		return err
	})
	if err != nil {
		return nil, c.Explain(err, "get the server version")
	}
	return info, nil
}

// SkewWarning returns the one warning to print when the server's minor
// version differs from the embedded v1.37, naming what may then differ; ""
// when the versions match or the server's version cannot be read from info.
func SkewWarning(info *version.Info) string {
	if info == nil {
		return ""
	}
	major, minor, ok := info.Major, 0, false
	if minor, ok = parseMinor(info.Minor); !ok {
		major, _, _ = strings.Cut(strings.TrimPrefix(info.GitVersion, "v"), ".")
		minor, ok = parseMinor(minorOfGitVersion(info.GitVersion))
	}
	if !ok || major != "1" {
		return "" // a development build, or not Kubernetes 1.x: nothing to compare
	}
	if minor == EmbeddedMinor {
		return ""
	}
	return fmt.Sprintf("the cluster runs Kubernetes %s, and kubectl workload embeds v1.%d: "+
		"the API server's validation rules and defaulting, and the controllers' behaviour (rollout steps), may differ from this server's",
		info.GitVersion, EmbeddedMinor)
}

// parseMinor reads a minor version such as "37" or "37+" (managed
// offerings add a plus).
func parseMinor(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimRight(s, "+"))
	return n, err == nil
}

// minorOfGitVersion returns "37" from "v1.37.1".
func minorOfGitVersion(v string) string {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// Connect builds the cluster client from getter (the process's one ConfigFlags) and asks the
// server its version, passing warn one warning when its minor version is not the embedded
// one. Errors are one line that names the context.
func Connect(ctx context.Context, getter genericclioptions.RESTClientGetter, warn func(string)) (*Client, error) {
	c, err := New(getter)
	if err != nil {
		return nil, err
	}
	info, err := c.ServerVersion(ctx)
	if err != nil {
		return nil, err
	}
	if w := SkewWarning(info); w != "" && warn != nil {
		warn(w)
	}
	return c, nil
}
