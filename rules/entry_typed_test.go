package rules

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// TestEntryFromTypedMatchesJSON: an inventory entry read from the defaulted
// typed object (entryFromTyped, without a copy) is the entry decoding its
// JSON gives (entryFromJSON, what NewEntry did before), on every workload of
// every rule fixture, whether or not the API server accepts it.
func TestEntryFromTypedMatchesJSON(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	api := apicheck.New()
	typed := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range manifest.Parse(f, data).Objects {
			res := api.Check(context.Background(), apicheck.Object{APIVersion: o.APIVersion, Kind: o.Kind,
				Namespace: o.Namespace, Name: o.Name, JSON: o.JSON}, apicheck.Options{})
			if res.Versioned == nil {
				continue
			}
			in := Object{JSON: o.JSON, Defaulted: res.Versioned, Namespace: o.Namespace}
			got := entryFromTyped(in)
			if got == nil {
				continue // another Go type: NewEntry decodes JSON
			}
			typed++
			js, err := json.Marshal(res.Versioned)
			if err != nil {
				t.Fatal(err)
			}
			want := entryFromJSON(Object{JSON: o.JSON, Defaulted: decodeTyped(o.Kind, js), Namespace: o.Namespace})
			if want == nil {
				t.Errorf("%s %s/%s: no entry from JSON", f, o.Kind, o.Name)
				continue
			}
			for _, c := range []struct {
				field     string
				got, want any
			}{
				{"Key", got.Key, want.Key}, {"APIVersion", got.APIVersion, want.APIVersion},
				{"Labels", got.Labels, want.Labels}, {"Owned", got.Owned, want.Owned},
				{"TemplateLabels", got.TemplateLabels, want.TemplateLabels}, {"Selector", got.Selector, want.Selector},
				{"Pods", got.Pods, want.Pods}, {"Spreads", got.Spreads, want.Spreads}, {"HasAffinity", got.HasAffinity, want.HasAffinity},
				{"Written", got.Written, want.Written},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s %s/%s: %s from the typed object = %#v, from JSON %#v", f, o.Kind, o.Name, c.field, c.got, c.want)
				}
			}
			// The kept object: alike but for nil versus empty lists and
			// maps, which no rule tells apart (they read lengths).
			if !apiequality.Semantic.DeepEqual(got.Object, want.Object) {
				t.Errorf("%s %s/%s: the kept object differs:\n%#v\n%#v", f, o.Kind, o.Name, got.Object, want.Object)
			}
		}
	}
	if typed < 100 {
		t.Errorf("%d entries read from typed objects, want the fixtures' workloads (over 100)", typed)
	}
	t.Logf("%d entries compared", typed)
}
