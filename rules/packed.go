package rules

import (
	"reflect"
	"sync"
	"unique"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// A run keeps an inventory entry per object from its first pass to its
// second, and the typed objects an entry keeps (Object and Written, even
// without their pod specs) were most of that: a Deployment's two copies
// are 2.4 KB of Go values and a few dozen pointers for every collection to
// mark. A packed entry keeps their protobuf encodings instead (k8s.io/api's
// own), pointer-free bytes in the run's slab (Keep), about a fifth of the
// size, and none of the label sets and selectors read from them (Labels,
// TemplateLabels, Selector), which in a repository of many services are
// each object's own; NewIndex decodes them again, a batch of namespaces at
// a time, for the second pass.

// packedEntry is an entry's typed objects, packed.
type packedEntry struct {
	object, written packedObject
	// same is set when Written is Object, and noWritten when Written is nil.
	same, noWritten bool
	// emptyLabels is set when Labels was an empty map, not nil (a
	// manifest's "labels: {}" decoded from JSON).
	emptyLabels bool
	// labelsOnly is set for an entry without typed objects (a
	// ServiceAccount, a ConfigMap): object holds its labels alone, as an
	// ObjectMeta's encoding.
	labelsOnly bool
}

// packedObject is one typed object: its protobuf encoding, without its
// TypeMeta (the encoding leaves it out), which is kept beside it.
type packedObject struct {
	typeMeta metav1.TypeMeta
	data     []byte
}

// protoMessage is a type of k8s.io/api or apimachinery: its generated
// protobuf methods.
type protoMessage interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
	Unmarshal([]byte) error
}

// protoObject is an object of k8s.io/api.
type protoObject interface {
	runtime.Object
	protoMessage
}

// packScratch is Pack's reused encoding buffer.
var packScratch = sync.Pool{New: func() any { return new([]byte) }}

// NewPackedEntry is NewEntry's entry packed, as a run keeps it between
// its passes: its typed objects encoded in o.Keep's slab, its label sets
// and selectors dropped until NewIndex decodes it. An entry that cannot be
// packed (a kind without the inventory's type, a ConfigMap) is kept as
// NewEntry keeps it, its label sets shared through o.Keep.
func NewPackedEntry(o Object) *Entry {
	k := o.Keep
	o.Keep = nil // shared only if not packed
	e := NewEntry(o)
	if e != nil && !e.pack(k) {
		e.share(k)
	}
	return e
}

// pack replaces the entry's typed objects by their protobuf encodings in
// k's slab, and drops what NewIndex reads from them again: what a run
// keeps of an object between its passes. It reports false, changing
// nothing, for an entry without typed objects, or with objects of another
// Go type than the inventory's for its kind.
func (e *Entry) pack(k *Keep) bool {
	if e.packed != nil {
		return false
	}
	if e.Object == nil {
		return e.packLabels(k)
	}
	want := reflect.TypeOf(newTyped(e.Kind))
	if want == nil || reflect.TypeOf(e.Object) != want || (e.Written != nil && reflect.TypeOf(e.Written) != want) {
		return false
	}
	p := &packedEntry{same: e.Written == e.Object, noWritten: e.Written == nil, emptyLabels: e.Labels != nil && len(e.Labels) == 0}
	if !packObject(&p.object, e.Object, k) {
		return false
	}
	if !p.same && !p.noWritten && !packObject(&p.written, e.Written, k) {
		return false
	}
	e.packed, e.Object, e.Written = p, nil, nil
	e.Labels, e.TemplateLabels, e.Selector, e.selector = nil, nil, nil, nil
	return true
}

// packLabels packs the labels of an entry without typed objects (a
// ServiceAccount, a ConfigMap, a custom resource); none, or no labels,
// leave it as it is.
func (e *Entry) packLabels(k *Keep) bool {
	if e.Written != nil || len(e.Labels) == 0 {
		return false
	}
	p := &packedEntry{labelsOnly: true, noWritten: true}
	var ok bool
	if p.object.data, ok = packBytes(&metav1.ObjectMeta{Labels: e.Labels}, k); !ok {
		return false
	}
	e.packed, e.Labels = p, nil
	return true
}

// packObject encodes obj into p, its bytes in k's slab.
func packObject(p *packedObject, obj runtime.Object, k *Keep) bool {
	m, ok := obj.(protoObject)
	if !ok {
		return false
	}
	t, err := meta.TypeAccessor(obj)
	if err != nil {
		return false
	}
	// Kept once per run: every object of a kind has the same two strings.
	p.typeMeta = metav1.TypeMeta{APIVersion: unique.Make(t.GetAPIVersion()).Value(), Kind: unique.Make(t.GetKind()).Value()}
	p.data, ok = packBytes(m, k)
	return ok
}

// packBytes returns m's protobuf encoding in k's slab.
func packBytes(m protoMessage, k *Keep) ([]byte, bool) {
	buf := packScratch.Get().(*[]byte)
	defer packScratch.Put(buf)
	n := m.Size()
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	if _, err := m.MarshalToSizedBuffer(b); err != nil {
		return nil, false
	}
	if kept := k.Copy(b); kept != nil {
		return kept, true
	}
	return []byte{}, true // an empty encoding, kept apart from none
}

// unpack decodes the typed objects pack encoded, and reads their labels and
// selector again, sharing them through k (a namespace of thousands of
// alike objects is decoded at once). An encoding that does not
// decode (Pack wrote it: it cannot happen) leaves the object nil, as an
// entry whose JSON did not decode into its type.
func (e *Entry) unpack(k *Keep) {
	p := e.packed
	if p == nil {
		return
	}
	e.packed = nil
	if p.labelsOnly {
		var m metav1.ObjectMeta
		if m.Unmarshal(p.object.data) == nil {
			e.Labels = m.Labels
		}
		e.share(k)
		return
	}
	e.Object = unpackObject(e.Kind, &p.object)
	switch {
	case p.same:
		e.Written = e.Object
	case !p.noWritten:
		e.Written = unpackObject(e.Kind, &p.written)
	}
	if e.Object == nil {
		return
	}
	// Read again as NewEntry read them: the object's labels, an empty set
	// as none unless it was an empty map; its template labels and
	// selector.
	if m, err := meta.Accessor(e.Object); err == nil && len(m.GetLabels()) > 0 {
		e.Labels = m.GetLabels()
	} else if p.emptyLabels {
		e.Labels = map[string]string{}
	}
	e.readSelector()
	e.share(k)
}

func unpackObject(kind string, p *packedObject) runtime.Object {
	obj, ok := newTyped(kind).(protoObject)
	if !ok || obj.Unmarshal(p.data) != nil {
		return nil
	}
	t, err := meta.TypeAccessor(obj)
	if err != nil {
		return nil
	}
	t.SetAPIVersion(p.typeMeta.APIVersion)
	t.SetKind(p.typeMeta.Kind)
	return obj
}
