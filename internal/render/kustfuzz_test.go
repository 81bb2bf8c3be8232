package render

import (
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// recordingTransport counts the requests sent through it and sends none.
type recordingTransport struct{ n *atomic.Int64 }

func (r recordingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	r.n.Add(1)
	return nil, errNoNetwork
}

// FuzzKustomization builds fuzzed kustomizations (seeded with every field
// naming a URL, and every git form) in process, where nothing but the
// checks before the build (checkKustomization) stands between kustomize and
// the network: no build may send an HTTP request or run a program, and
// none may panic. Its seed corpus runs with go test; go test -fuzz
// FuzzKustomization explores further.
func FuzzKustomization(f *testing.F) {
	for _, c := range remoteCases("http://127.0.0.1:9/x.yaml") {
		f.Add(c.kust, c.files["t.yaml"]+c.files["gen/g.yaml"])
	}
	for _, ref := range []string{"user@host:org/repo", "GitHub.com/org/repo", "git::https://h/o/r", "ssh://h/o/r", "https://h/o/r.git//d?ref=v1"} {
		f.Add("resources:\n- deploy.yaml\n- "+ref+"\n", "")
	}
	f.Add("resources:\n- deploy.yaml\ntransformers:\n- t.yaml\n", "apiVersion: builtin\nkind: PatchStrategicMergeTransformer\nmetadata:\n  name: p\npaths:\n- https://h/p.yaml\n")
	var requests atomic.Int64
	saved := http.DefaultTransport
	http.DefaultTransport = recordingTransport{&requests}
	f.Cleanup(func() { http.DefaultTransport = saved })
	bin := f.TempDir()
	marker := filepath.Join(f.TempDir(), "ran")
	for _, name := range []string{"git", "ssh", "helm", "docker"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\necho "+name+" \"$@\" >> "+marker+"\nexit 1\n"), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	savedPath := os.Getenv("PATH")
	_ = os.Setenv("PATH", bin)
	f.Cleanup(func() { _ = os.Setenv("PATH", savedPath) })
	r, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, kust, config string) {
		dir := t.TempDir()
		write(t, dir, "kustomization.yaml", kust)
		write(t, dir, "deploy.yaml", kustDeployment)
		write(t, dir, "t.yaml", config)
		write(t, dir, "gen/kustomization.yaml", "resources:\n- g.yaml\n")
		write(t, dir, "gen/g.yaml", config)
		before := requests.Load()
		_ = r.Render(dir, manifest.Kustomization)
		if n := requests.Load() - before; n != 0 {
			t.Errorf("building\n%s\nsent %d HTTP requests", kust, n)
		}
		if data, err := os.ReadFile(marker); err == nil {
			t.Fatalf("building\n%s\nran a program: %s", kust, data)
		}
	})
}
