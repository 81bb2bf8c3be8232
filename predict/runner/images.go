package runner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/nearest"
)

// imageKind reports whether --image applies to obj: an apps/v1 Deployment, StatefulSet or
// DaemonSet.
func imageKind(obj *manifest.Object) bool {
	return obj.APIVersion == "apps/v1" && (obj.Kind == "Deployment" || obj.Kind == "StatefulSet" || obj.Kind == "DaemonSet")
}

// containerNames are the names of the init containers and containers of a workload
// manifest's pod template, in that order.
func containerNames(js []byte) []string {
	var m struct {
		Spec struct {
			Template struct {
				Spec struct {
					InitContainers []struct{ Name string } `json:"initContainers"`
					Containers     []struct{ Name string } `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if json.Unmarshal(js, &m) != nil {
		return nil
	}
	var names []string
	for _, c := range append(m.Spec.Template.Spec.InitContainers, m.Spec.Template.Spec.Containers...) {
		names = append(names, c.Name)
	}
	return names
}

// imagesByWorkload decides which --image changes apply to which workload of the new
// manifests, as `kubectl set image -f DIR NAME=IMAGE` does: each workload gets the changes
// whose container it has ("*": every workload), and a workload without the container is left
// as its manifest says (kubectl reports it and patches the others). A change whose container
// no workload has is an error naming the workloads' containers: it would change nothing.
func imagesByWorkload(set *manifest.Set, images []kernel.ImageChange, defaultNS string) (map[*manifest.Object][]kernel.ImageChange, error) {
	if len(images) == 0 {
		return nil, nil
	}
	out := map[*manifest.Object][]kernel.ImageChange{}
	used := make([]bool, len(images))
	var have, containers []string
	for _, obj := range set.Objects {
		if !imageKind(obj) {
			continue
		}
		names := containerNames(obj.JSON)
		for _, n := range names {
			if !slices.Contains(containers, n) {
				containers = append(containers, n)
			}
		}
		ns := obj.Namespace
		if ns == "" {
			ns = defaultNS
		}
		if w := fmt.Sprintf("%s %s/%s: %s", obj.Kind, ns, obj.Name, strings.Join(names, ", ")); !slices.Contains(have, w) {
			have = append(have, w)
		}
		for i, ic := range images {
			if ic.Container == "*" || slices.Contains(names, ic.Container) {
				out[obj] = append(out[obj], ic)
				used[i] = true
			}
		}
	}
	for i, ic := range images {
		if used[i] {
			continue
		}
		hint := ""
		if n := nearest.Nearest(ic.Container, containers); n != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", n)
		}
		switch {
		case len(have) == 0:
			return nil, fmt.Errorf("--image %s=%s: the files hold no Deployment, StatefulSet or DaemonSet", ic.Container, ic.Image)
		case len(have) > maxListed:
			slices.Sort(containers)
			named := strings.Join(containers, ", ")
			if len(containers) > 2*maxListed {
				named = fmt.Sprintf("%s and %d more", strings.Join(containers[:2*maxListed], ", "), len(containers)-2*maxListed)
			}
			return nil, fmt.Errorf("--image %s=%s: none of the %d workloads of the files has a container named %q%s; their containers are named %s",
				ic.Container, ic.Image, len(have), ic.Container, hint, named)
		}
		return nil, fmt.Errorf("--image %s=%s: no workload of the files has a container named %q%s; their containers: %s",
			ic.Container, ic.Image, ic.Container, hint, strings.Join(have, "; "))
	}
	return out, nil
}
