package rules

import (
	"encoding/json"
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-workload/kubectl-workload/internal/each"
	"github.com/kubectl-workload/kubectl-workload/internal/slab"
)

// Object is what the Rego tier is given about one object.
type Object struct {
	// JSON is the object as written (as kubectl would send it).
	JSON []byte
	// Defaulted is the object after the API server's defaulting, as JSON,
	// for the kinds the API tier decodes; nil otherwise.
	Defaulted []byte
	// Namespace is the namespace the object would be created in.
	Namespace string
	// Facts are values computed in Go with upstream's own helpers (see
	// facts.go); nil when there are none for the kind.
	Facts map[string]any
	// Rejected is set when the API server would refuse the object: the
	// built-in rules then leave it alone (its API errors come first), while
	// user policies still see it, as in conftest.
	Rejected bool
	// Versioned is the typed object after the API server's decoding and
	// defaulting (apicheck's Result.Versioned), which the per-object Go
	// rules read; nil when the API tier has none.
	Versioned runtime.Object
	// Keep, when set, is where the run keeps what the object's CrossInput
	// and Summary hold until its second pass (NewKeep); nil allocates them
	// apart.
	Keep *Keep
}

// Keep is where a run keeps, between its two passes, what each object's
// CrossInput and Summary hold: packed together, so that a large run's
// collections do not scan one small allocation per object. Summaries are
// apart from the rest, since they are dropped sooner (once the inventory is
// built). It is safe for concurrent use.
type Keep struct{ cross, summaries *slab.Slab }

// NewKeep returns an empty Keep for one run.
func NewKeep() *Keep { return &Keep{cross: slab.New(), summaries: slab.New()} }

// Copy keeps a copy of b with the objects' cross-resource inputs, for as long
// as they are kept (lint's positions of the fields they report on).
func (k *Keep) Copy(b []byte) []byte { return k.crossSlab().Copy(b) }

func (k *Keep) crossSlab() *slab.Slab {
	if k == nil {
		return nil
	}
	return k.cross
}

func (k *Keep) summarySlab() *slab.Slab {
	if k == nil {
		return nil
	}
	return k.summaries
}

// workloadKinds are the kinds whose pods carry a template.
var workloadKinds = map[string]bool{
	"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true,
	"Job": true, "CronJob": true, "ReplicationController": true, "PodTemplate": true,
}

// podKinds are the kinds that run pods (xref.workload_kinds): the
// namespace's "workloads" counts them.
var podKinds = map[string]bool{
	"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true,
	"Job": true, "CronJob": true, "ReplicationController": true, "Pod": true,
}

// entry is the inventory's summary of one object: enough for cross-resource
// rules without the weight of every pod spec.
type entry struct {
	Kind           string            `json:"kind"`
	APIVersion     string            `json:"apiVersion"`
	Name           string            `json:"name"`
	Namespace      string            `json:"namespace"`
	Labels         map[string]string `json:"labels"`
	Owned          bool              `json:"owned"`
	TemplateLabels map[string]string `json:"templateLabels"`
	// Selector is normalized to {matchLabels, matchExpressions}, or nil.
	Selector map[string]any `json:"selector"`
	// Spec is the part of the object's spec that rules read of other
	// objects (summaryFields).
	Spec map[string]any `json:"spec"`
	// Pods summarizes the containers of a Pod or of a workload's pod
	// template (podSummary), nil for other kinds.
	Pods *podSummary `json:"pods,omitempty"`
}

// podSummary is what cross-resource rules read of the containers of another
// object's pods, kept small (a run has 10,000 workloads): the ports they
// declare, and the containers without a readinessProbe. Containers count
// with the sidecar init containers (restartPolicy Always), which serve like
// containers; other init containers do not.
type podSummary struct {
	// PortNames are the declared ports with a name, as "name/PROTOCOL";
	// PortNumbers every declared containerPort.
	PortNames   []string `json:"portNames"`
	PortNumbers []int64  `json:"portNumbers"`
	// Regular is how many (regular) containers the pod has.
	Regular int `json:"regular"`
	// Probed is true when some container or sidecar has a readiness or a
	// startup probe.
	Probed bool `json:"probed"`
	// Unready are the containers and sidecars without a readinessProbe.
	Unready []containerSummary `json:"unready"`
}

