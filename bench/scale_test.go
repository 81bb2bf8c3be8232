package bench

import (
	"context"
	"runtime"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// BenchmarkLintRepoScale is a lint run over the repo-shaped corpus at 10,000
// and 100,000 objects (issue 41: the memory a run holds should not grow with
// the repository). It reports the peak heap and the peak live heap of the
// run, and the live heap per object: a streamed run keeps, per object, only
// the inventory entry, positions and findings. The 100,000-object size takes
// minutes and 65 MB of disk; -short leaves it out.
func BenchmarkLintRepoScale(b *testing.B) {
	for _, size := range []struct {
		name    string
		objects int
	}{{"10k", 10_000}, {"100k", 100_000}} {
		b.Run(size.name, func(b *testing.B) {
			if testing.Short() && size.objects > corpusObjects {
				b.Skip("-short: the 100,000-object corpus is left out")
			}
			dir := b.TempDir()
			st, err := GenerateShape(dir, ShapeRepo, size.objects, 1)
			if err != nil {
				b.Fatal(err)
			}
			l := newLinter(b)
			ctx := context.Background()
			opts := lint.Options{Paths: []string{dir}}
			b.ReportAllocs()
			runtime.GC()
			sampler := startPeakSampler(sampleInterval)
			var res *lint.Result
			for b.Loop() {
				res = l.Run(ctx, opts)
				if res.Objects != st.Objects || len(res.Errors) > 0 {
					b.Fatalf("lint saw %d objects (errors %v), want %d", res.Objects, res.Errors, st.Objects)
				}
			}
			peak := sampler.stop()
			b.ReportMetric(float64(len(res.Findings)), "findings")
			b.ReportMetric(toMB(peak.heap), "peak-heap-MB")
			b.ReportMetric(toMB(peak.live), "peak-live-MB")
			b.ReportMetric(float64(peak.live)/float64(st.Objects), "peak-live-B/object")
		})
	}
}
