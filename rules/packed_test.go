package rules

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// TestPackedEntryMatches: an entry packed between the passes
// (NewPackedEntry) and decoded by NewIndex is the entry NewEntry reads, on
// every object of every rule fixture and a few labelled objects without
// typed objects, accepted by the API server or not,
// read as lint reads it (the workloads from their defaulted object, the
// other kinds as written): the same fields, the same nil label sets and
// selectors, and typed objects alike but for nil versus empty lists and
// maps (which no rule tells apart: they read lengths) and a quantity's
// canonical spelling. An entry without typed objects (a ConfigMap) keeps
// its labels alone, packed.
func TestPackedEntryMatches(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	api := apicheck.New()
	keep := NewKeep()
	packed, labelsOnly := 0, 0
	inputs := map[string][]byte{"labelled.yaml": []byte(`apiVersion: v1
kind: ServiceAccount
metadata: {name: web, namespace: shop, labels: {app: web, team: a}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web, namespace: shop, labels: {}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: shop, labels: {app: web}}
data: {a: b}
`)}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = data
	}
	for f, data := range inputs {
		for _, o := range manifest.Parse(f, data).Objects {
			res := api.Check(context.Background(), apicheck.Object{APIVersion: o.APIVersion, Kind: o.Kind,
				Namespace: o.Namespace, Name: o.Name, JSON: o.JSON}, apicheck.Options{})
			in := Object{JSON: o.JSON, Namespace: o.Namespace, Written: res.Written, Keep: keep}
			if res.Versioned != nil && (podKinds[o.Kind] || o.Kind == "PodTemplate") { // lint's defaultedKinds
				in.Defaulted = res.Versioned
			}
			want := NewEntry(in)
			got := NewPackedEntry(in)
			if (got == nil) != (want == nil) {
				t.Fatalf("%s %s/%s: NewPackedEntry = %v, NewEntry = %v", f, o.Kind, o.Name, got, want)
			}
			if got == nil {
				continue
			}
			if got.packed != nil && got.packed.labelsOnly {
				labelsOnly++
			} else if got.packed != nil {
				packed++
				if got.Object != nil || got.Written != nil || got.Labels != nil || got.Selector != nil {
					t.Errorf("%s %s/%s: a packed entry keeps its objects or label sets", f, o.Kind, o.Name)
				}
			}
			NewIndex([]*Entry{got})
			for _, c := range []struct {
				field     string
				got, want any
			}{
				{"Key", got.Key, want.Key}, {"APIVersion", got.APIVersion, want.APIVersion}, {"Namespace", got.Namespace, want.Namespace},
				{"Labels", got.Labels, want.Labels}, {"Owned", got.Owned, want.Owned},
				{"TemplateLabels", got.TemplateLabels, want.TemplateLabels}, {"Selector", got.Selector, want.Selector},
				{"Pods", got.Pods, want.Pods}, {"Spreads", got.Spreads, want.Spreads}, {"HasAffinity", got.HasAffinity, want.HasAffinity},
				{"StraySpread", got.StraySpread, want.StraySpread}, {"Claims", got.Claims, want.Claims},
				{"PinnedToNode", got.PinnedToNode, want.PinnedToNode}, {"PrefersOtherNode", got.PrefersOtherNode, want.PrefersOtherNode},
				{"compiled selector", got.selector == nil, want.selector == nil},
				{"Written is Object", got.Written == got.Object, want.Written == want.Object},
				{"Written is nil", got.Written == nil, want.Written == nil},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s %s/%s: %s packed = %#v, unpacked %#v", f, o.Kind, o.Name, c.field, c.got, c.want)
				}
			}
			if got.selector != nil && got.selector.String() != want.selector.String() {
				t.Errorf("%s %s/%s: compiled selector packed %q, unpacked %q", f, o.Kind, o.Name, got.selector, want.selector)
			}
			for _, c := range []struct {
				field     string
				got, want any
			}{{"Object", got.Object, want.Object}, {"Written", got.Written, want.Written}} {
				if !apiequality.Semantic.DeepEqual(c.got, c.want) {
					t.Errorf("%s %s/%s: %s differs once packed:\n%#v\n%#v", f, o.Kind, o.Name, c.field, c.got, c.want)
				}
				if c.got != nil && reflect.TypeOf(c.got) != reflect.TypeOf(c.want) {
					t.Errorf("%s %s/%s: %s is a %T once packed, a %T before", f, o.Kind, o.Name, c.field, c.got, c.want)
				}
			}
		}
	}
	if packed < 200 {
		t.Errorf("%d entries packed, want the fixtures' objects of the inventory's kinds (over 200)", packed)
	}
	if labelsOnly == 0 {
		t.Errorf("no entry without typed objects packed its labels, want the fixtures' ConfigMaps and ServiceAccounts")
	}
	t.Logf("%d entries packed and compared, %d of them labels alone", packed+labelsOnly, labelsOnly)
}
