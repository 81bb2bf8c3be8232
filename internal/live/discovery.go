package live

import (
	"context"
	"fmt"
	"path"
	"slices"

	"k8s.io/client-go/discovery"
)

// VersionSet returns the API versions a cluster serves as Helm's
// .Capabilities.APIVersions holds them when helm install runs against it:
// every group/version, and every group/version/kind of its resources,
// sorted. It mirrors action.GetVersionSet (helm.sh/helm/v4/pkg/action),
// which this module does not link: a group whose discovery failed is left
// out, as there.
func VersionSet(dc discovery.ServerResourcesInterface) ([]string, error) {
	groups, resources, err := dc.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discover the API versions: %w", err)
	}
	seen := map[string]bool{}
	for _, g := range groups {
		for _, gv := range g.Versions {
			seen[gv.GroupVersion] = true
		}
	}
	for _, r := range resources {
		for _, res := range r.APIResources {
			seen[path.Join(r.GroupVersion, res.Kind)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out, nil
}

// APIVersions returns the cluster's VersionSet, for charts rendered as helm
// install renders them against it (get only: discovery).
func (c *Client) APIVersions(ctx context.Context) ([]string, error) {
	dc, err := c.getter.ToDiscoveryClient()
	if err != nil {
		return nil, fmt.Errorf("context %q: discovery client: %s", c.Context, oneLine(err.Error()))
	}
	vs, err := VersionSet(dc)
	if err != nil {
		return nil, c.Explain(err, "discover the API versions")
	}
	return vs, nil
}
