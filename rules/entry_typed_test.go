package rules

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

// TestWrittenMatchesJSON: the API tier's object as written (Result.Written)
// is what decoding the manifest's JSON gives, so the rules and the inventory
// read it instead of decoding again: ObjectContext.Written, and the entries
// NewEntry reads from it are entryFromJSON's, on every object of every rule
// fixture.
func TestWrittenMatchesJSON(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// And every kind the real-world corpus and the examples hold
	// (ConfigMaps, Secrets, RBAC, CRDs ...): their entries are metadata.
	for _, root := range []string{"../examples", "../test/realworld/rendered"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	api := apicheck.New()
	written, entries := 0, 0
	kinds := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range manifest.Parse(f, data).Objects {
			res := api.Check(context.Background(), apicheck.Object{APIVersion: o.APIVersion, Kind: o.Kind,
				Namespace: o.Namespace, Name: o.Name, JSON: o.JSON}, apicheck.Options{Written: true})
			if (res.Written == nil) != (res.Versioned == nil) {
				t.Fatalf("%s %s/%s: Written = %T, Versioned = %T: want both or neither", f, o.Kind, o.Name, res.Written, res.Versioned)
			}
			if res.Written == nil {
				continue
			}
			if unasked := api.Check(context.Background(), apicheck.Object{APIVersion: o.APIVersion, Kind: o.Kind,
				Namespace: o.Namespace, Name: o.Name, JSON: o.JSON}, apicheck.Options{}); unasked.Written != nil {
				t.Errorf("%s %s/%s: Check without Options.Written gives Written %T, want nil", f, o.Kind, o.Name, unasked.Written)
			}
			written++
			decoded := decodeLike(res.Versioned, o.JSON)
			if !reflect.DeepEqual(res.Written, decoded) {
				t.Errorf("%s %s/%s: Written = %#v, decoding the JSON gives %#v", f, o.Kind, o.Name, res.Written, decoded)
			}
			ctx := &ObjectContext{Object: res.Versioned, JSON: o.JSON, AsWritten: res.Written}
			if ctx.Written() != res.Written {
				t.Errorf("%s %s/%s: ObjectContext.Written() is not AsWritten", f, o.Kind, o.Name)
			}
			in := Object{JSON: o.JSON, Written: res.Written, Namespace: o.Namespace}
			got := entryFromWritten(in)
			if !reflect.DeepEqual(res.Written, decoded) {
				t.Errorf("%s %s/%s: entryFromWritten changed Written", f, o.Kind, o.Name)
			}
			if got == nil {
				continue // no inventory type, or another Go type: NewEntry decodes JSON
			}
			entries++
			kinds[o.Kind] = true
			want := entryFromJSON(Object{JSON: o.JSON, Namespace: o.Namespace})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s/%s: entry from Written = %#v, from JSON %#v", f, o.Kind, o.Name, got, want)
			}
		}
	}
	if !kinds["ConfigMap"] || !kinds["ServiceAccount"] {
		t.Errorf("entries compared for kinds %v, want ConfigMaps and ServiceAccounts among them", kinds)
	}
	if written < 200 || entries < 50 {
		t.Errorf("%d objects with Written, %d entries read from it; want the fixtures' (over 200 and 50)", written, entries)
	}
	t.Logf("%d objects with Written, %d entries compared", written, entries)
}
