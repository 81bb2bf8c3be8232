package rules

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// The inventory: every object of a run, per namespace, as typed objects
// indexed by kind and by label, for the cross-resource rules. It holds
// what the Rego rules' inventory held, read from the same source: an
// object's defaulted JSON for the workload kinds, else its JSON as
// written; a context object of a baseline is as written.

// Entry is one object of the inventory.
type Entry struct {
	// Key is Kind/name.
	Key, Kind, APIVersion, Name, Namespace string
	// Labels are metadata.labels.
	Labels map[string]string
	// Owned is set when the object has ownerReferences.
	Owned bool
	// Object is the typed object (defaulted for the workload kinds, else as
	// written), with its pod specs left out; nil for a kind the inventory
	// has no type for. Types are fixed per kind, whatever the apiVersion:
	// autoscaling/v2 for every HorizontalPodAutoscaler, policy/v1 for
	// budgets, networking/v1 for Ingresses and NetworkPolicies, as the
	// fields the rules read are spelled alike in every version.
	Object runtime.Object
	// Written is the typed object as written (pod specs left out), so that
	// a field the manifest leaves out is nil; Object when there is no
	// defaulted form.
	Written runtime.Object
	// TemplateLabels are a workload's pod template labels (nil when it has
	// none, or for other kinds).
	TemplateLabels map[string]string
	// Selector is the object's label selector, normalized to a
	// LabelSelector (a Service's or ReplicationController's map as
	// matchLabels, a NetworkPolicy's podSelector, a Job's only with
	// manualSelector), or nil.
	Selector *metav1.LabelSelector
	// Pods summarizes the containers of a Pod or a workload's pod
	// template; nil for other kinds.
	Pods *podSummary
	// Spreads is true when a workload's pod template spreads its pods by
	// node or zone (spreads), and HasAffinity when its manifest writes an
	// affinity (even an empty one).
	Spreads, HasAffinity bool
	// StraySpread are the required pod anti-affinity terms and topology
	// spread constraints of a workload's pod template whose selector
	// selects none of its own pods (strayTerms).
	StraySpread []StrayTerm
	// Claims are the PersistentVolumeClaims a workload's pod template
	// mounts (volumes[].persistentVolumeClaim), and PinnedToNode is true
	// when its pods can only run on one node (nodeName, a hostname
	// nodeSelector or required node affinity naming one host).
	// PrefersOtherNode is set when its preferred pod anti-affinity spreads
	// its own pods across nodes (prefersOtherNode).
	Claims                         []ClaimVolume
	PinnedToNode, PrefersOtherNode bool

	// selector is Selector compiled by upstream (nil: refused, or none).
	selector labels.Selector
	// packed holds Object and Written between the passes (Pack), until
	// NewIndex decodes them.
	packed *packedEntry
}

// Selects reports whether the entry's selector selects set, with
// upstream's semantics (metav1.LabelSelectorAsSelector); a selector
// upstream refuses selects nothing.
func (e *Entry) Selects(set map[string]string) bool {
	return e.selector != nil && e.selector.Matches(labels.Set(set))
}

// PodLabels are the labels of the entry's pods: a Pod's own labels, a
// workload's pod template labels.
func (e *Entry) PodLabels() map[string]string {
	if e.Kind == "Pod" {
		return e.Labels
	}
	return e.TemplateLabels
}

// newTyped returns an empty typed object for an inventory kind, nil for
// other kinds.
func newTyped(kind string) runtime.Object {
	switch kind {
	case "Deployment":
		return &appsv1.Deployment{}
	case "ReplicaSet":
		return &appsv1.ReplicaSet{}
	case "StatefulSet":
		return &appsv1.StatefulSet{}
	case "DaemonSet":
		return &appsv1.DaemonSet{}
	case "Job":
		return &batchv1.Job{}
	case "CronJob":
		return &batchv1.CronJob{}
	case "ReplicationController":
		return &corev1.ReplicationController{}
	case "Pod":
		return &corev1.Pod{}
	case "PodTemplate":
		return &corev1.PodTemplate{}
	case "Service":
		return &corev1.Service{}
	case "PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}
	case "HorizontalPodAutoscaler":
		return &autoscalingv2.HorizontalPodAutoscaler{}
	case "Ingress":
		return &networkingv1.Ingress{}
	case "NetworkPolicy":
		return &networkingv1.NetworkPolicy{}
	case "PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}
	}
	return nil
}

// decodeTyped decodes js into the inventory's type for kind; nil for a
// kind without one, or JSON that does not decode into it.
func decodeTyped(kind string, js []byte) runtime.Object {
	obj := newTyped(kind)
	if obj == nil || json.Unmarshal(js, obj) != nil {
		return nil
	}
	return obj
}

