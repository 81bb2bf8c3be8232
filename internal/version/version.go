// Package version says which plugin this is and which Kubernetes release's
// validation and controller code it embeds.
package version

import "runtime/debug"

// Version is the plugin's version, set at release time with
// -ldflags "-X github.com/kubectl-workload/kubectl-workload/internal/version.Version=v0.1.0".
// Unset, it falls back to the module version go install recorded, else "dev".
var Version = ""

// kubernetesModule is the module whose code the plugin embeds.
const kubernetesModule = "k8s.io/kubernetes"

// Info is what `kubectl workload version` prints.
type Info struct {
	// Plugin is this plugin's version.
	Plugin string `json:"plugin"`
	// Kubernetes is the k8s.io/kubernetes version whose API validation,
	// defaulting and controller logic are compiled in.
	Kubernetes string `json:"kubernetes"`
	// GoVersion is the Go toolchain that built the binary.
	GoVersion string `json:"goVersion"`
}

// Get reads the versions from the binary's build information where it lists
// k8s.io/kubernetes (a built binary), else from KubernetesRelease (test
// binaries record no dependencies); a test keeps the two in step with go.mod.
func Get() Info {
	info := Info{Plugin: Version, Kubernetes: KubernetesRelease, GoVersion: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		if info.Plugin == "" {
			info.Plugin = "dev"
		}
		return info
	}
	info.GoVersion = bi.GoVersion
	if info.Plugin == "" {
		info.Plugin = bi.Main.Version
		if info.Plugin == "" || info.Plugin == "(devel)" {
			info.Plugin = "dev"
		}
	}
	for _, dep := range bi.Deps {
		if dep.Path == kubernetesModule {
			info.Kubernetes = dep.Version
			if dep.Replace != nil {
				info.Kubernetes = dep.Replace.Version
			}
		}
	}
	return info
}
