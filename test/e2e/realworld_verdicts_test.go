package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/test/realworld"
)

var recordRealWorld = flag.Bool("record-realworld", false,
	"ask the real API server for a verdict on every object of test/realworld and rewrite verdicts.json")

var realWorldDir = flag.String("realworld-dir", realworld.Dir,
	"the corpus -record-realworld records, relative to the repository root (test/realworld or test/realworld2)")

// TestRealWorldVerdicts records, with -record-realworld, a real v1.37.1 API
// server's verdict on every object of the real-world corpus: kubectl create
// --dry-run=server --validate=strict, one object at a time, after the
// namespaces the corpus names exist and its CRDs are created. Namespaces and
// CRDs are asked about first, before any exists, so that their own verdict
// is about them and not about a name already taken. Without the flag it
// does nothing: the corpus's differential test (lint's TestRealWorldVerdicts)
// reads the file and needs no cluster.
func TestRealWorldVerdicts(t *testing.T) {
	if !*recordRealWorld {
		t.Skip("records verdicts only with -record-realworld")
	}
	c := sharedCluster(t)
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, *realWorldDir)
	objs, err := realworld.Objects(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	tmp := t.TempDir()

	first := func(o *manifest.Object) bool {
		return o.Kind == "Namespace" || o.Kind == "CustomResourceDefinition"
	}
	var early, rest []*manifest.Object
	for _, o := range objs {
		if first(o) {
			early = append(early, o)
		} else {
			rest = append(rest, o)
		}
	}
	verdicts := ask(ctx, t, c, tmp, dir, early)

	namespaces := map[string]bool{}
	for _, o := range objs {
		if o.Namespace != "" {
			namespaces[o.Namespace] = true
		}
		if o.Kind == "Namespace" {
			namespaces[o.Name] = true
		}
	}
	for _, ns := range slices.Sorted(mapsKeys(namespaces)) {
		if err := c.EnsureNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
	}
	created := map[string]bool{}
	for i, o := range early {
		if o.Kind != "CustomResourceDefinition" || created[o.Name] {
			continue
		}
		created[o.Name] = true
		file := filepath.Join(tmp, fmt.Sprintf("crd-%d.json", i))
		if err := os.WriteFile(file, o.JSON, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := c.Kubectl(ctx, "create", "-f", file); err != nil && !strings.Contains(string(out), "AlreadyExists") {
			t.Logf("create CRD %s: %v: %s", o.Name, err, out)
		}
	}
	if len(created) > 0 {
		if out, err := c.WaitEstablished(ctx, "crd", "--all"); err != nil {
			t.Fatalf("wait for CRDs: %v: %s", err, out)
		}
	}
	verdicts = append(verdicts, ask(ctx, t, c, tmp, dir, rest)...)
	realworld.Sort(verdicts)
	data, err := json.MarshalIndent(verdicts, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, realworld.VerdictsFile), append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	rejected := 0
	for _, v := range verdicts {
		if !v.Accepted {
			rejected++
		}
	}
	t.Logf("%d verdicts, %d rejections", len(verdicts), rejected)
}

func mapsKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// ask puts each object to the server with kubectl create --dry-run=server
// --validate=strict, on differentialWorkers at once.
func ask(ctx context.Context, t *testing.T, c *Cluster, tmp, dir string, objs []*manifest.Object) []realworld.Verdict {
	out := make([]realworld.Verdict, len(objs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range differentialWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = askOne(ctx, t, c, tmp, dir, i, objs[i])
			}
		}()
	}
	for i := range objs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func askOne(ctx context.Context, t *testing.T, c *Cluster, tmp, dir string, i int, o *manifest.Object) realworld.Verdict {
	rel, err := filepath.Rel(dir, o.File)
	if err != nil {
		t.Error(err)
	}
	v := realworld.Verdict{File: filepath.ToSlash(rel), Document: o.Document, Item: o.Item,
		APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
	file := filepath.Join(tmp, fmt.Sprintf("%s-%d.json", filepath.Base(rel), i))
	if err := os.WriteFile(file, o.JSON, 0o644); err != nil {
		t.Error(err)
		return v
	}
	res, err := c.Kubectl(ctx, "create", "--dry-run=server", "--validate=strict", "-o", "name", "-f", file)
	var msg []string
	for _, l := range strings.Split(strings.TrimSpace(string(res)), "\n") {
		if w, ok := strings.CutPrefix(l, "Warning: "); ok {
			v.Warnings = append(v.Warnings, w)
		} else if err != nil && l != "" {
			msg = append(msg, strings.ReplaceAll(l, file, "FILE"))
		}
	}
	v.Accepted = err == nil
	v.Message = strings.Join(msg, "\n")
	return v
}
