package bench

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// realWorldCorpus is the real-world corpus RealWorldCounts is measured on.
const realWorldCorpus = "/work/shared/corpus/real-world"

// TestRealWorldCounts recomputes RealWorldCounts and the objects per file
// from the real-world corpus.
func TestRealWorldCounts(t *testing.T) {
	if _, err := os.Stat(realWorldCorpus); err != nil {
		t.Skipf("no real-world corpus: %v", err)
	}
	m, err := MeasureMix(realWorldCorpus)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for k := range RealWorldCounts {
		got[k] = 0
	}
	for k, n := range m.ByKind {
		switch k {
		case KindService, KindPod, KindDeployment, KindReplicaSet, KindDaemonSet, KindStatefulSet,
			KindHPA, KindPDB, KindConfigMap, KindJob, KindCronJob:
			got[k] += n
		case "ReplicationController":
			got[KindReplicaSet] += n
		default:
			got[KindServiceAccount] += n
		}
	}
	if !reflect.DeepEqual(got, RealWorldCounts) {
		t.Errorf("the real-world corpus's folded mix is %v, RealWorldCounts says %v", got, RealWorldCounts)
	}
	if m.PerFile() != RealWorldObjectsPerFile {
		t.Errorf("the real-world corpus has %.4f objects per file, RealWorldObjectsPerFile says %.4f", m.PerFile(), RealWorldObjectsPerFile)
	}
}

