package version

import (
	"os"
	"regexp"
	"testing"
)

// TestKubernetesReleaseMatchesGoMod keeps the generated constant in step with
// the k8s.io/kubernetes requirement, which hack/update-kubernetes.sh moves.
func TestKubernetesReleaseMatchesGoMod(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s\.io/kubernetes (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod does not require k8s.io/kubernetes")
	}
	if got := string(m[1]); got != KubernetesRelease {
		t.Errorf("go.mod requires k8s.io/kubernetes %s, KubernetesRelease = %s: run hack/update-kubernetes.sh %s", got, KubernetesRelease, got)
	}
	if got := Get().Kubernetes; got != KubernetesRelease {
		t.Errorf("Get().Kubernetes = %s, want %s", got, KubernetesRelease)
	}
}