// containerSummary is one container without a readinessProbe.
type containerSummary struct {
	Name        string   `json:"name"`
	Field       string   `json:"field"` // containers or initContainers
	Index       int      `json:"index"`
	PortNames   []string `json:"portNames"`
	PortNumbers []int64  `json:"portNumbers"`
	Startup     bool     `json:"startup"`
}

// rawContainer is the part of a container Summarize decodes.
type rawContainer struct {
	Name  string `json:"name"`
	Ports []struct {
		Name          string `json:"name"`
		ContainerPort int64  `json:"containerPort"`
		Protocol      string `json:"protocol"`
	} `json:"ports"`
	// The probes are only tested for presence: a pointer to an empty
	// struct allocates nothing.
	ReadinessProbe *struct{} `json:"readinessProbe"`
	StartupProbe   *struct{} `json:"startupProbe"`
	RestartPolicy  string    `json:"restartPolicy"`
}

// summarizeContainers reads the containers and sidecar init containers of a
// pod spec given as its containers and initContainers JSON.
func summarizeContainers(containers, initContainers json.RawMessage) *podSummary {
	out := &podSummary{PortNames: []string{}, PortNumbers: []int64{}, Unready: []containerSummary{}}
	for _, list := range []struct {
		field string
		js    json.RawMessage
	}{{"initContainers", initContainers}, {"containers", containers}} {
		if len(list.js) == 0 {
			continue
		}
		var cs []rawContainer
		if json.Unmarshal(list.js, &cs) != nil {
			continue
		}
		for i, c := range cs {
			if list.field == "initContainers" && c.RestartPolicy != "Always" {
				continue
			}
			if list.field == "containers" {
				out.Regular++
			}
			if c.ReadinessProbe != nil || c.StartupProbe != nil {
				out.Probed = true
			}
			var names []string
			numbers := make([]int64, 0, len(c.Ports))
			for _, p := range c.Ports {
				if p.Name != "" {
					proto := p.Protocol
					if proto == "" {
						proto = "TCP" // the API server's default
					}
					names = append(names, p.Name+"/"+proto)
				}
				numbers = append(numbers, p.ContainerPort)
			}
			out.PortNames = append(out.PortNames, names...)
			out.PortNumbers = append(out.PortNumbers, numbers...)
			if c.ReadinessProbe == nil {
				if names == nil {
					names = []string{}
				}
				out.Unready = append(out.Unready, containerSummary{Name: c.Name, Field: list.field, Index: i,
					PortNames: names, PortNumbers: numbers, Startup: c.StartupProbe != nil})
			}
		}
	}
	return out
}

// raw is the part of an object the inventory reads.
type raw struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		Name            string            `json:"name"`
		Labels          map[string]string `json:"labels"`
		OwnerReferences []json.RawMessage `json:"ownerReferences"`
	} `json:"metadata"`
	// Spec is read field by field: the pod template, the bulk of a
	// workload, is decoded only as far as its labels.
	Spec map[string]json.RawMessage `json:"spec"`
}

// Inventory indexes every object of a run, so that cross-resource rules look
// up candidates by namespace and label instead of scanning every object: a
// 10,000-object run stays linear.
type Inventory struct {
	root ast.Object
	// st is the store holding root, made once (store).
	st storage.Store
}

// Key names an object within its namespace in the inventory: Kind/name.
func Key(kind, name string) string { return kind + "/" + name }

// Summary is the inventory's summary of one object, made as soon as the
// object is checked (Summarize), so that the object itself need not be kept
// until the inventory is built.
type Summary struct {
	ok        bool
	namespace string
	// entry is the summary as JSON: bytes the collector does not scan, where
	// the entry's maps would be pointers to mark in every collection while a
	// large run is loaded. NewInventoryOf decodes it.
	entry []byte
}

