package rules

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// same reports whether two maps are one map.
func same(a, b map[string]string) bool {
	return a != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// TestEntriesShareLabelSets: entries read with one Keep share each label
// set and selector, within an object and across objects, and still hold
// what they read; without a Keep nothing is shared; an empty set stays
// empty, not nil.
func TestEntriesShareLabelSets(t *testing.T) {
	deployment := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"NAME","labels":{"app":"web"}},
		"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`)
	service := []byte(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","labels":{}},"spec":{"selector":{"app":"web"}}}`)
	keep := NewKeep()
	a := NewEntry(Object{JSON: deployment, Namespace: "ns", Keep: keep})
	b := NewEntry(Object{JSON: deployment, Namespace: "ns", Keep: keep})
	svc := NewEntry(Object{JSON: service, Namespace: "ns", Keep: keep})
	alone := NewEntry(Object{JSON: deployment, Namespace: "ns"})
	if a == nil || b == nil || svc == nil || alone == nil {
		t.Fatalf("NewEntry = nil")
	}
	da, db := a.Object.(*appsv1.Deployment), b.Object.(*appsv1.Deployment)
	for name, pair := range map[string][2]map[string]string{
		"labels and template labels":      {a.Labels, a.TemplateLabels},
		"labels and selector":             {a.Labels, a.Selector.MatchLabels},
		"labels across objects":           {a.Labels, b.Labels},
		"object's labels":                 {a.Labels, da.Labels},
		"object's template labels":        {a.Labels, db.Spec.Template.Labels},
		"object's selector":               {a.Labels, db.Spec.Selector.MatchLabels},
		"service selector and pod labels": {a.Labels, svc.Selector.MatchLabels},
		"service's object selector":       {a.Labels, svc.Object.(*corev1.Service).Spec.Selector},
	} {
		if !same(pair[0], pair[1]) {
			t.Errorf("%s: %v and %v are not one map", name, pair[0], pair[1])
		}
	}
	if a.Selector != b.Selector || a.selector == nil || reflect.ValueOf(a.selector).UnsafePointer() != reflect.ValueOf(b.selector).UnsafePointer() {
		t.Errorf("selectors %p, %p (compiled %v, %v): want one", a.Selector, b.Selector, a.selector, b.selector)
	}
	if !a.Selects(map[string]string{"app": "web"}) || a.Selects(map[string]string{"app": "db"}) {
		t.Errorf("shared selector %v does not select as its own", a.Selector)
	}
	if same(alone.Labels, a.Labels) {
		t.Errorf("an entry read without a Keep shares its labels")
	}
	if svc.Labels == nil || len(svc.Labels) != 0 {
		t.Errorf("Service labels {} read as %#v, want an empty map", svc.Labels)
	}
	if got := a.Labels["app"]; got != "web" {
		t.Errorf("shared labels[app] = %q, want web", got)
	}
}