// NewEntry reads o's inventory entry, as Summarize reads its summary; nil
// for an object that does not decode (the API tier reports it). A workload
// is read from its defaulted typed object (o.Defaulted) when that is of the
// inventory's type for its kind, without a copy: the entry keeps a shallow
// copy of it without its pod spec (compact). Otherwise the entry is decoded
// from JSON: the defaulted object's, or the object as written.
func NewEntry(o Object) *Entry {
	if e := entryFromTyped(o); e != nil {
		return e
	}
	if e := entryFromWritten(o); e != nil {
		return e
	}
	return entryFromJSON(o)
}

// writtenAs returns o.Written when it is of like's Go type, else nil.
func writtenAs(o Object, like runtime.Object) runtime.Object {
	if o.Written == nil || reflect.TypeOf(o.Written) != reflect.TypeOf(like) {
		return nil
	}
	return o.Written
}

// entryFromWritten is NewEntry's entry for an object without a defaulted
// form, read from o.Written: a shallow copy of it (the entry drops its
// annotations) when it is of the inventory's type for its kind, its
// metadata alone for a kind without one (a ConfigMap); nil otherwise. It
// is the entry entryFromJSON decodes from o.JSON.
func entryFromWritten(o Object) *Entry {
	if o.Defaulted != nil || o.Written == nil {
		return nil
	}
	gvk := o.Written.GetObjectKind().GroupVersionKind()
	var obj runtime.Object // nil for a kind without an inventory type
	src := o.Written
	if want := newTyped(gvk.Kind); want != nil {
		written := writtenAs(o, want)
		if written == nil {
			return nil
		}
		copied := reflect.New(reflect.TypeOf(written).Elem())
		copied.Elem().Set(reflect.ValueOf(written).Elem())
		obj = copied.Interface().(runtime.Object)
		src = obj
	}
	m, err := meta.Accessor(src)
	if err != nil || gvk.Kind == "" {
		return nil
	}
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	e := &Entry{Key: Key(kind, m.GetName()), Kind: kind, APIVersion: apiVersion, Name: m.GetName(),
		Namespace: o.Namespace, Labels: m.GetLabels(), Owned: len(m.GetOwnerReferences()) > 0}
	e.Object = obj
	e.Written = obj
	e.finish(false)
	e.share(o.Keep) // obj is the entry's own copy
	return e
}

