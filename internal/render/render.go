// Package render turns Helm charts and kustomize overlays into objects in
// process, for the manifest loader: a chart is rendered as helm template
// renders it (helm.sh/helm/v4), an overlay built as kustomize build builds
// it (sigs.k8s.io/kustomize/api's krusty). Every rendered object keeps a
// way back to the file a person edits (see manifest.Origin): a template's
// line for a chart, a resource's or patch's line for an overlay.
//
// Nothing here uses the network: a chart dependency not vendored in charts/
// and a remote kustomize base are errors naming them.
//
// kubectl-workload does not link this package: it runs it in the helper
// process kubectl_workload-render (Serve), through package render/helper,
// so that a run without charts does not pay for the Helm and kustomize
// libraries' initialisation.
package render

import (
	"fmt"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// Options are helm template's options that lint and predict take.
type Options = helper.Options

// DefaultReleaseName is helm template's release name.
const DefaultReleaseName = helper.DefaultReleaseName

// DefaultKubeVersion is the Kubernetes version .Capabilities reports when
// Options.KubeVersion is empty: the release this binary embeds.
func DefaultKubeVersion() string { return helper.DefaultKubeVersion() }

// Renderer renders charts and builds kustomizations with fixed options, in
// this process. It implements manifest.Renderer.
type Renderer struct {
	opts Options
}

// New returns a Renderer with opts. It checks the options that do not
// depend on a chart (the Kubernetes version's syntax, values files being
// readable) so that a mistake is reported once, before any loading.
func New(opts Options) (*Renderer, error) {
	opts, err := helper.Check(opts)
	if err != nil {
		return nil, err
	}
	return &Renderer{opts: opts}, nil
}

// rendered is what rendering a directory gives: the rendered stream, named
// name (manifest.RenderedName), and its origin, or else the failed set
// (no objects, a problem at the line of the file to fix).
type rendered struct {
	name   string
	stream []byte
	origin manifest.Origin
	failed *manifest.Set
}

// set is the loaded set: the stream parsed as lint parses a file, with its
// origin.
func (p rendered) set() *manifest.Set {
	if p.failed != nil {
		return p.failed
	}
	set := manifest.Parse(p.name, p.stream)
	if set.Origins == nil {
		set.Origins = map[string]manifest.Origin{}
	}
	set.Origins[p.name] = p.origin
	return set
}

// Render implements manifest.Renderer. A panic in the Helm or kustomize
// libraries on a strange chart or overlay is a problem of that directory,
// not a crash of the run.
func (r *Renderer) Render(dir string, kind manifest.DirKind) *manifest.Set {
	return r.render("", dir, kind).set()
}

// RenderIn implements manifest.RootedRenderer: a chart's links may lead
// anywhere in root, the input it was found in.
func (r *Renderer) RenderIn(root, dir string, kind manifest.DirKind) *manifest.Set {
	return r.render(root, dir, kind).set()
}

func (r *Renderer) render(root, dir string, kind manifest.DirKind) (out rendered) {
	defer func() {
		if v := recover(); v != nil {
			out = rendered{failed: &manifest.Set{Files: 1, Problems: []manifest.Problem{{Source: manifest.Source{File: dir}, Kind: manifest.Unparsable,
				Pos: manifest.Pos{Line: 1, Column: 1}, Message: fmt.Sprintf("%s: rendering %s failed: %v", dir, kind, v)}}}}
		}
	}()
	switch kind {
	case manifest.Chart:
		return r.helm(dir, root)
	case manifest.Kustomization:
		return r.kustomize(dir)
	}
	return rendered{failed: &manifest.Set{Problems: []manifest.Problem{{Source: manifest.Source{File: dir}, Kind: manifest.Unreadable,
		Message: fmt.Sprintf("%s: unknown kind of directory %q", dir, kind)}}}}
}

// Stream renders dir and returns the rendered YAML stream as helm template
// or kustomize build prints it, or an error holding the problem that
// rendering met. The real-world corpus (hack/update-realworld.sh) is made
// with it.
func (r *Renderer) Stream(dir string, kind manifest.DirKind) ([]byte, error) {
	out := r.render("", dir, kind)
	if out.failed != nil {
		var msgs []string
		for _, p := range out.failed.Problems {
			msgs = append(msgs, fmt.Sprintf("%s:%d: %s", p.Source.File, p.Pos.Line, p.Message))
		}
		return nil, fmt.Errorf("render %s: %s", dir, strings.Join(msgs, "; "))
	}
	return out.stream, nil
}

// kustomize build's --load-restrictor values.
const (
	LoadRestrictionsRootOnly = helper.LoadRestrictionsRootOnly
	LoadRestrictionsNone     = helper.LoadRestrictionsNone
)