// Summarize reads what the inventory needs of an object: its defaulted JSON
// when it has one, else the JSON as written. An object that does not decode
// gives a Summary the inventory leaves out; the API tier reports it.
func Summarize(o Object) Summary {
	src := o.Defaulted
	if src == nil {
		src = o.JSON
	}
	if !fullSummary {
		// The few fields read here, as JSON, read past the pod template
		// (the bulk of a workload) instead of copying it.
		buf := jsonBuf.Get().(*[]byte)
		defer jsonBuf.Put(buf)
		if kept, err := keptJSON((*buf)[:0], src, summaryRead); err == nil {
			*buf = kept
			src = kept
		}
	}
	var r raw
	if err := json.Unmarshal(src, &r); err != nil || r.Kind == "" {
		return Summary{}
	}
	e := entry{Kind: r.Kind, APIVersion: r.APIVersion, Name: r.Metadata.Name, Namespace: o.Namespace,
		Owned: len(r.Metadata.OwnerReferences) > 0}
	if r.Kind == "Pod" { // the only kind whose own labels rules read (see entry.value)
		e.Labels = r.Metadata.Labels
	}
	var err error
	if e.TemplateLabels, e.Selector, e.Spec, e.Pods, err = summarize(r); err != nil {
		return Summary{}
	}
	js, err := json.Marshal(e)
	if err != nil {
		return Summary{}
	}
	return Summary{ok: true, namespace: o.Namespace, entry: o.Keep.summarySlab().Copy(js)}
}

// NewInventory builds the index from every object of the run. Objects that
// do not decode are left out; the API tier reports them.
func NewInventory(objects []Object) *Inventory {
	sums := make([]Summary, len(objects))
	for i, o := range objects {
		sums[i] = Summarize(o)
	}
	return NewInventoryOf(sums)
}

// nsIndex is one namespace of the inventory while it is built.
type nsIndex struct {
	objects          map[string]entry
	byTemplateLabel  map[string][]string
	bySelectorLabel  map[string][]string
	selectorPairs    map[string]int
	selectorNoLabels []string
	count            map[string]int
	byKind           map[string][]string
	byScaleTarget    map[string][]string
}

// NewInventoryOf builds the index from the summaries of every object of the
// run, in input order.
func NewInventoryOf(sums []Summary) *Inventory {
	byNamespace := map[string][]*Summary{}
	var names []string
	for i := range sums {
		s := &sums[i]
		if !s.ok {
			continue
		}
		if _, seen := byNamespace[s.namespace]; !seen {
			names = append(names, s.namespace)
		}
		byNamespace[s.namespace] = append(byNamespace[s.namespace], s)
	}
	// The inventory is built as Rego values directly, with one term per
	// distinct string (label keys and values repeat across entries), so
	// that the store need not convert it.
	// Namespaces are independent: they are built on every CPU, each worker
	// with its own strings.
	root := make([][2]*ast.Term, len(names))
	each.Worker(len(names), func() func(int) {
		t := terms{}
		return func(i int) { root[i] = ast.Item(t.str(names[i]), newNSIndex(byNamespace[names[i]]).value(t)) }
	})
	return &Inventory{root: ast.NewObject(ast.Item(ast.InternedTerm("namespaces"), ast.ObjectTerm(root...)))}
}

// newNSIndex indexes one namespace's summaries, in input order (the last
// of two objects with one Kind/name wins).
func newNSIndex(sums []*Summary) *nsIndex {
	ns := &nsIndex{objects: map[string]entry{}, byTemplateLabel: map[string][]string{}, bySelectorLabel: map[string][]string{},
		selectorPairs: map[string]int{}, count: map[string]int{}, byKind: map[string][]string{},
		byScaleTarget: map[string][]string{}}
	for _, s := range sums {
		var e entry
		if err := json.Unmarshal(s.entry, &e); err != nil {
			continue // Summarize wrote it: cannot happen
		}
		key := Key(e.Kind, e.Name)
		ns.objects[key] = e
		ns.count[e.Kind]++
		ns.byKind[e.Kind] = append(ns.byKind[e.Kind], key)
		if e.Kind == "HorizontalPodAutoscaler" {
			if ref, ok := e.Spec["scaleTargetRef"].(map[string]any); ok {
				kind, kok := ref["kind"].(string)
				name, nok := ref["name"].(string)
				if kok && nok {
					target := Key(kind, name)
					ns.byScaleTarget[target] = append(ns.byScaleTarget[target], key)
				}
			}
		}
		for k, v := range e.TemplateLabels {
			ns.byTemplateLabel[k+"="+v] = append(ns.byTemplateLabel[k+"="+v], key)
		}
		if e.Selector != nil {
			ml, _ := e.Selector["matchLabels"].(map[string]any)
			for k, v := range ml {
				s, _ := v.(string)
				ns.selectorPairs[k+"="+s]++
			}
			if len(ml) == 0 {
				ns.selectorNoLabels = append(ns.selectorNoLabels, key)
			}
		}
	}
	// Each selector with matchLabels is indexed under one of its pairs, the
	// one the fewest selectors of the namespace share (ties: the smallest
	// pair): a selector selects a label set only if the set carries every
	// pair, so looking up each pair of the set finds it, and the lists stay
	// as short as the selectors are distinct.
	for key, e := range ns.objects {
		if e.Selector == nil {
			continue
		}
		ml, _ := e.Selector["matchLabels"].(map[string]any)
		rarest, n := "", 0
		for k, v := range ml {
			s, _ := v.(string)
			p := k + "=" + s
			if c := ns.selectorPairs[p]; rarest == "" || c < n || (c == n && p < rarest) {
				rarest, n = p, c
			}
		}
		if rarest != "" {
			ns.bySelectorLabel[rarest] = append(ns.bySelectorLabel[rarest], key)
		}
	}
	return ns
}

