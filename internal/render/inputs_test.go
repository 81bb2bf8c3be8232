//go:build unix

package render

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

const safeChart = "apiVersion: v2\nname: app\nversion: 0.1.0\n"

// renderWithin renders a chart, failing if it takes more than a few seconds.
func renderWithin(t *testing.T, r *Renderer, dir string) *manifest.Set {
	t.Helper()
	done := make(chan *manifest.Set, 1)
	go func() { done <- r.Render(dir, manifest.Chart) }()
	select {
	case set := <-done:
		return set
	case <-time.After(20 * time.Second):
		t.Fatalf("Render(%s) still running after 20s", dir)
		return nil
	}
}

// TestHelmSchemaRefsNoNetwork: a values.schema.json whose $ref or $schema
// leads to a server or a file is refused with an error naming it; the
// server receives no request and the file is not opened (a FIFO there would
// hang whoever opened it), whatever the schema holds besides (a number
// beyond float64, which helm's parser keeps).
func TestHelmSchemaRefsNoNetwork(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"object"}`))
	}))
	defer srv.Close()
	secret := filepath.Join(t.TempDir(), "secret.json")
	write(t, filepath.Dir(secret), "secret.json", `{"type":"object","description":"TOPSECRET"}`)
	fifo := filepath.Join(t.TempDir(), "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, schema, want string }{
		{"http", `{"$ref":"` + srv.URL + `/schema.json"}`, srv.URL + `/schema.json`},
		{"file", `{"properties":{"a":{"$ref":"file://` + secret + `"}}}`, `file://` + secret},
		{"relative", `{"properties":{"a":{"$ref":"../..` + secret + `"}}}`, `file://` + secret},
		{"meta", `{"$schema":"` + srv.URL + `/meta"}`, srv.URL + `/meta`},
		{"meta file", `{"$schema":"file://` + fifo + `"}`, `file://` + fifo},
		{"fifo", `{"properties":{"a":{"$ref":"file://` + fifo + `"}}}`, `file://` + fifo},
		{"http beyond float64", `{"maximum":1e400,"$ref":"` + srv.URL + `/big.json"}`, srv.URL + `/big.json`},
		{"file beyond float64", `{"properties":{"n":{"maximum":1e400},"a":{"$ref":"file://` + fifo + `"}}}`, `file://` + fifo},
		{"draft-04 http", `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"$ref":"` + srv.URL + `/4.json"}}}`, srv.URL + `/4.json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "Chart.yaml", safeChart)
			write(t, dir, "values.schema.json", tt.schema)
			write(t, dir, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
			set := renderWithin(t, newRenderer(t, Options{}), dir)
			if len(set.Problems) != 1 || set.Problems[0].File != filepath.Join(dir, "values.schema.json") ||
				!strings.Contains(set.Problems[0].Message, `"`+tt.want+`"`) || !strings.Contains(set.Problems[0].Message, "rendering has no network") {
				t.Fatalf("Render problems = %+v, want one at values.schema.json naming %s", set.Problems, tt.want)
			}
			if strings.Contains(set.Problems[0].Message, "TOPSECRET") {
				t.Errorf("Render problem %q shows a file outside the chart", set.Problems[0].Message)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the local server received %d requests, want 0", n)
	}
	// A schema with refs inside itself still validates.
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", safeChart)
	write(t, dir, "values.yaml", "replicas: many\n")
	write(t, dir, "values.schema.json", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"replicas":{"$ref":"#/definitions/n"}},"definitions":{"n":{"type":"integer"}}}`)
	write(t, dir, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	set := renderWithin(t, newRenderer(t, Options{}), dir)
	if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, "replicas") {
		t.Errorf("Render problems = %+v, want the schema's own complaint about replicas", set.Problems)
	}
}

