package bench

import (
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/render"
)

// BenchmarkRender measures rendering the test chart (with its subchart) and
// the test overlay (a base, patches, a component) in process, as lint and
// predict do for each chart or overlay in their input.
func BenchmarkRender(b *testing.B) {
	r, err := render.New(render.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, dir string
		kind      manifest.DirKind
		objects   int
	}{
		{"helm", "../internal/render/testdata/web", manifest.Chart, 4},
		{"kustomize", "../internal/render/testdata/kustomize/overlays/prod", manifest.Kustomization, 3},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				set := r.Render(c.dir, c.kind)
				if len(set.Objects) != c.objects || len(set.Problems) > 0 {
					b.Fatalf("Render(%s) = %d objects, problems %v; want %d objects", c.dir, len(set.Objects), set.Problems, c.objects)
				}
			}
		})
	}
}
