// Package helper renders Helm charts and kustomize overlays for lint and
// predict in a helper process, kubectl_workload-render, which links the Helm
// and kustomize libraries (package render). kubectl-workload itself does not
// link them: their package initialisation (Helm's JSON-schema meta-schemas
// among it) would cost every run, and most runs have no chart. A helper
// starts on the first chart or kustomization of a run, more (one per CPU at
// most) when several render at once, and they stay until the run ends;
// their answers are exactly package render's, which renders in this process
// for tests and benchmarks.
//
// The helper is found, in order: at $KUBECTL_WORKLOAD_RENDER; beside this
// executable (a krew install, a release archive and go install ./... put it
// there); on PATH.
package helper

import (
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/util/version"

	kwversion "github.com/kubectl-workload/kubectl-workload/internal/version"
)

// Options are helm template's options that lint and predict take.
type Options struct {
	// ValuesFiles are values files (--values), merged in order.
	ValuesFiles []string `json:"valuesFiles,omitempty"`
	// Set, SetString, SetJSON, SetFile and SetLiteral are --set,
	// --set-string, --set-json, --set-file and --set-literal values.
	Set        []string `json:"set,omitempty"`
	SetString  []string `json:"setString,omitempty"`
	SetJSON    []string `json:"setJSON,omitempty"`
	SetFile    []string `json:"setFile,omitempty"`
	SetLiteral []string `json:"setLiteral,omitempty"`
	// ReleaseName is the release's name; "release-name" (helm template's)
	// when empty.
	ReleaseName string `json:"releaseName,omitempty"`
	// Namespace is the release's namespace; "default" when empty.
	Namespace string `json:"namespace,omitempty"`
	// KubeVersion sets .Capabilities.KubeVersion; the embedded Kubernetes
	// release when empty.
	KubeVersion string `json:"kubeVersion,omitempty"`
	// APIVersions are added to .Capabilities.APIVersions, as helm
	// template's --api-versions: "group/version" or "group/version/Kind".
	APIVersions []string `json:"apiVersions,omitempty"`
	// ClusterAPIVersions, when set, are the API versions the target cluster
	// serves (its discovery, with --live or --against-live), in place of
	// those a v1.37 API server serves by default.
	ClusterAPIVersions []string `json:"clusterAPIVersions,omitempty"`
	// HelmTests renders a chart's test hooks (helm.sh/hook: test), which
	// helm install does not create; left out when false.
	HelmTests bool `json:"helmTests,omitempty"`
	// LoadRestrictor is kustomize build's --load-restrictor:
	// LoadRestrictionsRootOnly (the default when empty) or
	// LoadRestrictionsNone, which lets a kustomization read files outside
	// its directory (a patch in ../common, as Argo CD and Flux build).
	LoadRestrictor string `json:"loadRestrictor,omitempty"`
	// Limits bound each helper process.
	Limits Limits `json:"limits,omitzero"`
}

// Limits bound a helper process, which renders what may be hostile (a
// template looping 10^10 times, ranging over until 2000000000, calling
// itself through tpl; a kustomize resource that is an alias bomb). The
// zero value of each field is its default.
type Limits struct {
	// Memory is the memory, in bytes, a helper may hold; over it, the
	// helper stops and the directory it was rendering gets the error.
	Memory int64 `json:"memory,omitempty"`
	// Timeout is how long rendering one directory may take; past it, the
	// helper is stopped and the directory gets the error.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// The default Limits: no chart or overlay seen in the real-world corpus
// comes near them (the largest renders in under 2 s and 200 MiB).
const (
	DefaultMemoryLimit = 1 << 30
	DefaultTimeout     = 2 * time.Minute
)

// kustomize build's --load-restrictor values.
const (
	LoadRestrictionsRootOnly = "LoadRestrictionsRootOnly"
	LoadRestrictionsNone     = "LoadRestrictionsNone"
)

// DefaultReleaseName is helm template's release name.
const DefaultReleaseName = "release-name"

// DefaultKubeVersion is the Kubernetes version .Capabilities reports when
// Options.KubeVersion is empty: the release this binary embeds.
func DefaultKubeVersion() string { return kwversion.KubernetesRelease }

// Check fills in the defaults of opts and checks what does not depend on a
// chart (the Kubernetes version's syntax, values files being readable), so
// that a mistake is reported once, before any loading.
func Check(opts Options) (Options, error) {
	if opts.ReleaseName == "" {
		opts.ReleaseName = DefaultReleaseName
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.KubeVersion == "" {
		opts.KubeVersion = DefaultKubeVersion()
	}
	if err := CheckKubeVersion(opts.KubeVersion); err != nil {
		return opts, err
	}
	switch opts.LoadRestrictor {
	case "":
		opts.LoadRestrictor = LoadRestrictionsRootOnly
	case LoadRestrictionsRootOnly, LoadRestrictionsNone:
	default:
		return opts, fmt.Errorf("invalid --load-restrictor %q: want %s or %s", opts.LoadRestrictor, LoadRestrictionsRootOnly, LoadRestrictionsNone)
	}
	if opts.Limits.Memory <= 0 {
		opts.Limits.Memory = DefaultMemoryLimit
	}
	if opts.Limits.Timeout <= 0 {
		opts.Limits.Timeout = DefaultTimeout
	}
	for _, f := range opts.ValuesFiles {
		if _, err := os.Stat(f); err != nil {
			return opts, fmt.Errorf("--values %s: %w", f, err)
		}
	}
	return opts, nil
}

// CheckKubeVersion checks a --kube-version as helm template does: helm's
// common.ParseKubeVersion (helm.sh/helm/v4/pkg/chart/common) accepts what
// k8s.io/apimachinery's version.ParseGeneric accepts, and fails with its
// error, which this mirrors.
func CheckKubeVersion(v string) error {
	if _, err := version.ParseGeneric(v); err != nil {
		return fmt.Errorf("invalid --kube-version %q: %w", v, err)
	}
	return nil
}
