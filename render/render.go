// Package render turns Helm charts and kustomize overlays into objects in
// process, for the manifest loader: a chart is rendered as helm template
// renders it (helm.sh/helm/v4), an overlay built as kustomize build builds
// it (sigs.k8s.io/kustomize/api's krusty). Every rendered object keeps a
// way back to the file a person edits (see manifest.Origin): a template's
// line for a chart, a resource's or patch's line for an overlay.
//
// Nothing here uses the network: a chart dependency not vendored in charts/
// and a remote kustomize base are errors naming them.
package render

import (
	"fmt"
	"os"

	"github.com/kubectl-workload/kubectl-workload/manifest"
	"github.com/kubectl-workload/kubectl-workload/version"
)

// Options are helm template's options that lint and predict take.
type Options struct {
	// ValuesFiles are values files (--helm-values), merged in order.
	ValuesFiles []string
	// Set and SetString are --set and --set-string values.
	Set       []string
	SetString []string
	// ReleaseName is the release's name; "release-name" (helm template's)
	// when empty.
	ReleaseName string
	// Namespace is the release's namespace; "default" when empty.
	Namespace string
	// KubeVersion sets .Capabilities.KubeVersion; the embedded Kubernetes
	// release when empty.
	KubeVersion string
}

// DefaultReleaseName is helm template's release name.
const DefaultReleaseName = "release-name"

// DefaultKubeVersion is the Kubernetes version .Capabilities reports when
// Options.KubeVersion is empty: the release this binary embeds.
func DefaultKubeVersion() string { return version.KubernetesRelease }

// Renderer renders charts and builds kustomizations with fixed options. It
// implements manifest.Renderer.
type Renderer struct {
	opts Options
}

// New returns a Renderer with opts. It checks the options that do not
// depend on a chart (the Kubernetes version's syntax, values files being
// readable) so that a mistake is reported once, before any loading.
func New(opts Options) (*Renderer, error) {
	if opts.ReleaseName == "" {
		opts.ReleaseName = DefaultReleaseName
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.KubeVersion == "" {
		opts.KubeVersion = DefaultKubeVersion()
	}
	if err := checkKubeVersion(opts.KubeVersion); err != nil {
		return nil, err
	}
	for _, f := range opts.ValuesFiles {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("--helm-values %s: %w", f, err)
		}
	}
	return &Renderer{opts: opts}, nil
}

// Render implements manifest.Renderer. A panic in the Helm or kustomize
// libraries on a strange chart or overlay is a problem of that directory,
// not a crash of the run.
func (r *Renderer) Render(dir string, kind manifest.DirKind) (set *manifest.Set) {
	defer func() {
		if v := recover(); v != nil {
			set = &manifest.Set{Files: 1, Problems: []manifest.Problem{{Source: manifest.Source{File: dir}, Kind: manifest.Unparsable,
				Pos: manifest.Pos{Line: 1, Column: 1}, Message: fmt.Sprintf("%s: rendering %s failed: %v", dir, kind, v)}}}
		}
	}()
	switch kind {
	case manifest.Chart:
		return r.helm(dir)
	case manifest.Kustomization:
		return r.kustomize(dir)
	}
	return &manifest.Set{Problems: []manifest.Problem{{Source: manifest.Source{File: dir}, Kind: manifest.Unreadable,
		Message: fmt.Sprintf("%s: unknown kind of directory %q", dir, kind)}}}
}