// TestHelmChartFiles: a link out of the chart, a FIFO or a link to
// /dev/zero in it is refused with an error naming it, at once; a link that
// stays inside the chart is followed as helm does.
func TestHelmChartFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "shadow")
	write(t, filepath.Dir(secret), "shadow", "root:TOPSECRET\n")
	tests := []struct {
		name string
		make func(dir string) error
		want string
	}{
		{"link out", func(dir string) error { return os.Symlink(secret, filepath.Join(dir, "files", "s.txt")) }, "is a symbolic link to " + secret + ", outside"},
		{"fifo", func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "templates", "f.yaml"), 0o600) }, "f.yaml is a named pipe (FIFO)"},
		{"dev zero", func(dir string) error { return os.Symlink("/dev/zero", filepath.Join(dir, "files", "z")) }, "is a symbolic link to /dev/zero, outside"},
		{"values fifo", func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "values.yaml"), 0o600) }, "values.yaml is a named pipe (FIFO)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "Chart.yaml", safeChart)
			write(t, dir, "files/ok.txt", "ok")
			write(t, dir, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n{{ (.Files.Glob \"files/*\").AsConfig | indent 2 }}\n")
			if err := tt.make(dir); err != nil {
				t.Fatal(err)
			}
			set := renderWithin(t, newRenderer(t, Options{}), dir)
			if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, tt.want) {
				t.Fatalf("Render problems = %+v, want one saying %q", set.Problems, tt.want)
			}
			if strings.Contains(set.Problems[0].Message, "TOPSECRET") {
				t.Errorf("Render problem %q shows a file outside the chart", set.Problems[0].Message)
			}
		})
	}
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", safeChart)
	write(t, dir, "files/ok.txt", "ok")
	write(t, dir, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n{{ (.Files.Glob \"files/*\").AsConfig | indent 2 }}\n")
	if err := os.Symlink("ok.txt", filepath.Join(dir, "files", "in.txt")); err != nil {
		t.Fatal(err)
	}
	set := renderWithin(t, newRenderer(t, Options{}), dir)
	if len(set.Problems) != 0 || len(set.Objects) != 1 {
		t.Errorf("Render(link inside the chart) = %d objects, problems %+v, want the ConfigMap", len(set.Objects), set.Problems)
	}
}

// TestHelmValuesFileFIFO: a --values file that is a FIFO is an error naming
// it, at once.
func TestHelmValuesFileFIFO(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", safeChart)
	write(t, dir, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	fifo := filepath.Join(t.TempDir(), "values.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	set := renderWithin(t, newRenderer(t, Options{ValuesFiles: []string{fifo}}), dir)
	if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, "values.yaml is a named pipe (FIFO)") {
		t.Fatalf("Render problems = %+v, want one naming the FIFO values file", set.Problems)
	}
}

// TestKustomizeFIFOResource: a kustomization resource that is a FIFO is an
// error naming it, at once.
func TestKustomizeFIFOResource(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", "resources:\n  - a.yaml\n  - fifo.yaml\n")
	write(t, dir, "a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan *manifest.Set, 1)
	go func() { done <- newRenderer(t, Options{}).Render(dir, manifest.Kustomization) }()
	select {
	case set := <-done:
		if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, "fifo.yaml is a named pipe (FIFO)") {
			t.Fatalf("problems %+v, want one naming the FIFO", set.Problems)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Render(kustomization with a FIFO resource) still running after 20s")
	}
}

// TestHelmLinkBoundary: a chart's links may lead anywhere in the input it
// was found in (RenderIn's root), not beyond: a link to a library chart
// beside the chart renders; a linked directory is checked where it leads (a
// FIFO there is refused); a link out of the input is refused.
func TestHelmLinkBoundary(t *testing.T) {
	setup := func(t *testing.T) (root, app string) {
		root = t.TempDir()
		write(t, root, "library/Chart.yaml", "apiVersion: v2\nname: library\ntype: library\nversion: 0.0.1\n")
		write(t, root, "library/templates/_l.tpl", `{{- define "library.name" -}}lib{{- end -}}`)
		app = filepath.Join(root, "deploy", "app")
		write(t, app, "Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n")
		write(t, app, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"library.name\" . }}\n")
		if err := os.MkdirAll(filepath.Join(app, "charts"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../../../library", filepath.Join(app, "charts", "library")); err != nil {
			t.Fatal(err)
		}
		return root, app
	}
	r := newRenderer(t, Options{})
	root, app := setup(t)
	if set := r.RenderIn(root, app, manifest.Chart); len(set.Problems) != 0 || len(set.Objects) != 1 {
		t.Errorf("RenderIn(%s, %s): problems %+v, %d objects; want none and 1", root, app, set.Problems, len(set.Objects))
	}
	if set := r.RenderIn(app, app, manifest.Chart); len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, "outside "+app) {
		t.Errorf("RenderIn with the chart as the input: problems %+v, want the link refused", set.Problems)
	}
	root, app = setup(t)
	if err := syscall.Mkfifo(filepath.Join(root, "library", "templates", "f.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	if set := renderWithinRoot(t, r, root, app); len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, "named pipe") {
		t.Errorf("RenderIn with a FIFO in the linked library: problems %+v, want it refused", set.Problems)
	}
	outside := t.TempDir()
	write(t, outside, "secret.txt", "TOPSECRET")
	root, app = setup(t)
	if err := os.Symlink(outside, filepath.Join(root, "library", "files")); err != nil {
		t.Fatal(err)
	}
	if set := renderWithinRoot(t, r, root, app); len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, "outside "+root) {
		t.Errorf("RenderIn with the linked library linking out: problems %+v, want it refused", set.Problems)
	}
}

// renderWithinRoot is RenderIn, failing if it takes more than a few seconds.
func renderWithinRoot(t *testing.T, r *Renderer, root, dir string) *manifest.Set {
	t.Helper()
	done := make(chan *manifest.Set, 1)
	go func() { done <- r.RenderIn(root, dir, manifest.Chart) }()
	select {
	case set := <-done:
		return set
	case <-time.After(20 * time.Second):
		t.Fatalf("RenderIn(%s, %s) still running after 20s", root, dir)
		return nil
	}
}
