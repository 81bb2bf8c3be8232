package helper

import (
	"context"
	"os"
	"path/filepath"

	"github.com/kubectl-workload/kubectl-workload/internal/gitref"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// AtRef renders the chart or kustomization in dir as it is at the git ref: the work tree at
// ref is extracted to a temporary directory (bases may be anywhere in it) and the directory
// rendered there with r. A directory that does not exist at ref gives an empty set.
func AtRef(ctx context.Context, r manifest.Renderer, ref, dir string, kind manifest.DirKind) (*manifest.Set, error) {
	repo, err := gitref.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	rel, err := repo.Rel(dir)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "kubectl-workload-base-ref-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := repo.Extract(ctx, ref, tmp); err != nil {
		return nil, err
	}
	old := filepath.Join(tmp, filepath.FromSlash(rel))
	if _, err := os.Stat(old); err != nil {
		return &manifest.Set{}, nil // new since ref
	}
	if rr, ok := r.(manifest.RootedRenderer); ok {
		return rr.RenderIn(tmp, old, kind), nil // the work tree at ref is the input
	}
	return r.Render(old, kind), nil
}
