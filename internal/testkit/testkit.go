// Package testkit holds what the project's tests would otherwise each write again: decoding a
// manifest into a typed, defaulted object as the API server defaults it, and comparing output
// with golden files. The real control plane is started by test/e2e (StartCluster,
// StartControllers); tests outside that package stay offline.
//
// It is imported by tests only.
package testkit

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"sigs.k8s.io/yaml"

	// The defaulting functions of the versioned kinds tests decode register with
	// legacyscheme.Scheme when their install packages load.
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
)

// Update is the -update flag of every test binary that imports testkit: Golden rewrites the
// golden files instead of comparing with them.
var Update = flag.Bool("update", false, "rewrite the golden files")

// Decode reads manifest (one YAML document) strictly into obj, as kubectl --validate=strict
// would refuse unknown or duplicated fields, then applies the API server's defaulting to it
// (legacyscheme.Scheme.Default, the defaulters the kube-apiserver runs on create). obj is a
// versioned type such as *appsv1.Deployment.
func Decode(t testing.TB, manifest string, obj runtime.Object) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(manifest), obj); err != nil {
		t.Fatalf("decode %T: %v", obj, err)
	}
	legacyscheme.Scheme.Default(obj)
}

// Golden compares got with the file at path, or rewrites the file when the test runs with
// -update. The failure message shows both and says how to accept the change.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run the test with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