// TestRepoShapedMix checks the repo-shaped corpus against its weights: each
// kind's share within two points, objects per file within 0.05 of the real
// world's, a namespace per service and a tenth of the objects invalid.
func TestRepoShapedMix(t *testing.T) {
	const n = 4000
	dir := t.TempDir()
	st, err := GenerateRepoShaped(dir, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Objects != n || st.Invalid != n/10 {
		t.Fatalf("%d objects, %d invalid; want %d and %d", st.Objects, st.Invalid, n, n/10)
	}
	w := RepoWeights()
	for k, weight := range w {
		got := 1000 * float64(st.ByKind[k]) / n
		if math.Abs(got-float64(weight)) > 20 {
			t.Errorf("%s: %.0f per thousand, want %d ± 20", k, got, weight)
		}
	}
	if pf := float64(st.Objects) / float64(st.Files); math.Abs(pf-RealWorldObjectsPerFile) > 0.05 {
		t.Errorf("%.3f objects per file, want %.3f ± 0.05", pf, RealWorldObjectsPerFile)
	}
	services := map[string]bool{}
	for _, p := range st.Plans {
		services[filepath.Dir(p.File)] = true
		if p.Namespace == "" {
			t.Fatalf("%s %s in %s names no namespace", p.Kind, p.Name, p.File)
		}
	}
	if st.Namespaces != len(services) {
		t.Errorf("%d namespaces for %d service directories, want one each", st.Namespaces, len(services))
	}
}

// TestShapesAreDeterministic checks that the shaped generators write the same
// bytes twice for a seed, and other bytes for another seed (repo only: the
// one-namespace corpus draws little).
func TestShapesAreDeterministic(t *testing.T) {
	for _, shape := range []Shape{ShapeRepo, ShapeServices, ShapeOneNamespace} {
		a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
		for _, d := range []string{a, b} {
			if _, err := GenerateShape(d, shape, 300, 7); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := GenerateShape(c, shape, 300, 8); err != nil {
			t.Fatal(err)
		}
		ta, tb, tc := readTree(t, a), readTree(t, b), readTree(t, c)
		if !reflect.DeepEqual(ta, tb) {
			t.Errorf("%s: two runs with one seed differ", shape)
		}
		if shape != ShapeOneNamespace && reflect.DeepEqual(ta, tc) {
			t.Errorf("%s: seeds 7 and 8 write the same corpus", shape)
		}
	}
}

// TestShapedCorpusFindings lints small corpora of each new shape: errors
// fall on exactly the planned invalid objects, with the planned rule.
func TestShapedCorpusFindings(t *testing.T) {
	for _, shape := range []Shape{ShapeRepo, ShapeServices, ShapeOneNamespace} {
		dir := t.TempDir()
		st, err := GenerateShape(dir, shape, 600, 1)
		if err != nil {
			t.Fatal(err)
		}
		res := newLinter(t).Run(context.Background(), lint.Options{Paths: []string{dir}})
		if len(res.Errors) > 0 || res.Objects != st.Objects {
			t.Fatalf("%s: lint saw %d objects (errors %v), want %d", shape, res.Objects, res.Errors, st.Objects)
		}
		if shape != ShapeOneNamespace {
			checkPlanFindings(t, dir, res, st.Plans, st.Invalid)
			continue
		}
		// One namespace: the planted overlaps are the only errors, one
		// finding on each Deployment and each budget.
		want := map[string]string{KindDeployment: "selector/overlap", KindReplicaSet: "selector/overlap", KindPDB: "pdb/overlap"}
		errs := map[string]int{}
		for _, f := range res.Findings {
			if f.Severity == lint.SeverityError {
				errs[f.Rule]++
			}
		}
		wantErrs := map[string]int{}
		for _, p := range st.Plans {
			if r, ok := want[p.Kind]; ok {
				wantErrs[r]++
			}
		}
		if !reflect.DeepEqual(errs, wantErrs) {
			t.Errorf("%s: errors by rule %v, want %v", shape, errs, wantErrs)
		}
	}
}

// checkPlanFindings is checkFindings for a corpus known by its plans.
func checkPlanFindings(tb testing.TB, dir string, res *lint.Result, plans []Plan, invalid int) {
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
	if len(rules) != invalid {
		tb.Errorf("%d documents have errors, want the %d planned invalid objects", len(rules), invalid)
	}
	bad := 0
	for _, p := range plans {
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

// benchmarkShape is BenchmarkLint10k on a corpus of the given shape: one op
// is one lint.Run over it.
func benchmarkShape(b *testing.B, shape Shape, objects int) {
	dir := b.TempDir()
	st, err := GenerateShape(dir, shape, objects, 1)
	if err != nil {
		b.Fatal(err)
	}
	l := newLinter(b)
	ctx := context.Background()
	opts := lint.Options{Paths: []string{dir}}
	b.ReportAllocs()
	var res *lint.Result
	var stages lint.Timings
	for b.Loop() {
		res = l.Run(ctx, opts)
		stages.Load += res.Timings.Load
		stages.Inventory += res.Timings.Inventory
		stages.Rules += res.Timings.Rules
		if res.Objects != st.Objects || len(res.Errors) > 0 {
			b.Fatalf("lint saw %d objects (errors %v), want %d", res.Objects, res.Errors, st.Objects)
		}
	}
	b.ReportMetric(float64(st.Objects)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
	b.ReportMetric(float64(len(res.Findings)), "findings")
	b.ReportMetric(stages.Load.Seconds()/float64(b.N), "load+api-s/op")
	b.ReportMetric(stages.Inventory.Seconds()/float64(b.N), "inventory-s/op")
	b.ReportMetric(stages.Rules.Seconds()/float64(b.N), "rules-s/op")
}

// BenchmarkLintRepo10k is a lint run over the 10,000-object repo-shaped
// corpus.
func BenchmarkLintRepo10k(b *testing.B) { benchmarkShape(b, ShapeRepo, corpusObjects) }

// BenchmarkLintServices10k is a lint run over the 10,000-object
// services-shaped corpus (workloads, Services, budgets and autoscalers only).
func BenchmarkLintServices10k(b *testing.B) { benchmarkShape(b, ShapeServices, corpusObjects) }

// BenchmarkLintOneNamespace10k is a lint run over 10,000 objects in one
// namespace, all sharing labels: the cross-resource worst case.
func BenchmarkLintOneNamespace10k(b *testing.B) { benchmarkShape(b, ShapeOneNamespace, corpusObjects) }

// BenchmarkLintOneNamespace2k is BenchmarkLintOneNamespace10k at a fifth of
// the size: the two together show whether the worst case is linear.
func BenchmarkLintOneNamespace2k(b *testing.B) { benchmarkShape(b, ShapeOneNamespace, corpusObjects/5) }

// TestServicesShapeKinds: the services shape holds only the kinds issue 21
// names, every one of them, with about as many Services as workloads.
func TestServicesShapeKinds(t *testing.T) {
	st, err := GenerateShape(t.TempDir(), ShapeServices, 3000, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{KindDeployment: true, KindStatefulSet: true, KindDaemonSet: true, KindJob: true,
		KindCronJob: true, KindService: true, KindPDB: true, KindHPA: true}
	count := map[string]int{}
	for _, p := range st.Plans {
		if !want[p.Kind] {
			t.Errorf("%s %s: not a kind of the services shape", p.Kind, p.Name)
		}
		count[p.Kind]++
	}
	for k := range want {
		if count[k] == 0 {
			t.Errorf("no %s among %d objects", k, len(st.Plans))
		}
	}
	if s, w := count[KindService], st.Workloads; s < w/2 || s > 3*w {
		t.Errorf("%d Services for %d workloads", s, w)
	}
}