// value is one namespace's index as a Rego value.
func (ns *nsIndex) value(t terms) *ast.Term {
	rel := relate(ns.objects)
	objs := make([][2]*ast.Term, 0, len(ns.objects))
	for k, e := range ns.objects {
		objs = append(objs, ast.Item(t.str(k), ast.NewTerm(e.value(t, rel, k))))
	}
	for _, idx := range []map[string][]string{ns.byTemplateLabel, ns.bySelectorLabel, ns.byKind, ns.byScaleTarget} {
		for k := range idx {
			sort.Strings(idx[k])
		}
	}
	sort.Strings(ns.selectorNoLabels)
	count := make([][2]*ast.Term, 0, len(ns.count))
	workloads := 0
	for k, n := range ns.count {
		count = append(count, ast.Item(t.str(k), ast.InternedTerm(n)))
		if podKinds[k] {
			workloads += n
		}
	}
	return ast.ObjectTerm(
		ast.Item(ast.InternedTerm("objects"), ast.ObjectTerm(objs...)),
		ast.Item(ast.InternedTerm("by_template_label"), t.lists(ns.byTemplateLabel)),
		ast.Item(ast.InternedTerm("by_selector_label"), t.lists(ns.bySelectorLabel)),
		ast.Item(ast.InternedTerm("selectors_without_labels"), t.list(ns.selectorNoLabels)),
		ast.Item(ast.InternedTerm("count"), ast.ObjectTerm(count...)),
		ast.Item(ast.InternedTerm("by_kind"), t.lists(ns.byKind)),
		ast.Item(ast.InternedTerm("by_scale_target"), t.lists(ns.byScaleTarget)),
		ast.Item(ast.InternedTerm("workloads"), ast.InternedTerm(workloads)),
	)
}

// value is the entry as a Rego value, with its relations (rel). Labels are
// kept for Pods only: the rules read another object's pod labels, which
// are a Pod's own labels but a workload's pod template's.
func (e entry) value(t terms, rel relation, key string) ast.Value {
	labels := ast.NullTerm()
	if e.Labels != nil {
		labels = t.labels(e.Labels)
	}
	items := [][2]*ast.Term{
		ast.Item(ast.InternedTerm("kind"), t.str(e.Kind)),
		ast.Item(ast.InternedTerm("apiVersion"), t.str(e.APIVersion)),
		ast.Item(ast.InternedTerm("name"), t.str(e.Name)),
		ast.Item(ast.InternedTerm("namespace"), t.str(e.Namespace)),
		ast.Item(ast.InternedTerm("labels"), labels),
		ast.Item(ast.InternedTerm("owned"), ast.InternedTerm(e.Owned)),
		ast.Item(ast.InternedTerm("templateLabels"), t.labels(e.TemplateLabels)),
		ast.Item(ast.InternedTerm("selector"), t.any(e.Selector)),
		ast.Item(ast.InternedTerm("spec"), t.any(e.Spec)),
	}
	if e.Pods != nil {
		items = append(items, ast.Item(ast.InternedTerm("pods"), e.Pods.interned(t)))
	}
	for _, r := range []struct {
		name string
		m    map[string]ast.Value
	}{{"selects", rel.selects}, {"selected_by", rel.selectedBy}, {"selected_by_kind", rel.selectedByKind}} {
		if v, ok := r.m[key]; ok {
			items = append(items, ast.Item(ast.InternedTerm(r.name), ast.NewTerm(v)))
		}
	}
	if near, ok := rel.nearMisses[key]; ok {
		items = append(items, ast.Item(ast.InternedTerm("near_misses"), ast.NewTerm(near.first)),
			ast.Item(ast.InternedTerm("near_miss_count"), ast.InternedTerm(near.count)))
	}
	if v, ok := rel.didYouMean[key]; ok {
		items = append(items, ast.Item(ast.InternedTerm("did_you_mean"), ast.NewTerm(v)))
	}
	items = append(items, rel.bounded[key]...)
	return ast.NewObject(items...)
}