// entryFromJSON is NewEntry's entry decoded from JSON.
func entryFromJSON(o Object) *Entry {
	src := o.JSON
	if o.Defaulted != nil {
		js, err := json.Marshal(o.Defaulted)
		if err != nil {
			return nil
		}
		src = js
	}
	var r struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Metadata   struct {
			Name            string            `json:"name"`
			Labels          map[string]string `json:"labels"`
			OwnerReferences []json.RawMessage `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if json.Unmarshal(src, &r) != nil || r.Kind == "" {
		return nil
	}
	e := &Entry{Key: Key(r.Kind, r.Metadata.Name), Kind: r.Kind, APIVersion: r.APIVersion, Name: r.Metadata.Name,
		Namespace: o.Namespace, Labels: r.Metadata.Labels, Owned: len(r.Metadata.OwnerReferences) > 0}
	e.Object = decodeTyped(r.Kind, src)
	e.Written = e.Object
	if o.Defaulted != nil {
		e.Written = decodeTyped(r.Kind, o.JSON)
	}
	// An object whose JSON does not decode into its type (a field of the
	// wrong type, which the API tier reports) is kept with its metadata
	// alone: it still counts among its namespace's objects.
	e.finish(o.Defaulted != nil)
	e.share(o.Keep)
	return e
}

// entryFromTyped is NewEntry's entry read from o.Defaulted itself, or nil
// when it cannot be (no typed object, or one of another Go type than the
// inventory's for its kind). What it reads is what decoding the object's
// JSON would give: an empty map or list is read as none, as omitempty
// leaves it out of the JSON.
func entryFromTyped(o Object) *Entry {
	if o.Defaulted == nil {
		return nil
	}
	gvk := o.Defaulted.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		return nil
	}
	want := newTyped(gvk.Kind)
	if want == nil || reflect.TypeOf(want) != reflect.TypeOf(o.Defaulted) {
		return nil
	}
	m, err := meta.Accessor(o.Defaulted)
	if err != nil {
		return nil
	}
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	e := &Entry{Key: Key(kind, m.GetName()), Kind: kind, APIVersion: apiVersion, Name: m.GetName(),
		Namespace: o.Namespace, Labels: m.GetLabels(), Owned: len(m.GetOwnerReferences()) > 0}
	if len(e.Labels) == 0 {
		e.Labels = nil
	}
	e.Object = o.Defaulted
	// compact keeps a shallow copy of a workload: o.Written is not changed.
	if e.Written = writtenAs(o, want); e.Written == nil {
		e.Written = decodeTyped(kind, o.JSON)
	}
	e.finish(true)
	e.share(o.Keep)
	return e
}

// finish reads the entry's template labels, selector and pod summary from
// its typed object, then compacts the objects it keeps (defaulted: Written
// is a decoding of its own).
func (e *Entry) finish(defaulted bool) {
	e.read()
	e.Object = compact(e.Object)
	if defaulted {
		e.Written = compact(e.Written)
	} else {
		e.Written = e.Object
	}
}

// compact returns obj as the inventory keeps it until the second pass:
// without its pod specs, annotations and managed fields, which no
// cross-resource rule reads (a run keeps an entry per object).
func compact(obj runtime.Object) runtime.Object {
	obj = withoutPodSpec(obj)
	if m, err := meta.Accessor(obj); err == nil {
		m.SetAnnotations(nil)
		m.SetManagedFields(nil)
	}
	return obj
}

// share makes the entry's label sets and selectors, and those of the
// objects it keeps, the run's one copy of each (Keep.labels,
// Keep.selector): a run keeps an entry per object until its second pass,
// and a workload's labels, selector and template labels are often one set,
// written again in its defaulted and its written object, and in every copy
// of an application (the 10,000-object one-namespace corpus holds a few
// dozen distinct sets). Nothing reads an entry to change it. A nil Keep
// shares nothing.
func (e *Entry) share(k *Keep) {
	if k == nil {
		return
	}
	e.Labels = k.labels(e.Labels)
	e.TemplateLabels = k.labels(e.TemplateLabels)
	if e.Selector != nil {
		e.Selector, e.selector = k.selector(e.Selector, e.selector)
	}
	shareObject(k, e.Object)
	if e.Written != e.Object {
		shareObject(k, e.Written)
	}
}

// shareObject replaces the label sets and label selectors of obj, an
// object the entry owns (compact's copy, or decoded for it), by the run's
// copies of each. Selectors are replaced, never changed: a pointer to one
// may be shared with the object the first pass read.
func shareObject(k *Keep, obj runtime.Object) {
	if obj == nil {
		return
	}
	if m, err := meta.Accessor(obj); err == nil {
		if l := m.GetLabels(); len(l) > 0 {
			m.SetLabels(k.labels(l))
		}
	}
	sel := func(s *metav1.LabelSelector) *metav1.LabelSelector {
		if s == nil {
			return nil
		}
		shared, _ := k.selector(s, nil)
		return shared
	}
	switch t := obj.(type) {
	case *appsv1.Deployment:
		t.Spec.Selector, t.Spec.Template.Labels = sel(t.Spec.Selector), k.labels(t.Spec.Template.Labels)
	case *appsv1.ReplicaSet:
		t.Spec.Selector, t.Spec.Template.Labels = sel(t.Spec.Selector), k.labels(t.Spec.Template.Labels)
	case *appsv1.StatefulSet:
		t.Spec.Selector, t.Spec.Template.Labels = sel(t.Spec.Selector), k.labels(t.Spec.Template.Labels)
	case *appsv1.DaemonSet:
		t.Spec.Selector, t.Spec.Template.Labels = sel(t.Spec.Selector), k.labels(t.Spec.Template.Labels)
	case *batchv1.Job:
		t.Spec.Selector, t.Spec.Template.Labels = sel(t.Spec.Selector), k.labels(t.Spec.Template.Labels)
	case *batchv1.CronJob:
		t.Spec.JobTemplate.Spec.Selector = sel(t.Spec.JobTemplate.Spec.Selector)
		t.Spec.JobTemplate.Spec.Template.Labels = k.labels(t.Spec.JobTemplate.Spec.Template.Labels)
	case *corev1.ReplicationController:
		t.Spec.Selector = k.labels(t.Spec.Selector)
		if t.Spec.Template != nil { // compact's copy
			t.Spec.Template.Labels = k.labels(t.Spec.Template.Labels)
		}
	case *corev1.PodTemplate:
		t.Template.Labels = k.labels(t.Template.Labels)
	case *corev1.Service:
		t.Spec.Selector = k.labels(t.Spec.Selector)
	case *policyv1.PodDisruptionBudget:
		t.Spec.Selector = sel(t.Spec.Selector)
	case *networkingv1.NetworkPolicy:
		t.Spec.PodSelector.MatchLabels = k.labels(t.Spec.PodSelector.MatchLabels)
	}
}

// read sets the entry's template labels, selector and pod summary from its
// typed object.
func (e *Entry) read() {
	tmpl := e.readSelector()
	if pod, ok := e.Object.(*corev1.Pod); ok {
		e.Pods = summarizePodSpec(&pod.Spec)
	}
	if tmpl != nil {
		e.Pods = summarizePodSpec(&tmpl.Spec)
		e.Spreads = spreads(&tmpl.Spec, tmpl.Labels)
		e.StraySpread = strayTerms(&tmpl.Spec, tmpl.Labels)
		e.Claims, e.PinnedToNode = claimVolumes(&tmpl.Spec), pinnedToNode(&tmpl.Spec)
		e.PrefersOtherNode = prefersOtherNode(&tmpl.Spec, tmpl.Labels)
		// As written: a manifest's "affinity: {}" is gone once defaulted.
		if spec, _ := podSpecOf(e.Written); spec != nil {
			e.HasAffinity = spec.Affinity != nil
		}
	}
}

// readSelector sets the entry's template labels and selector (compiled)
// from its typed object, and returns its pod template (nil for a kind
// without one). It reads no pod spec: unpack calls it on an object
// without one.
func (e *Entry) readSelector() *corev1.PodTemplateSpec {
	var tmpl *corev1.PodTemplateSpec
	switch t := e.Object.(type) {
	case *appsv1.Deployment:
		tmpl, e.Selector = &t.Spec.Template, t.Spec.Selector
	case *appsv1.ReplicaSet:
		tmpl, e.Selector = &t.Spec.Template, t.Spec.Selector
	case *appsv1.StatefulSet:
		tmpl, e.Selector = &t.Spec.Template, t.Spec.Selector
	case *appsv1.DaemonSet:
		tmpl, e.Selector = &t.Spec.Template, t.Spec.Selector
	case *batchv1.Job:
		tmpl = &t.Spec.Template
		// Without manualSelector the API server generates a unique
		// selector.
		if t.Spec.ManualSelector != nil && *t.Spec.ManualSelector {
			e.Selector = t.Spec.Selector
		}
	case *batchv1.CronJob:
		tmpl = &t.Spec.JobTemplate.Spec.Template
	case *corev1.ReplicationController:
		tmpl = t.Spec.Template
		if len(t.Spec.Selector) > 0 {
			e.Selector = &metav1.LabelSelector{MatchLabels: t.Spec.Selector}
		}
	case *corev1.PodTemplate:
		tmpl = &t.Template
	case *corev1.Service:
		if len(t.Spec.Selector) > 0 {
			e.Selector = &metav1.LabelSelector{MatchLabels: t.Spec.Selector}
		}
	case *policyv1.PodDisruptionBudget:
		e.Selector = t.Spec.Selector
	case *networkingv1.NetworkPolicy:
		// An empty podSelector (or none) selects every pod of the
		// namespace.
		sel := t.Spec.PodSelector
		e.Selector = &sel
	}
	if tmpl != nil && len(tmpl.Labels) > 0 { // as decoded from JSON: {} is left out
		e.TemplateLabels = tmpl.Labels
	}
	if e.Selector != nil {
		if s, err := metav1.LabelSelectorAsSelector(e.Selector); err == nil {
			e.selector = s
		}
	}
	return tmpl
}

// summarizePodSpec is summarizeContainers on a typed pod spec.
func summarizePodSpec(spec *corev1.PodSpec) *podSummary {
	out := &podSummary{PortNames: []string{}, PortNumbers: []int64{}, Unready: []containerSummary{}}
	add := func(field string, i int, c *corev1.Container) {
		if c.ReadinessProbe != nil || c.StartupProbe != nil {
			out.Probed = true
		}
		var names []string
		numbers := make([]int64, 0, len(c.Ports))
		for _, p := range c.Ports {
			if p.Name != "" {
				proto := string(p.Protocol)
				if proto == "" {
					proto = "TCP" // the API server's default
				}
				names = append(names, p.Name+"/"+proto)
			}
			numbers = append(numbers, int64(p.ContainerPort))
		}
		out.PortNames = append(out.PortNames, names...)
		out.PortNumbers = append(out.PortNumbers, numbers...)
		if c.ReadinessProbe == nil {
			if names == nil {
				names = []string{}
			}
			out.Unready = append(out.Unready, containerSummary{Name: c.Name, Field: field, Index: i,
				PortNames: names, PortNumbers: numbers, Startup: c.StartupProbe != nil})
		}
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			continue
		}
		add("initContainers", i, c)
	}
	for i := range spec.Containers {
		out.Regular++
		add("containers", i, &spec.Containers[i])
	}
	return out
}

// withoutPodSpec returns obj without its pod specs (a shallow copy): the
// inventory keeps every object of a namespace batch, and cross-resource
// rules read pods through Entry.Pods.
func withoutPodSpec(obj runtime.Object) runtime.Object {
	switch t := obj.(type) {
	case *appsv1.Deployment:
		c := *t
		c.Spec.Template.Spec = corev1.PodSpec{}
		return &c
	case *appsv1.ReplicaSet:
		c := *t
		c.Spec.Template.Spec = corev1.PodSpec{}
		return &c
	case *appsv1.StatefulSet:
		c := *t
		c.Spec.Template.Spec = corev1.PodSpec{}
		return &c
	case *appsv1.DaemonSet:
		c := *t
		c.Spec.Template.Spec = corev1.PodSpec{}
		return &c
	case *batchv1.Job:
		c := *t
		c.Spec.Template.Spec = corev1.PodSpec{}
		return &c
	case *batchv1.CronJob:
		c := *t
		c.Spec.JobTemplate.Spec.Template.Spec = corev1.PodSpec{}
		return &c
	case *corev1.ReplicationController:
		c := *t
		if t.Spec.Template != nil {
			tmpl := *t.Spec.Template
			tmpl.Spec = corev1.PodSpec{}
			c.Spec.Template = &tmpl
		}
		return &c
	case *corev1.PodTemplate:
		c := *t
		c.Template.Spec = corev1.PodSpec{}
		return &c
	case *corev1.Pod:
		c := *t
		c.Spec = corev1.PodSpec{}
		return &c
	}
	return obj
}

// Namespace is the inventory of one namespace.
type Namespace struct {
	Name    string
	objects map[string]*Entry
	// byKind lists each kind's entries, sorted by key; keysByKind each
	// kind's keys, sorted, once per object of the run: an object written
	// twice (one Kind/name in two files) is counted twice, as the Rego
	// inventory counts it, while the index holds the last.
	byKind     map[string][]*Entry
	keysByKind map[string][]string
	// byTemplateLabel lists, for k=v, the entries whose pod template
	// carries it, sorted by key.
	byTemplateLabel map[string][]*Entry
	// bySelectorLabel lists each selector with matchLabels under one of
	// its pairs, the one the fewest selectors of the namespace share (a
	// selector selects a label set only if the set carries every pair);
	// selectorsNoLabels are the selectors without matchLabels. Sorted by
	// key.
	bySelectorLabel   map[string][]*Entry
	selectorsNoLabels []*Entry
	// byScaleTarget lists, for Kind/name, the autoscalers whose
	// scaleTargetRef names it, sorted by key.
	byScaleTarget map[string][]*Entry
	// memo holds the answers to selector questions, by question: a
	// namespace of n alike objects asks each of them n times (the cost
	// the Rego inventory's relations avoided), and the rules run on every
	// CPU. Answers are shared: callers must not change them.
	memo sync.Map
	// shared holds what a rule computes once per distinct question (a
	// selector, a label set) and then reads for every object that asks it:
	// in a namespace of n alike objects, each rule would otherwise redo
	// O(n) work n times.
	shared sync.Map
}

// Shared returns the answer to key, computing it once per namespace. The
// answer is shared by every caller: they must not change it. Keys start
// with the rule id that computes them.
func (ns *Namespace) Shared(key string, compute func() any) any {
	if v, ok := ns.shared.Load(key); ok {
		return v
	}
	v, _ := ns.shared.LoadOrStore(key, compute())
	return v
}

// memoized returns the answer to the question key, computing it once.
func (ns *Namespace) memoized(key string, answer func() []*Entry) []*Entry {
	if v, ok := ns.memo.Load(key); ok {
		return v.([]*Entry)
	}
	v, _ := ns.memo.LoadOrStore(key, answer())
	return v.([]*Entry)
}

// questionKey renders a selector question as a memo key.
func questionKey(question string, v any, kinds []string) string {
	var b strings.Builder
	b.WriteString(question)
	b.WriteByte(0)
	switch t := v.(type) {
	case map[string]string:
		writeLabelsKey(&b, t)
	case *metav1.LabelSelector:
		writeSelectorKey(&b, t)
	default:
		js, _ := json.Marshal(v)
		b.Write(js)
	}
	b.WriteByte(0)
	b.WriteString(strings.Join(kinds, ","))
	return b.String()
}

// SelectorKey renders sel as a memo key: equal for equal selectors, and
// distinct for distinct ones (every string is written with its length).
func SelectorKey(sel *metav1.LabelSelector) string {
	var b strings.Builder
	writeSelectorKey(&b, sel)
	return b.String()
}

// LabelsKey renders a label set as a memo key, as SelectorKey does.
func LabelsKey(set map[string]string) string {
	var b strings.Builder
	writeLabelsKey(&b, set)
	return b.String()
}

func writeKeyString(b *strings.Builder, s string) {
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteByte(':')
	b.WriteString(s)
}

func writeLabelsKey(b *strings.Builder, set map[string]string) {
	if set == nil {
		b.WriteByte('n')
		return
	}
	// Room for the whole key first: grown by doubling, the builder
	// copied each key several times over (4% of a 10k run's allocation).
	n := 2
	for k, v := range set {
		n += len(k) + len(v) + 8 // and two lengths and colons
	}
	b.Grow(n)
	b.WriteByte('{')
	for _, k := range sortedKeys(set) {
		writeKeyString(b, k)
		writeKeyString(b, set[k])
	}
	b.WriteByte('}')
}

func writeSelectorKey(b *strings.Builder, sel *metav1.LabelSelector) {
	if sel == nil {
		b.WriteByte('n')
		return
	}
	writeLabelsKey(b, sel.MatchLabels)
	b.WriteByte('[')
	for _, r := range sel.MatchExpressions {
		writeKeyString(b, r.Key)
		writeKeyString(b, string(r.Operator))
		b.WriteString(strconv.Itoa(len(r.Values)))
		for _, v := range r.Values {
			writeKeyString(b, v)
		}
		b.WriteByte(';')
	}
	b.WriteByte(']')
}

// Index is the inventory of a run (or of a batch of its namespaces).
type Index struct {
	namespaces map[string]*Namespace
}

// NewIndex indexes entries, in input order: the last of two objects with
// one Kind/name in a namespace wins, as in the Rego inventory.
func NewIndex(entries []*Entry) *Index {
	idx := &Index{namespaces: map[string]*Namespace{}}
	var unpacked *Keep // the label sets of the entries decoded here, shared
	for _, e := range entries {
		if e == nil {
			continue
		}
		if e.packed != nil {
			if unpacked == nil {
				unpacked = &Keep{sets: map[string]map[string]string{}, selectors: map[string]keptSelector{}}
			}
			e.unpack(unpacked)
		}
		ns := idx.namespaces[e.Namespace]
		if ns == nil {
			ns = &Namespace{Name: e.Namespace, objects: map[string]*Entry{}}
			idx.namespaces[e.Namespace] = ns
		}
		ns.objects[e.Key] = e
		if ns.keysByKind == nil {
			ns.keysByKind = map[string][]string{}
		}
		ns.keysByKind[e.Kind] = append(ns.keysByKind[e.Kind], e.Key)
	}
	for _, ns := range idx.namespaces {
		ns.index()
	}
	return idx
}

// Namespace returns the inventory of the named namespace (empty when the
// run has no object there).
func (idx *Index) Namespace(name string) *Namespace {
	if ns, ok := idx.namespaces[name]; ok {
		return ns
	}
	return &Namespace{Name: name, objects: map[string]*Entry{}}
}

func (ns *Namespace) index() {
	ns.byKind = map[string][]*Entry{}
	for _, l := range ns.keysByKind {
		sort.Strings(l)
	}
	ns.byTemplateLabel = map[string][]*Entry{}
	ns.byScaleTarget = map[string][]*Entry{}
	ns.bySelectorLabel = map[string][]*Entry{}
	pairs := map[string]int{}
	for _, e := range ns.objects {
		if e.Selector != nil {
			for k, v := range e.Selector.MatchLabels {
				pairs[k+"="+v]++
			}
		}
	}
	keys := make([]string, 0, len(ns.objects))
	for k := range ns.objects {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := ns.objects[k]
		ns.byKind[e.Kind] = append(ns.byKind[e.Kind], e)
		for lk, lv := range e.TemplateLabels {
			ns.byTemplateLabel[lk+"="+lv] = append(ns.byTemplateLabel[lk+"="+lv], e)
		}
		if e.Selector != nil {
			rarest, n := "", 0
			for k, v := range e.Selector.MatchLabels {
				p := k + "=" + v
				if c := pairs[p]; rarest == "" || c < n || (c == n && p < rarest) {
					rarest, n = p, c
				}
			}
			if rarest == "" {
				ns.selectorsNoLabels = append(ns.selectorsNoLabels, e)
			} else {
				ns.bySelectorLabel[rarest] = append(ns.bySelectorLabel[rarest], e)
			}
		}
		if hpa, ok := e.Object.(*autoscalingv2.HorizontalPodAutoscaler); ok {
			ref := hpa.Spec.ScaleTargetRef
			if ref.Kind != "" || ref.Name != "" {
				t := Key(ref.Kind, ref.Name)
				ns.byScaleTarget[t] = append(ns.byScaleTarget[t], e)
			}
		}
	}
}

// Get returns the entry of Kind/name, or nil.
func (ns *Namespace) Get(key string) *Entry { return ns.objects[key] }

// OfKind returns the entries of a kind, sorted by key.
func (ns *Namespace) OfKind(kind string) []*Entry { return ns.byKind[kind] }

// KeysOfKind returns the keys of the objects of kind, sorted, a key
// written twice twice (xref.keys_of_kind).
func (ns *Namespace) KeysOfKind(kind string) []string { return ns.keysByKind[kind] }

// Count is how many objects of kind the run holds in the namespace (a
// Kind/name written twice counts twice).
func (ns *Namespace) Count(kind string) int { return len(ns.keysByKind[kind]) }

// Has reports whether the namespace holds an object of kind.
func (ns *Namespace) Has(kind string) bool { return len(ns.keysByKind[kind]) > 0 }

// Workloads is how many objects that run pods the run holds in the
// namespace (xref.workload_count).
func (ns *Namespace) Workloads() int {
	n := 0
	for k, l := range ns.keysByKind {
		if podKinds[k] {
			n += len(l)
		}
	}
	return n
}

// SelectorsMatching returns the entries of the given kinds (any kind when
// none are given) whose selector selects set, sorted by key.
func (ns *Namespace) SelectorsMatching(set map[string]string, kinds ...string) []*Entry {
	return ns.memoized(questionKey("selecting", set, kinds), func() []*Entry { return ns.selectorsMatching(set, kinds) })
}

func (ns *Namespace) selectorsMatching(set map[string]string, kinds []string) []*Entry {
	var out []*Entry
	add := func(es []*Entry) {
		for _, e := range es {
			if (len(kinds) == 0 || contains(kinds, e.Kind)) && e.Selects(set) {
				out = append(out, e)
			}
		}
	}
	for k, v := range set {
		add(ns.bySelectorLabel[k+"="+v])
	}
	add(ns.selectorsNoLabels)
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// TemplatesSelectedBy returns the entries whose pod template labels sel
// selects (upstream's semantics; nil sel selects nothing), sorted by key.
// Candidates come from the label index when sel has matchLabels.
func (ns *Namespace) TemplatesSelectedBy(sel *metav1.LabelSelector) []*Entry {
	if sel == nil {
		return nil
	}
	return ns.memoized(questionKey("templates", sel, nil), func() []*Entry { return ns.templatesSelectedBy(sel) })
}

func (ns *Namespace) templatesSelectedBy(sel *metav1.LabelSelector) []*Entry {
	var candidates []*Entry
	if len(sel.MatchLabels) > 0 {
		first := true
		for k, v := range sel.MatchLabels {
			l := ns.byTemplateLabel[k+"="+v]
			if first || len(l) < len(candidates) {
				candidates, first = l, false
			}
		}
	} else {
		for _, k := range sortedKeys(ns.objects) {
			if e := ns.objects[k]; e.TemplateLabels != nil {
				candidates = append(candidates, e)
			}
		}
	}
	// Compiling the selector (upstream validates every key and value) is
	// most of the question's cost: only where there is a candidate.
	if len(candidates) == 0 {
		return nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil
	}
	var out []*Entry
	for _, e := range candidates {
		if e.TemplateLabels != nil && s.Matches(labels.Set(e.TemplateLabels)) {
			out = append(out, e)
		}
	}
	return out
}

// AutoscalersTargeting returns the HorizontalPodAutoscalers whose
// scaleTargetRef names kind/name in the group of apiVersion (an unset
// scaleTargetRef.apiVersion matches any), sorted by key.
func (ns *Namespace) AutoscalersTargeting(kind, name, apiVersion string) []*Entry {
	var out []*Entry
	for _, e := range ns.byScaleTarget[Key(kind, name)] {
		ref := e.Object.(*autoscalingv2.HorizontalPodAutoscaler).Spec.ScaleTargetRef
		if ref.APIVersion == "" || apiGroup(ref.APIVersion) == apiGroup(apiVersion) {
			out = append(out, e)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Describe renders an inventory key as "Deployment web" (xref.describe).
func Describe(key string) string {
	kind, name, _ := strings.Cut(key, "/")
	return kind + " " + name
}

// DescribeList renders keys sorted, naming at most five, "and N more"
// beyond (xref.describe_list).
func DescribeList(keys []string) string {
	d := make([]string, len(keys))
	for i, k := range keys {
		d[i] = Describe(k)
	}
	sort.Strings(d)
	if len(d) <= 5 {
		return strings.Join(d, ", ")
	}
	return strings.Join(d[:5], ", ") + " and " + strconv.Itoa(len(d)-5) + " more"
}

// KeysOf returns the entries' keys.
func KeysOf(es []*Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Key
	}
	return out
}

// Quantity renders "1 replica", "3 replicas" (xref.quantity).
func Quantity(n int64, noun string) string { return quantity(float64(n), noun) }

// FormatLabels renders a label map as "k=v,k2=v2", sorted, "<none>" when
// empty (xref.format_labels).
func FormatLabels(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	pairs := make([]string, 0, len(m))
	for k, v := range m {
		pairs = append(pairs, k+"="+v)
	}
	sort.Strings(pairs)
	return strings.Join(pairs, ",")
}

// FormatSelector renders a LabelSelector as kubectl does, sorted:
// "app=web,tier in (a,b),!legacy" (xref.format_selector).
func FormatSelector(sel *metav1.LabelSelector) string {
	if sel == nil {
		return "<none>"
	}
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return "{} (everything)"
	}
	var pairs, exprs []string
	for k, v := range sel.MatchLabels {
		pairs = append(pairs, k+"="+v)
	}
	sort.Strings(pairs)
	for _, e := range sel.MatchExpressions {
		values := append([]string(nil), e.Values...)
		sort.Strings(values)
		switch e.Operator {
		case metav1.LabelSelectorOpIn:
			exprs = append(exprs, e.Key+" in ("+strings.Join(values, ",")+")")
		case metav1.LabelSelectorOpNotIn:
			exprs = append(exprs, e.Key+" notin ("+strings.Join(values, ",")+")")
		case metav1.LabelSelectorOpExists:
			exprs = append(exprs, e.Key)
		case metav1.LabelSelectorOpDoesNotExist:
			exprs = append(exprs, "!"+e.Key)
		}
	}
	sort.Strings(exprs)
	return strings.Join(append(pairs, exprs...), ",")
}

// PodsSelectedBy returns the Pods whose labels sel selects, sorted by key.
func (ns *Namespace) PodsSelectedBy(sel *metav1.LabelSelector) []*Entry {
	if sel == nil || len(ns.byKind["Pod"]) == 0 {
		return nil // nothing to select: the selector is not compiled
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil
	}
	var out []*Entry
	for _, e := range ns.byKind["Pod"] {
		if s.Matches(labels.Set(e.Labels)) {
			out = append(out, e)
		}
	}
	return out
}

// AllWorkloadsSelectedBy returns every workload whose pod template sel
// selects and every Pod it selects, sorted by key
// (xref.all_workloads_selected_by).
func (ns *Namespace) AllWorkloadsSelectedBy(sel *metav1.LabelSelector) []*Entry {
	if sel == nil {
		return nil
	}
	return ns.memoized(questionKey("workloads", sel, nil), func() []*Entry { return ns.allWorkloadsSelectedBy(sel) })
}

func (ns *Namespace) allWorkloadsSelectedBy(sel *metav1.LabelSelector) []*Entry {
	var out []*Entry
	for _, e := range ns.TemplatesSelectedBy(sel) {
		if templateWorkloadKinds[e.Kind] {
			out = append(out, e)
		}
	}
	out = append(out, ns.PodsSelectedBy(sel)...)
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// except returns es without the entry of key.
func except(es []*Entry, key string) []*Entry {
	var out []*Entry
	for _, e := range es {
		if e.Key != key {
			out = append(out, e)
		}
	}
	return out
}

// SelectsWorkload reports whether sel selects the pods of a workload or a
// Pod of the namespace (xref.selects_workload).
func (ns *Namespace) SelectsWorkload(sel *metav1.LabelSelector) bool {
	return len(ns.AllWorkloadsSelectedBy(sel)) > 0
}

// shownIntended is how many intended workloads a message names.
const shownIntended = 3

// Intended returns the workloads a selector that selects nothing was
// probably written for (xref.intended): those named like the selecting
// object, and the near misses, whose pod template carries every pair of
// match (two or more) but one. It returns the first shownIntended keys,
// sorted, and how many there are.
func (ns *Namespace) Intended(match map[string]string, name string) (shown []string, count int) {
	return ns.IntendedExcept(match, name, nil)
}

// IntendedExcept is Intended without the workloads skip reports true for
// (a PodDisruptionBudget's hint leaves out those with a budget of their
// own); skip may be nil.
func (ns *Namespace) IntendedExcept(match map[string]string, name string, skip func(*Entry) bool) (shown []string, count int) {
	keys := map[string]bool{}
	for kind := range podKinds {
		if e := ns.Get(Key(kind, name)); e != nil && (skip == nil || !skip(e)) {
			keys[Key(kind, name)] = true
		}
	}
	for _, e := range ns.NearMisses(match) {
		if skip == nil || !skip(e) {
			keys[e.Key] = true
		}
	}
	all := sortedKeys(keys)
	return all[:min(len(all), shownIntended)], len(all)
}

// NearMisses returns the workloads (not Pods) whose pod template carries
// every pair of match but one, when match has two pairs or more, sorted by
// key (xref.near_misses).
func (ns *Namespace) NearMisses(match map[string]string) []*Entry {
	if len(match) < 2 {
		return nil
	}
	var out []*Entry
	for _, e := range ns.templateHolders() {
		if !templateWorkloadKinds[e.Kind] {
			continue
		}
		have := 0
		for k, v := range match {
			if got, ok := e.TemplateLabels[k]; ok && got == v {
				have++
			}
		}
		if have == len(match)-1 {
			out = append(out, e)
		}
	}
	return out
}

// templateHolders are the entries with pod template labels, sorted by key.
func (ns *Namespace) templateHolders() []*Entry {
	var out []*Entry
	for _, k := range sortedKeys(ns.objects) {
		if e := ns.objects[k]; e.TemplateLabels != nil {
			out = append(out, e)
		}
	}
	return out
}

// DescribeIntended renders Intended's answer: each workload with its pod
// template labels (a Pod's own labels), and how many more there are
// (xref.describe_intended).
func (ns *Namespace) DescribeIntended(shown []string, count int) string {
	parts := make([]string, 0, len(shown)+1)
	for _, k := range shown {
		e := ns.Get(k)
		parts = append(parts, fmt.Sprintf("%s (%s %s)", Describe(k), labelsWord(k), FormatLabels(e.PodLabels())))
	}
	if count > shownIntended {
		parts = append(parts, fmt.Sprintf("and %d more", count-shownIntended))
	}
	return strings.Join(parts, "; ")
}

// labelsWord names the labels of a key's pods (xref.labels_word).
func labelsWord(key string) string {
	if strings.HasPrefix(key, "Pod/") {
		return "labels"
	}
	return "pod template labels"
}
