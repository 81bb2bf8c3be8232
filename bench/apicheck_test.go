package bench

import (
	"context"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
)

// BenchmarkAPICheck times the API tier alone (apicheck.Checker.Check: the
// strict decode with the kind read from the JSON, defaulting, conversion,
// the registry strategy's validation and warnings) on one valid object of
// each kind of the bench corpus, as the JSON the loader gives it.
func BenchmarkAPICheck(b *testing.B) {
	checker := apicheck.New()
	ctx := context.Background()
	for _, kind := range []string{KindDeployment, KindStatefulSet, KindJob, KindService, KindPDB} {
		js, err := sigsyaml.YAMLToJSON(ObjectOf(kind, 0))
		if err != nil {
			b.Fatalf("YAMLToJSON(%s) = %v", kind, err)
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Metadata   struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		if err := sigsyaml.Unmarshal(js, &head); err != nil {
			b.Fatalf("Unmarshal(%s) = %v", kind, err)
		}
		obj := apicheck.Object{APIVersion: head.APIVersion, Kind: kind, Name: head.Metadata.Name,
			Namespace: head.Metadata.Namespace, JSON: js}
		b.Run(kind, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(js)))
			for b.Loop() {
				res := checker.Check(ctx, obj, apicheck.Options{})
				if res.Versioned == nil {
					b.Fatalf("Check(%s) did not decode: %v", kind, res.Issues)
				}
			}
		})
	}
}
