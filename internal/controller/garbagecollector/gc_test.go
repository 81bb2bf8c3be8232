package garbagecollector

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func obj(kind, name string, finalizers []string, owners ...map[string]any) *unstructured.Unstructured {
	refs := []any{}
	for _, o := range owners {
		refs = append(refs, o)
	}
	md := map[string]any{"name": name, "namespace": "ns", "uid": "u-" + name, "ownerReferences": refs}
	if len(finalizers) > 0 {
		fs := []any{}
		for _, f := range finalizers {
			fs = append(fs, f)
		}
		md["finalizers"] = fs
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind, "metadata": md}}
}

func ref(kind, name string, block bool) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": kind, "name": name, "uid": "u-" + name, "controller": true, "blockOwnerDeletion": block}
}

func TestDelete(t *testing.T) {
	// shared is owned by a and b; loose by a without blockOwnerDeletion; held by a,
	// with a finalizer of its own.
	world := func() []*unstructured.Unstructured {
		return []*unstructured.Unstructured{
			obj("ReplicaSet", "a", nil),
			obj("ReplicaSet", "b", nil),
			obj("Pod", "shared", nil, ref("ReplicaSet", "a", true), ref("ReplicaSet", "b", true)),
			obj("Pod", "loose", nil, ref("ReplicaSet", "a", false)),
			obj("Pod", "held", []string{"example.com/x"}, ref("ReplicaSet", "a", true)),
		}
	}
	tests := []struct {
		name                                   string
		propagation                            string
		deleted, orphaned, kept, waiting, none []string
	}{
		{name: "background", propagation: Background,
			deleted: []string{"Pod/ns/loose", "ReplicaSet/ns/a"}, orphaned: []string{}, kept: []string{"Pod/ns/shared"}, waiting: []string{"Pod/ns/held"}},
		// The owner waits for held (blockOwnerDeletion) but not for loose.
		{name: "foreground", propagation: Foreground,
			deleted: []string{"Pod/ns/loose"}, orphaned: []string{}, kept: []string{"Pod/ns/shared"}, waiting: []string{"Pod/ns/held", "ReplicaSet/ns/a"}},
		{name: "orphan", propagation: Orphan,
			deleted: []string{"ReplicaSet/ns/a"}, orphaned: []string{"Pod/ns/held", "Pod/ns/loose", "Pod/ns/shared"}, kept: []string{}, waiting: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Delete(world(), "ReplicaSet/ns/a", tt.propagation)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				what      string
				got, want []string
			}{{"deleted", p.Deleted, tt.deleted}, {"orphaned", p.Orphaned, tt.orphaned}, {"kept", p.Kept, tt.kept}, {"waiting", p.Waiting, tt.waiting}} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("Delete(a, %s) %s = %v, want %v", tt.propagation, c.what, c.got, c.want)
				}
			}
		})
	}
}

func TestDeleteForegroundOrder(t *testing.T) {
	objs := []*unstructured.Unstructured{
		obj("Deployment", "d", nil),
		obj("ReplicaSet", "rs", nil, ref("Deployment", "d", true)),
		obj("Pod", "p", nil, ref("ReplicaSet", "rs", true)),
	}
	p, err := Delete(objs, "Deployment/ns/d", Foreground)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range p.Steps {
		got = append(got, s.Object+" "+s.Action)
	}
	want := []string{"Pod/ns/p deleted", "ReplicaSet/ns/rs deleted", "Deployment/ns/d deleted"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Delete(d, foreground) steps = %v, want %v", got, want)
	}
	if objs[2].GetDeletionTimestamp() != nil || len(objs[2].GetFinalizers()) != 0 {
		t.Errorf("Delete changed its input")
	}
}

// TestDeleteReplicaSetUnderDeployment: the Deployment creates its ReplicaSet again before the
// collector marks the old pods for deletion, and the recreated ReplicaSet, unable to adopt
// pods that name the old UID, creates its replicas anew; under orphan it adopts them instead.
func TestDeleteReplicaSetUnderDeployment(t *testing.T) {
	world := func() []*unstructured.Unstructured {
		rs := obj("ReplicaSet", "web-abc", nil, ref("Deployment", "web", true))
		rs.Object["spec"] = map[string]any{"replicas": int64(3)}
		return []*unstructured.Unstructured{
			obj("Deployment", "web", nil), rs,
			obj("Pod", "web-abc-1", nil, ref("ReplicaSet", "web-abc", true)),
			obj("Pod", "web-abc-2", nil, ref("ReplicaSet", "web-abc", true)),
			obj("Pod", "web-abc-3", nil, ref("ReplicaSet", "web-abc", true)),
		}
	}
	steps := func(p *Plan) []string {
		var out []string
		for _, s := range p.Steps {
			out = append(out, string(rune('0'+s.Order))+" "+s.Action+" "+s.Object)
		}
		return out
	}
	p, err := Delete(world(), "ReplicaSet/ns/web-abc", Background)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1 deleted ReplicaSet/ns/web-abc",
		"2 recreated ReplicaSet/ns/web-abc",
		"3 deleted Pod/ns/web-abc-1", "3 deleted Pod/ns/web-abc-2", "3 deleted Pod/ns/web-abc-3",
		"3 created Pod/ns/web-abc-(new 1)", "3 created Pod/ns/web-abc-(new 2)", "3 created Pod/ns/web-abc-(new 3)",
	}
	got := steps(p)
	// Steps of one order are sorted by object: the created pods' names sort before the old ones'.
	wantSorted := []string{want[0], want[1], want[5], want[6], want[7], want[2], want[3], want[4]}
	if !reflect.DeepEqual(got, wantSorted) {
		t.Errorf("Delete(rs, background) steps =\n%v\nwant\n%v", got, wantSorted)
	}
	if len(p.Created) != 3 || !reflect.DeepEqual(p.Recreated, []string{"ReplicaSet/ns/web-abc"}) {
		t.Errorf("created %v, recreated %v; want 3 new pods and the ReplicaSet", p.Created, p.Recreated)
	}
	p, err = Delete(world(), "ReplicaSet/ns/web-abc", Orphan)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Created) != 0 || len(p.Orphaned) != 3 {
		t.Errorf("orphan: created %v, orphaned %v; want the 3 pods orphaned, adopted, none created", p.Created, p.Orphaned)
	}
	// An old ReplicaSet (a lower revision) is not created again.
	w := world()
	w[1].SetAnnotations(map[string]string{"deployment.kubernetes.io/revision": "1"})
	newer := obj("ReplicaSet", "web-def", nil, ref("Deployment", "web", true))
	newer.SetAnnotations(map[string]string{"deployment.kubernetes.io/revision": "2"})
	p, err = Delete(append(w, newer), "ReplicaSet/ns/web-abc", Background)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Recreated) != 0 || len(p.Created) != 0 {
		t.Errorf("old ReplicaSet: recreated %v, created %v; want neither", p.Recreated, p.Created)
	}
}
