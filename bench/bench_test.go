package bench

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/lint"
)

// corpusObjects is the size of the benchmark corpus.
const corpusObjects = 10_000

// sampleInterval is how often the peak-memory sampler reads the heap.
const sampleInterval = 2 * time.Millisecond

// writeCorpus generates the corpus into a fresh temporary directory.
func writeCorpus(tb testing.TB, objects int) (string, Stats) {
	tb.Helper()
	dir := tb.TempDir()
	st, err := GenerateCorpus(dir, objects)
	if err != nil {
		tb.Fatalf("generate corpus: %v", err)
	}
	if st.Objects != objects || st.Invalid == 0 {
		tb.Fatalf("generated %d objects (%d invalid), want %d with some invalid", st.Objects, st.Invalid, objects)
	}
	return dir, st
}

// BenchmarkLint10k measures a full lint run (load, parse, API-server
// validation, positions, sorting) over the 10,000-object corpus: ns/op is one
// whole run; objects/s is throughput; peak-heap-MB is the highest heap
// footprint seen during the runs (objects in the heap, live or not yet
// swept); peak-live-MB is the highest live heap after a GC cycle; maxrss-MB
// is the process's resident-set high-water mark so far.
func BenchmarkLint10k(b *testing.B) {
	dir, st := writeCorpus(b, corpusObjects)
	l := newLinter(b)
	ctx := context.Background()
	opts := lint.Options{Paths: []string{dir}}
	b.ReportAllocs()
	runtime.GC()
	sampler := startPeakSampler(sampleInterval)
	var res *lint.Result
	var stages lint.Timings
	for b.Loop() {
		res = l.Run(ctx, opts)
		stages.Load += res.Timings.Load
		stages.Inventory += res.Timings.Inventory
		stages.Rules += res.Timings.Rules
		// The correctness guard: cheap, so it stays in the loop and every
		// iteration is known to have done the whole job.
		if res.Objects != st.Objects || len(res.Findings) == 0 || len(res.Errors) > 0 {
			b.Fatalf("lint saw %d objects and %d findings (errors %v), want %d objects and some findings",
				res.Objects, len(res.Findings), res.Errors, st.Objects)
		}
	}
	peak := sampler.stop()
	checkFindings(b, dir, res, st)
	b.ReportMetric(float64(st.Objects)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
	// Where a run's time goes: loading with the per-object checks (parse,
	// API tier, per-object rules), the inventory, and the cross-resource rules.
	b.ReportMetric(stages.Load.Seconds()/float64(b.N), "load+api-s/op")
	b.ReportMetric(stages.Inventory.Seconds()/float64(b.N), "inventory-s/op")
	b.ReportMetric(stages.Rules.Seconds()/float64(b.N), "rules-s/op")
	b.ReportMetric(toMB(peak.heap), "peak-heap-MB")
	b.ReportMetric(toMB(peak.live), "peak-live-MB")
	if rss := maxRSS(); rss > 0 {
		b.ReportMetric(toMB(rss), "maxrss-MB")
	}
}

// BenchmarkLoad10k measures loading alone (walk, read, split, yaml.v3 parse
// for positions, YAML-to-JSON) over the same corpus.
func BenchmarkLoad10k(b *testing.B) {
	dir, st := writeCorpus(b, corpusObjects)
	paths := []string{dir}
	b.ReportAllocs()
	runtime.GC()
	sampler := startPeakSampler(sampleInterval)
	for b.Loop() {
		set := manifest.Load(paths, nil)
		if len(set.Objects) != st.Objects || set.Files != st.Files || len(set.Problems) != st.Broken {
			b.Fatalf("load saw %d objects in %d files (%d problems), want %d objects in %d files (%d broken documents)",
				len(set.Objects), set.Files, len(set.Problems), st.Objects, st.Files, st.Broken)
		}
	}
	peak := sampler.stop()
	b.ReportMetric(float64(st.Objects)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
	b.ReportMetric(toMB(peak.heap), "peak-heap-MB")
	b.ReportMetric(toMB(peak.live), "peak-live-MB")
}

// BenchmarkLintSingleDeployment measures the cost of one valid Deployment
// through the whole of lint.Run, read from an in-memory "stdin" so that no
// file-system calls are counted.
func BenchmarkLintSingleDeployment(b *testing.B) {
	doc := ObjectOf(KindDeployment, 0)
	l := newLinter(b)
	ctx := context.Background()
	rd := bytes.NewReader(doc)
	opts := lint.Options{Paths: []string{"-"}, Stdin: rd}
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		rd.Reset(doc)
		res := l.Run(ctx, opts)
		if res.Objects != 1 || len(res.Findings) != 0 || len(res.Errors) > 0 {
			b.Fatalf("lint saw %d objects, findings %v, errors %v; want 1 valid object", res.Objects, res.Findings, res.Errors)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "objects/s")
}

// TestCorpusIsDeterministic checks that the generator writes the same bytes
// twice and that the loader finds exactly the objects it planned.
func TestCorpusIsDeterministic(t *testing.T) {
	const n = 200
	dirA, st := writeCorpus(t, n)
	dirB, _ := writeCorpus(t, n)
	a, b := readTree(t, dirA), readTree(t, dirB)
	if want := (n+ObjectsPerFile-1)/ObjectsPerFile + st.Broken; len(a) != st.Files || len(b) != st.Files || st.Files != want {
		t.Fatalf("got %d and %d files, stats say %d, want %d", len(a), len(b), st.Files, want)
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between two generations", name)
		}
	}
	if dirs := subdirs(a); len(dirs) < 4 {
		t.Errorf("corpus spans %d directories %v, want several", len(dirs), dirs)
	}
	// Object i does not depend on the corpus size: a smaller corpus's full
	// files are byte for byte those of a larger one.
	const small = n/2 + ObjectsPerFile/2
	dirC, _ := writeCorpus(t, small)
	c := readTree(t, dirC)
	partial := PlanOf(small - 1).File
	for name, data := range c {
		if name != partial && !bytes.Equal(data, a[name]) {
			t.Errorf("%s differs between a %d- and a %d-object corpus", name, small, n)
		}
	}

	set := manifest.Load([]string{dirA}, nil)
	if len(set.Objects) != n || set.Files != st.Files || set.Documents != n+st.Broken || len(set.Problems) != st.Broken ||
		len(set.Skipped) > 0 || st.Broken == 0 {
		t.Fatalf("manifest.Load: %d objects, %d files, %d documents, problems %v, skipped %v; want %d objects in %d files, %d broken",
			len(set.Objects), set.Files, set.Documents, set.Problems, set.Skipped, n, st.Files, st.Broken)
	}
	for _, p := range set.Problems {
		if p.Kind != manifest.Unparsable {
			t.Errorf("problem %v, want only unparsable documents", p)
		}
	}
	kinds := map[string]int{}
	for _, obj := range set.Objects {
		kinds[obj.Kind]++
	}
	for k, c := range st.ByKind {
		if kinds[k] != c {
			t.Errorf("loaded %d %s objects, generated %d", kinds[k], k, c)
		}
	}
	for _, k := range []string{KindDeployment, KindStatefulSet, KindDaemonSet, KindJob, KindCronJob, KindPod,
		KindReplicaSet, KindService, KindConfigMap, KindPDB, KindHPA} {
		if kinds[k] == 0 {
			t.Errorf("no %s in a %d-object corpus", k, n)
		}
	}
	if st.Invalid != n/10 {
		t.Errorf("%d invalid objects, want %d", st.Invalid, n/10)
	}
	for d := SelectorMismatch; d <= UnknownField; d++ {
		if st.ByDefect[d] == 0 {
			t.Errorf("no %s object in a %d-object corpus", d, n)
		}
	}
}

// TestCorpusFindings lints a small corpus and checks that exactly the planned
// invalid objects are rejected, each for the planned reason.
func TestCorpusFindings(t *testing.T) {
	const n = 200
	dir, st := writeCorpus(t, n)
	res := newLinter(t).Run(context.Background(), lint.Options{Paths: []string{dir}})
	if len(res.Errors) > 0 {
		t.Fatalf("lint errors: %v", res.Errors)
	}
	if res.Objects != n {
		t.Fatalf("lint saw %d objects, want %d", res.Objects, n)
	}
	checkFindings(t, dir, res, st)
}

// wantRule is the rule each defect must be reported under.
var wantRule = map[Defect]string{
	SelectorMismatch: "api/invalid",
	NegativeCount:    "api/invalid",
	MissingImage:     "api/required",
	UnknownField:     "api/unknown-field",
}

// checkFindings checks that the error findings fall on exactly the planned
// invalid objects, with the planned rule, and on the broken documents, as
// input/unparsable. Warnings are allowed anywhere.
func checkFindings(tb testing.TB, dir string, res *lint.Result, st Stats) {
	tb.Helper()
	type key struct {
		file string
		doc  int
	}
	rules := map[key]map[string]bool{}
	for _, f := range res.Findings {
		if f.Severity != lint.SeverityError {
			continue
		}
		rel, err := filepath.Rel(dir, f.File)
		if err != nil {
			tb.Fatalf("finding outside the corpus: %v", f)
		}
		k := key{rel, f.Document}
		if rules[k] == nil {
			rules[k] = map[string]bool{}
		}
		rules[k][f.Rule] = true
	}
	if len(rules) != st.Invalid+st.Broken {
		tb.Errorf("%d documents have errors, want the %d planned invalid objects and %d broken documents",
			len(rules), st.Invalid, st.Broken)
	}
	for f := 0; f*ObjectsPerFile < st.Objects; f++ {
		if !BrokenFile(f) {
			continue
		}
		if got := rules[key{BrokenFileOf(f), 0}]; !got[lint.RuleUnparsable] || len(got) != 1 {
			tb.Errorf("broken document %s has errors %v, want %s", BrokenFileOf(f), got, lint.RuleUnparsable)
		}
	}
	bad := 0
	for i := range st.Objects {
		p := PlanOf(i)
		got := rules[key{p.File, p.Document}]
		switch {
		case p.Defect == Valid && got != nil:
			tb.Errorf("valid %s %s (%s #%d) has errors %v", p.Kind, p.Name, p.File, p.Document, got)
			bad++
		case p.Defect != Valid && !got[wantRule[p.Defect]]:
			tb.Errorf("%s %s (%s #%d) with %s has errors %v, want %s", p.Kind, p.Name, p.File, p.Document, p.Defect, got, wantRule[p.Defect])
			bad++
		}
		if bad >= 10 {
			tb.Fatalf("too many mismatches")
		}
	}
}

// readTree reads every file under dir, by path relative to dir.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func subdirs(files map[string][]byte) []string {
	seen := map[string]bool{}
	var out []string
	for name := range files {
		d := filepath.Dir(name)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// peak is the highest memory seen by a sampler.
type peak struct {
	// heap is /memory/classes/heap/objects:bytes: the bytes of heap
	// objects, live or dead but not yet swept; what the heap really holds.
	heap uint64
	// live is /gc/heap/live:bytes: the heap marked live by the last GC.
	live uint64
}

// peakSampler reads the heap metrics every interval until stopped.
type peakSampler struct {
	stopc chan struct{}
	wg    sync.WaitGroup
	max   peak
}

var sampleNames = []string{"/memory/classes/heap/objects:bytes", "/gc/heap/live:bytes"}

func startPeakSampler(interval time.Duration) *peakSampler {
	s := &peakSampler{stopc: make(chan struct{})}
	samples := make([]metrics.Sample, len(sampleNames))
	for i, n := range sampleNames {
		samples[i].Name = n
	}
	read := func() {
		metrics.Read(samples)
		s.max.heap = max(s.max.heap, value(samples[0]))
		s.max.live = max(s.max.live, value(samples[1]))
	}
	read()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.stopc:
				read()
				return
			case <-t.C:
				read()
			}
		}
	}()
	return s
}

func value(s metrics.Sample) uint64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s.Value.Uint64()
}

// stop ends sampling and returns the peaks.
func (s *peakSampler) stop() peak {
	close(s.stopc)
	s.wg.Wait()
	return s.max
}

func toMB(b uint64) float64 { return float64(b) / (1 << 20) }

// newLinter builds a Linter with the built-in rules and no user policies.
func newLinter(tb testing.TB) *lint.Linter {
	tb.Helper()
	l, err := lint.New(lint.Config{})
	if err != nil {
		tb.Fatalf("lint.New: %v", err)
	}
	return l
}
