package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestPinnedSchemasAreCurrent regenerates the schemas from the module's
// OpenAPI document and compares them with the pinned ones in
// bench/testdata/kubeconform-schemas.
func TestPinnedSchemasAreCurrent(t *testing.T) {
	dir := t.TempDir()
	if err := run(dir, ""); err != nil {
		t.Skipf("no OpenAPI document: %v", err)
	}
	pinned := filepath.Join("..", "testdata", "kubeconform-schemas")
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(kinds) {
		t.Fatalf("wrote %d schemas for %d kinds", len(files), len(kinds))
	}
	for _, f := range files {
		got, _ := os.ReadFile(filepath.Join(dir, f.Name()))
		want, err := os.ReadFile(filepath.Join(pinned, f.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the pinned schema (%v): run go run ./bench/schemagen -o bench/testdata/kubeconform-schemas", f.Name(), err)
		}
	}
}

// TestStrictStandalone checks the flavour on the Deployment schema: no $ref
// left, unknown fields refused, IntOrString as a string or an integer.
func TestStrictStandalone(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "kubeconform-schemas", "deployment-apps-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"additionalProperties":false`, `"oneOf":[{"type":["string","null"]},{"type":["integer","null"]}]`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the Deployment schema has no %s", want)
		}
	}
	if bytes.Contains(data, []byte(`"$ref"`)) {
		t.Errorf("the Deployment schema still has a $ref")
	}
}

func TestFileName(t *testing.T) {
	for gvk, want := range map[string]string{
		"apps/v1/Deployment":                     "deployment-apps-v1.json",
		"v1/Service":                             "service-v1.json",
		"networking.k8s.io/v1/Ingress":           "ingress-networking-v1.json",
		"autoscaling/v2/HorizontalPodAutoscaler": "horizontalpodautoscaler-autoscaling-v2.json",
	} {
		if got := fileName(gvk); got != want {
			t.Errorf("fileName(%s) = %s, want %s", gvk, got, want)
		}
	}
}
