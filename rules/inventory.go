package rules

import (
	"encoding/json"
	"sort"
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
}

// workloadKinds are the kinds whose pods carry a template.
var workloadKinds = map[string]bool{
	"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true,
	"Job": true, "CronJob": true, "ReplicationController": true, "PodTemplate": true,
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
	// Spec is the object's spec without its pod template.
	Spec map[string]any `json:"spec"`
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
	Spec map[string]any `json:"spec"`
}

// Inventory indexes every object of a run, so that cross-resource rules look
// up candidates by namespace and label instead of scanning every object: a
// 10,000-object run stays linear.
type Inventory struct {
	data map[string]any
}

// Key names an object within its namespace in the inventory: Kind/name.
func Key(kind, name string) string { return kind + "/" + name }

// NewInventory builds the index from every object of the run. Objects that
// do not decode are left out; the API tier reports them.
func NewInventory(objects []Object) *Inventory {
	type nsIndex struct {
		objects          map[string]entry
		byTemplateLabel  map[string][]string
		bySelectorLabel  map[string][]string
		selectorNoLabels []string
		count            map[string]int
		byKind           map[string][]string
	}
	namespaces := map[string]*nsIndex{}
	for _, o := range objects {
		src := o.Defaulted
		if src == nil {
			src = o.JSON
		}
		var r raw
		if err := json.Unmarshal(src, &r); err != nil || r.Kind == "" {
			continue
		}
		ns := namespaces[o.Namespace]
		if ns == nil {
			ns = &nsIndex{objects: map[string]entry{}, byTemplateLabel: map[string][]string{}, bySelectorLabel: map[string][]string{},
				count: map[string]int{}, byKind: map[string][]string{}}
			namespaces[o.Namespace] = ns
		}
		e := entry{Kind: r.Kind, APIVersion: r.APIVersion, Name: r.Metadata.Name, Namespace: o.Namespace,
			Labels: r.Metadata.Labels, Owned: len(r.Metadata.OwnerReferences) > 0}
		e.TemplateLabels, e.Selector, e.Spec = summarize(r)
		key := Key(e.Kind, e.Name)
		ns.objects[key] = e
		ns.count[e.Kind]++
		ns.byKind[e.Kind] = append(ns.byKind[e.Kind], key)
		for k, v := range e.TemplateLabels {
			ns.byTemplateLabel[k+"="+v] = append(ns.byTemplateLabel[k+"="+v], key)
		}
		if e.Selector != nil {
			ml, _ := e.Selector["matchLabels"].(map[string]any)
			for k, v := range ml {
				s, _ := v.(string)
				ns.bySelectorLabel[k+"="+s] = append(ns.bySelectorLabel[k+"="+s], key)
			}
			if len(ml) == 0 {
				ns.selectorNoLabels = append(ns.selectorNoLabels, key)
			}
		}
	}
	out := map[string]any{}
	for name, ns := range namespaces {
		objs := map[string]any{}
		for k, e := range ns.objects {
			objs[k] = e
		}
		for _, idx := range []map[string][]string{ns.byTemplateLabel, ns.bySelectorLabel, ns.byKind} {
			for k := range idx {
				sort.Strings(idx[k])
			}
		}
		sort.Strings(ns.selectorNoLabels)
		out[name] = map[string]any{
			"objects":                  objs,
			"by_template_label":        ns.byTemplateLabel,
			"by_selector_label":        ns.bySelectorLabel,
			"selectors_without_labels": ns.selectorNoLabels,
			"count":                    ns.count,
			"by_kind":                  ns.byKind,
		}
	}
	// Round-trip through JSON so that the store holds plain JSON values.
	b, _ := json.Marshal(map[string]any{"namespaces": out})
	var data map[string]any
	_ = json.Unmarshal(b, &data)
	return &Inventory{data: data}
}

// summarize reads an object's pod-template labels, its selector (normalized
// to a LabelSelector's shape) and its spec without the pod template.
func summarize(r raw) (templateLabels map[string]string, selector map[string]any, spec map[string]any) {
	if r.Spec == nil {
		return nil, nil, nil
	}
	spec = map[string]any{}
	for k, v := range r.Spec {
		if k != "template" && k != "jobTemplate" {
			spec[k] = v
		}
	}
	template, _ := r.Spec["template"].(map[string]any)
	if r.Kind == "CronJob" {
		if jt, ok := r.Spec["jobTemplate"].(map[string]any); ok {
			if js, ok := jt["spec"].(map[string]any); ok {
				template, _ = js["template"].(map[string]any)
			}
		}
	}
	if template != nil && workloadKinds[r.Kind] {
		if md, ok := template["metadata"].(map[string]any); ok {
			if l, ok := md["labels"].(map[string]any); ok {
				templateLabels = map[string]string{}
				for k, v := range l {
					templateLabels[k], _ = v.(string)
				}
			}
		}
	}
	switch r.Kind {
	case "ReplicationController", "Service":
		// A plain map selector.
		if m, ok := r.Spec["selector"].(map[string]any); ok && len(m) > 0 {
			selector = map[string]any{"matchLabels": m}
		}
	case "Job":
		// Without manualSelector the API server generates a unique selector.
		if manual, _ := r.Spec["manualSelector"].(bool); manual {
			selector, _ = r.Spec["selector"].(map[string]any)
		}
	case "CronJob", "Pod", "PodTemplate":
	default:
		selector, _ = r.Spec["selector"].(map[string]any)
	}
	return templateLabels, selector, spec
}