// terms gives one Rego term per distinct string of an inventory.
type terms map[string]*ast.Term

func (t terms) str(s string) *ast.Term {
	if term, ok := t[s]; ok {
		return term
	}
	term := ast.StringTerm(s)
	t[s] = term
	return term
}

// labels is a label map as a Rego object, null for none.
func (t terms) labels(m map[string]string) *ast.Term {
	if m == nil {
		return ast.NullTerm()
	}
	items := make([][2]*ast.Term, 0, len(m))
	for k, v := range m {
		items = append(items, ast.Item(t.str(k), t.str(v)))
	}
	return ast.ObjectTerm(items...)
}

// any is a value decoded from JSON (a selector, a spec) as a Rego value,
// null for a nil map.
func (t terms) any(m map[string]any) *ast.Term {
	if m == nil {
		return ast.NullTerm()
	}
	return ast.NewTerm(ast.MustInterfaceToValue(m))
}

// list is a list of keys as a Rego array, null for none.
func (t terms) list(l []string) *ast.Term {
	if l == nil {
		return ast.NullTerm()
	}
	out := make([]*ast.Term, len(l))
	for i, s := range l {
		out[i] = t.str(s)
	}
	return ast.ArrayTerm(out...)
}

func (t terms) lists(m map[string][]string) *ast.Term {
	items := make([][2]*ast.Term, 0, len(m))
	for k, l := range m {
		items = append(items, ast.Item(t.str(k), t.list(l)))
	}
	return ast.ObjectTerm(items...)
}

// summaryFields are the spec fields an inventory entry keeps: the ones the
// cross-resource rules read of another object (replica counts, an
// autoscaler's range and target, a Service's cluster IP and type, a
// StatefulSet's Service, a Job's selector mode). The rest (pod specs of
// Pods, volumeClaimTemplates, ports, strategies) would only fill memory: a
// test runs every rule on every fixture with whole specs and with these
// and compares the findings (TestSummaryFieldsSuffice).
var summaryFields = map[string]bool{
	"replicas": true, "parallelism": true, "completions": true, "selector": true, "manualSelector": true,
	"minReplicas": true, "maxReplicas": true, "scaleTargetRef": true,
	"clusterIP": true, "clusterIPs": true, "type": true, "serviceName": true,
	"minAvailable": true, "maxUnavailable": true,
	"ports": true, "podSelector": true, "policyTypes": true,
}

// summaryRead is what Summarize reads of an object (see raw), in the
// shape of valueFromJSONKept's fields: summaryFields of the spec, and the
// pod template's labels.
var summaryRead = func() map[string]any {
	labels := map[string]any{"metadata": map[string]any{"labels": nil},
		"spec": map[string]any{"containers": nil, "initContainers": nil}}
	spec := map[string]any{"template": labels, "jobTemplate": map[string]any{"spec": map[string]any{"template": labels}},
		"containers": nil, "initContainers": nil}
	for f := range summaryFields {
		spec[f] = nil
	}
	return map[string]any{
		"kind": nil, "apiVersion": nil, "spec": spec,
		"metadata": map[string]any{"name": nil, "labels": nil, "ownerReferences": nil},
	}
}()

// fullSummary keeps every spec field but the pod template in the entries;
// for tests only.
var fullSummary = false

