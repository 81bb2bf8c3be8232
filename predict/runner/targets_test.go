package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// TestOnlyTargets: TYPE/NAME beside -f keeps that workload (and the autoscalers and
// Namespaces) and drops the rest; one the files lack is an error that lists the workloads
// there are, or with many names the nearest.
func TestOnlyTargets(t *testing.T) {
	set := func(n int) *manifest.Set {
		var docs []string
		for i := range n {
			docs = append(docs, strings.Replace(workloadYAML("Deployment", "nginx", 1), "name: web\n", fmt.Sprintf("name: web-%02d\n", i), 1))
		}
		docs = append(docs, hpaYAML("Deployment", "web-01", 2), workloadYAML("StatefulSet", "postgres", 1),
			"apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n")
		return manifest.Parse("in.yaml", []byte(strings.Join(docs, "---\n")))
	}
	tests := []struct {
		name      string
		n         int
		targets   []Target
		wantKinds []string
		wantErr   string
	}{
		{name: "one Deployment", n: 3, targets: []Target{{Name: "web-01"}}, wantKinds: []string{"Deployment", "HorizontalPodAutoscaler"}},
		{name: "a StatefulSet", n: 3, targets: []Target{{Kind: kernel.KindStatefulSet, Name: "web"}}, wantKinds: []string{"HorizontalPodAutoscaler", "StatefulSet"}},
		{name: "in another namespace", n: 3, targets: []Target{{Name: "web-01", Namespace: "shop"}},
			wantErr: "deployment/web-01 in namespace shop: not in in.yaml, which holds deployment/web-00 in namespace default, deployment/web-01 in namespace default, deployment/web-02 in namespace default, statefulset/web in namespace default"},
		{name: "many: the nearest", n: 30, targets: []Target{{Name: "web-7"}}, wantErr: "deployment/web-7: not among the 31 workloads of in.yaml; did you mean deployment/web-07?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := set(tt.n)
			err := onlyTargets(s, tt.targets, "default", "in.yaml")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("onlyTargets(%v) error = %v, want %q", tt.targets, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("onlyTargets(%v): %v", tt.targets, err)
			}
			var kinds []string
			for _, o := range s.Objects {
				kinds = append(kinds, o.Kind)
			}
			if strings.Join(kinds, ",") != strings.Join(tt.wantKinds, ",") && !sameSet(kinds, tt.wantKinds) {
				t.Errorf("onlyTargets(%v) kept %v, want %v", tt.targets, kinds, tt.wantKinds)
			}
		})
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		seen[x]--
	}
	for _, v := range seen {
		if v != 0 {
			return false
		}
	}
	return true
}
