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