// summarize reads an object's pod-template labels, its selector (normalized
// to a LabelSelector's shape) and its spec without the pod template.
func summarize(r raw) (templateLabels map[string]string, selector map[string]any, spec map[string]any, containers *podSummary, err error) {
	if r.Spec == nil {
		return nil, nil, nil, nil, nil
	}
	spec = map[string]any{}
	for k, v := range r.Spec {
		if !summaryFields[k] && !fullSummary {
			continue
		}
		if k == "template" || k == "jobTemplate" || k == "containers" || k == "initContainers" {
			continue
		}
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return nil, nil, nil, nil, err
		}
		spec[k] = x
	}
	if r.Kind == "Pod" {
		containers = summarizeContainers(r.Spec["containers"], r.Spec["initContainers"])
	}
	type withLabels struct {
		Metadata struct {
			Labels map[string]any `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Containers     json.RawMessage `json:"containers"`
			InitContainers json.RawMessage `json:"initContainers"`
		} `json:"spec"`
	}
	var template *withLabels
	tmplJSON := r.Spec["template"]
	if r.Kind == "CronJob" {
		var jt struct {
			Spec map[string]json.RawMessage `json:"spec"`
		}
		if jtJSON, ok := r.Spec["jobTemplate"]; ok && json.Unmarshal(jtJSON, &jt) == nil && jt.Spec != nil {
			tmplJSON = jt.Spec["template"]
		}
	}
	if len(tmplJSON) > 0 {
		var t withLabels
		if json.Unmarshal(tmplJSON, &t) == nil {
			template = &t
		}
	}
	if template != nil && workloadKinds[r.Kind] && template.Metadata.Labels != nil {
		templateLabels = map[string]string{}
		for k, v := range template.Metadata.Labels {
			templateLabels[k], _ = v.(string)
		}
	}
	if template != nil && workloadKinds[r.Kind] {
		containers = summarizeContainers(template.Spec.Containers, template.Spec.InitContainers)
	}
	switch r.Kind {
	case "ReplicationController", "Service":
		// A plain map selector.
		if m, ok := spec["selector"].(map[string]any); ok && len(m) > 0 {
			selector = map[string]any{"matchLabels": m}
		}
	case "Job":
		// Without manualSelector the API server generates a unique selector.
		if manual, _ := spec["manualSelector"].(bool); manual {
			selector, _ = spec["selector"].(map[string]any)
		}
	case "NetworkPolicy":
		// spec.podSelector; an empty one (or none) selects every pod of
		// the namespace.
		selector, _ = spec["podSelector"].(map[string]any)
		if selector == nil {
			selector = map[string]any{}
		}
	case "CronJob", "Pod", "PodTemplate":
	default:
		selector, _ = spec["selector"].(map[string]any)
	}
	return templateLabels, selector, spec, containers, nil
}

// interned is the pod summary's term, one per distinct summary of the
// namespace batch: workloads alike (the same ports, the same containers
// without a readiness probe) share it, as they share label strings.
func (ps *podSummary) interned(t terms) *ast.Term {
	js, err := json.Marshal(ps)
	if err != nil {
		return ps.term(t)
	}
	key := "\x00pods\x00" + string(js) // no label or key starts with NUL
	if term, ok := t[key]; ok {
		return term
	}
	term := ps.term(t)
	t[key] = term
	return term
}

// term is a pod summary as a Rego object.
func (ps *podSummary) term(t terms) *ast.Term {
	unready := make([]*ast.Term, len(ps.Unready))
	for i, c := range ps.Unready {
		unready[i] = ast.ObjectTerm(
			ast.Item(ast.InternedTerm("name"), t.str(c.Name)),
			ast.Item(ast.InternedTerm("field"), t.str(c.Field)),
			ast.Item(ast.InternedTerm("index"), ast.InternedTerm(c.Index)),
			ast.Item(ast.InternedTerm("portNames"), t.strs(c.PortNames)),
			ast.Item(ast.InternedTerm("portNumbers"), numbers(c.PortNumbers)),
			ast.Item(ast.InternedTerm("startup"), ast.InternedTerm(c.Startup)),
		)
	}
	return ast.ObjectTerm(
		ast.Item(ast.InternedTerm("portNames"), t.strs(ps.PortNames)),
		ast.Item(ast.InternedTerm("portNumbers"), numbers(ps.PortNumbers)),
		ast.Item(ast.InternedTerm("regular"), ast.InternedTerm(ps.Regular)),
		ast.Item(ast.InternedTerm("probed"), ast.InternedTerm(ps.Probed)),
		ast.Item(ast.InternedTerm("unready"), ast.ArrayTerm(unready...)),
	)
}

// strs is a list of strings as a Rego array (empty, not null, for none).
func (t terms) strs(l []string) *ast.Term {
	out := make([]*ast.Term, len(l))
	for i, s := range l {
		out[i] = t.str(s)
	}
	return ast.ArrayTerm(out...)
}

// numbers is a list of numbers as a Rego array.
func numbers(l []int64) *ast.Term {
	out := make([]*ast.Term, len(l))
	for i, n := range l {
		out[i] = ast.InternedTerm(int(n))
	}
	return ast.ArrayTerm(out...)
}
