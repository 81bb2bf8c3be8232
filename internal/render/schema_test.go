package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
)

// TestHelmMetaSchemas: a values.schema.json naming any meta-schema helm's
// jsonschema library resolves offline (each draft, http and https, with and
// without "#", the json-schema.org/schema alias) renders, and its values
// are still checked: --set architecture=123 is refused.
func TestHelmMetaSchemas(t *testing.T) {
	var metas []string
	for _, d := range []string{"draft-04/schema", "draft-06/schema", "draft-07/schema", "draft/2019-09/schema", "draft/2020-12/schema", "schema"} {
		for _, scheme := range []string{"http", "https"} {
			for _, frag := range []string{"", "#"} {
				metas = append(metas, scheme+"://json-schema.org/"+d+frag)
			}
		}
	}
	for _, meta := range metas {
		t.Run(meta, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "Chart.yaml", safeChart)
			write(t, dir, "values.yaml", "architecture: standalone\n")
			write(t, dir, "values.schema.json", `{"$schema":"`+meta+`","type":"object","properties":{"architecture":{"type":"string","enum":["standalone","replication"]}}}`)
			write(t, dir, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{ .Values.architecture | quote }}\n")
			if set := renderWithin(t, newRenderer(t, Options{}), dir); len(set.Problems) != 0 || len(set.Objects) != 1 {
				t.Fatalf("Render with $schema %s: problems %+v, %d objects; want none and 1", meta, set.Problems, len(set.Objects))
			}
			set := renderWithin(t, newRenderer(t, Options{Set: []string{"architecture=123"}}), dir)
			if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, "architecture") {
				t.Fatalf("Render --set architecture=123 with $schema %s: problems %+v, want one about architecture", meta, set.Problems)
			}
		})
	}
}

// writeTgz writes a chart archive holding files.
func writeTgz(t *testing.T, name string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(files[n])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHelmDisabledSubchartSchema: dependencies are processed before schemas
// are read, as helm does: a subchart disabled by its condition or its tag,
// archived two levels down, whose schema refers to a server, is not read
// (the chart renders, the server gets nothing); enabled, the chart is
// refused at a file that exists (the archive), naming the schema inside it.
func TestHelmDisabledSubchartSchema(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"object"}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", "apiVersion: v2\nname: kyv\nversion: 1.0.0\ndependencies:\n- name: reports\n  version: 1.0.0\n  condition: reports.enabled\n")
	write(t, dir, "values.yaml", "reports:\n  enabled: false\n")
	write(t, dir, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: top\n")
	sub := filepath.Join(dir, "charts", "reports")
	write(t, sub, "Chart.yaml", "apiVersion: v2\nname: reports\nversion: 1.0.0\ndependencies:\n- name: postgresql\n  version: 1.0.0\n  tags: [db]\n")
	write(t, sub, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: reports\n")
	archive := filepath.Join(sub, "charts", "postgresql-1.0.0.tgz")
	writeTgz(t, archive, map[string]string{
		"postgresql/Chart.yaml":         "apiVersion: v2\nname: postgresql\nversion: 1.0.0\n",
		"postgresql/values.yaml":        "auth: {}\n",
		"postgresql/values.schema.json": `{"$schema":"http://json-schema.org/schema#","properties":{"auth":{"$ref":"` + srv.URL + `/auth.json"}}}`,
		"postgresql/templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pg\n",
	})
	for _, set := range [][]string{nil, {"reports.enabled=true", "tags.db=false"}} {
		got := renderWithin(t, newRenderer(t, Options{Set: set}), dir)
		if len(got.Problems) != 0 {
			t.Errorf("Render --set %v: problems %+v, want none (the subchart holding the schema is disabled)", set, got.Problems)
		}
	}
	got := renderWithin(t, newRenderer(t, Options{Set: []string{"reports.enabled=true"}}), dir)
	if len(got.Problems) != 1 || got.Problems[0].File != archive ||
		!strings.Contains(got.Problems[0].Message, "postgresql/values.schema.json") || !strings.Contains(got.Problems[0].Message, srv.URL+"/auth.json") {
		t.Fatalf("Render --set reports.enabled=true: problems %+v, want one at %s naming postgresql/values.schema.json and the URL", got.Problems, archive)
	}
	if _, err := os.Stat(got.Problems[0].File); err != nil {
		t.Errorf("the problem names %s: %v", got.Problems[0].File, err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the local server received %d requests, want 0", n)
	}
}
