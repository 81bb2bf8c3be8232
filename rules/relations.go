package rules

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-workload/kubectl-workload/internal/nearest"
)

// Relations. Which selector selects which pods is what most cross-resource
// rules ask, once per object; asked in Rego, through the label indexes, it
// was most of their cost, and it grows with the square of a namespace's
// size when many objects share a label. So the inventory answers it once, in
// Go, with upstream's own selector semantics (metav1.LabelSelectorAsSelector,
// labels.Selector.Matches), and gives each entry:
//
//   - "selects": the sorted keys of the namespace's pod-label holders (pod
//     templates of workloads, and Pods by their own labels) that the
//     entry's selector selects; only for a selector upstream accepts;
//   - "selected_by": for a pod-label holder, the sorted keys of the entries
//     whose selector selects its pod labels;
//   - "near_misses" and "near_miss_count": for a selector with two
//     matchLabels pairs or more that selects no workload, the first three
//     (sorted) of the workloads whose pod template carries every pair but
//     one (xref.near_misses), and how many there are;
//   - "did_you_mean": for a selector that selects no workload, the workload
//     whose pod template carries every matchLabels pair but one, and that
//     one's key with a value a few edits away (chekout for checkout), as
//     {"label": "key=value", "key": Kind/name}; for an autoscaler whose
//     scaleTargetRef names no object of the namespace, the object of that
//     kind whose name is a few edits away, as {"name": name, "key":
//     Kind/name}.
//
// xref.rego uses them when a rule asks about the input object's own
// selector or pod labels, as every built-in rule does, and its label-index
// helpers otherwise. A selector upstream refuses (an unknown operator, In
// without values, a label key that is not valid) selects nothing here; the
// API server rejects its object anyway. Identical lists are shared, so n
// alike controllers cost n lists' worth of memory, not n².

// relation is one namespace's relations, as Rego values.
type relation struct {
	selects    map[string]ast.Value
	selectedBy map[string]ast.Value
	nearMisses map[string]nearMissSummary
	didYouMean map[string]ast.Value
	// selectedByKind is selectedBy split by the selecting object's kind,
	// {Kind: [keys]}, so that a rule asking for one kind reads only its
	// list.
	selectedByKind map[string]ast.Value
	// bounded holds, per entry, the bounded answers of the rules that
	// relate one object to many (bounded.go): extra items of the entry.
	bounded map[string][][2]*ast.Term
}

// nearMissSummary is a selector's near misses as the rules show them: the
// first shownNearMisses keys, sorted, and how many there are.
type nearMissSummary struct {
	first ast.Value
	count int
}

// shownNearMisses is how many near misses messages name
// (xref.describe_intended).
const shownNearMisses = 3

// relate computes the relations of one namespace's entries.
func relate(objects map[string]entry) relation {
	// Pod-label holders, and an index of them by label pair.
	holders := map[string]labels.Set{}
	byPair := map[string][]string{}
	for key, e := range objects {
		var set map[string]string
		switch {
		case e.Kind == "Pod":
			set = e.Labels
			if set == nil {
				set = map[string]string{}
			}
		case e.TemplateLabels != nil:
			set = e.TemplateLabels
		default:
			continue
		}
		holders[key] = labels.Set(set)
		for k, v := range set {
			byPair[k+"="+v] = append(byPair[k+"="+v], key)
		}
	}
	all := make([]string, 0, len(holders))
	for key := range holders {
		all = append(all, key)
	}
	sort.Strings(all)

	lists := listInterner{}
	rel := relation{selects: map[string]ast.Value{}, selectedBy: map[string]ast.Value{}, nearMisses: map[string]nearMissSummary{},
		didYouMean: map[string]ast.Value{}, selectedByKind: map[string]ast.Value{}, bounded: map[string][][2]*ast.Term{}}
	// The answers for each distinct selector, by its JSON, and the
	// objects that have it (its members).
	type answer = answerRef
	memo := map[string]*answer{}
	var classes []*answer
	selClass := map[string]*answer{}
	for key, e := range objects {
		if e.Selector == nil {
			continue
		}
		js, err := json.Marshal(e.Selector) // map keys sorted: one text per selector
		if err != nil {
			continue
		}
		a := memo[string(js)]
		if a == nil {
			a = &answer{}
			var ls metav1.LabelSelector
			if json.Unmarshal(js, &ls) == nil {
				if a.keys = selectedKeys(&ls, holders, byPair, all); a.keys != nil && !selectsWorkload(a.keys) {
					a.near = nearMisses(&ls, objects, holders, byPair)
					a.typo = valueTypo(&ls, objects, holders, all)
				}
			}
			memo[string(js)] = a
			if a.keys != nil {
				classes = append(classes, a)
			}
		}
		if a.keys == nil {
			continue // a selector upstream refuses
		}
		a.members = append(a.members, key)
		selClass[key] = a
		if a.value == nil {
			a.value = lists.value(a.keys) // once per distinct selector, not per member
		}
		rel.selects[key] = a.value
		if a.near != nil {
			rel.nearMisses[key] = *a.near
		}
		if a.typo != nil {
			rel.didYouMean[key] = a.typo
		}
	}
	for key, e := range objects {
		if v := targetTypo(e, objects); v != nil {
			rel.didYouMean[key] = v
		}
	}
	// Which selectors select a holder: the members of the distinct
	// selectors whose answer holds it. Holders selected by the same
	// distinct selectors share one list (a signature of the selectors'
	// ordinals), so that n alike objects cost n lists' worth of work, not
	// n²: the lists are built once per signature.
	sort.Slice(classes, func(i, j int) bool { return classes[i].members[0] < classes[j].members[0] })
	for _, a := range classes {
		sort.Strings(a.members)
	}
	sigOf := map[string][]int32{}
	for i, a := range classes {
		for _, h := range a.keys {
			sigOf[h] = append(sigOf[h], int32(i))
		}
	}
	bySig := map[string]*selectedBy{}
	holderSig := map[string]*selectedBy{}
	for key := range holders {
		sig := sigOf[key]
		id := sigString(sig)
		sb := bySig[id]
		if sb == nil {
			var keys []string
			for _, i := range sig {
				keys = append(keys, classes[i].members...)
			}
			sort.Strings(keys)
			sb = &selectedBy{all: keys, byKind: map[string][]string{}}
			for _, k := range keys {
				kind := objects[k].Kind
				sb.byKind[kind] = append(sb.byKind[kind], k)
			}
			sb.value = lists.value(keys)
			kinds := make([][2]*ast.Term, 0, len(sb.byKind))
			for kind, l := range sb.byKind {
				kinds = append(kinds, ast.Item(ast.StringTerm(kind), ast.NewTerm(lists.value(l))))
			}
			sb.kindValue = ast.NewObject(kinds...)
			bySig[id] = sb
		}
		holderSig[key] = sb
		rel.selectedBy[key] = sb.value
		rel.selectedByKind[key] = sb.kindValue
	}
	boundedRelations(objects, holderSig, selClass, &rel)
	return rel
}

// answerRef is one distinct selector's answer, and the objects that have
// it (its members, sorted).
type answerRef struct {
	keys    []string // nil for a selector upstream refuses
	near    *nearMissSummary
	typo    ast.Value
	members []string
	value   ast.Value // keys as a Rego array
}

// selectedBy is the selectors that select a holder, shared by the holders
// of one signature.
type selectedBy struct {
	all       []string
	byKind    map[string][]string
	value     ast.Value
	kindValue ast.Value
}

func sigString(sig []int32) string {
	var b strings.Builder
	for _, i := range sig {
		b.WriteString(strconv.Itoa(int(i)))
		b.WriteByte(',')
	}
	return b.String()
}

// selectedKeys is the sorted keys of the holders that the selector selects;
// nil when upstream refuses the selector. Candidates are the holders
// carrying the selector's least common matchLabels pair, or every holder.
func selectedKeys(ls *metav1.LabelSelector, holders map[string]labels.Set, byPair map[string][]string, all []string) []string {
	selector, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil
	}
	candidates := all
	if len(ls.MatchLabels) > 0 {
		candidates = nil
		first := true
		for k, v := range ls.MatchLabels {
			if l := byPair[k+"="+v]; first || len(l) < len(candidates) {
				candidates, first = l, false
			}
		}
	}
	keys := []string{}
	for _, key := range candidates {
		if selector.Matches(holders[key]) {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	return keys
}

// listInterner gives one Rego array per distinct list of keys.
type listInterner map[string]ast.Value

func (li listInterner) value(keys []string) ast.Value {
	id := strings.Join(keys, "\x00")
	if v, ok := li[id]; ok {
		return v
	}
	terms := make([]*ast.Term, len(keys))
	for i, k := range keys {
		terms[i] = ast.StringTerm(k)
	}
	v := ast.NewArray(terms...)
	li[id] = v
	return v
}

// templateWorkloadKinds are the kinds whose pod templates run pods
// (xref.workload_kinds but Pod).
var templateWorkloadKinds = map[string]bool{
	"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true,
	"Job": true, "CronJob": true, "ReplicationController": true,
}

// selectsWorkload reports whether keys (a selector's answer) hold a
// workload: a workload's pod template or a Pod.
func selectsWorkload(keys []string) bool {
	for _, k := range keys {
		kind, _, _ := strings.Cut(k, "/")
		if podKinds[kind] {
			return true
		}
	}
	return false
}

// valueTypo finds, for a selector of matchLabels only that selects no
// workload, the workload (or Pod) whose pod labels carry every pair but one,
// and that one's key with a value that is a few edits away from the
// selector's (nearest.Close): a misspelled label value. The closest wins,
// then the first key. It returns {"label": "key=value", "key": Kind/name},
// or nil.
func valueTypo(ls *metav1.LabelSelector, objects map[string]entry, holders map[string]labels.Set, all []string) ast.Value {
	if len(ls.MatchLabels) == 0 || len(ls.MatchExpressions) > 0 {
		return nil
	}
	var best ast.Value
	bestDist := -1
	for _, key := range all {
		if k := objects[key].Kind; !templateWorkloadKinds[k] && k != "Pod" {
			continue
		}
		h := holders[key]
		missing, missKey := 0, ""
		for k, v := range ls.MatchLabels {
			if got, ok := h[k]; !ok || got != v {
				missing++
				missKey = k
			}
		}
		if missing != 1 {
			continue
		}
		want := ls.MatchLabels[missKey]
		got, ok := h[missKey]
		if !ok || !nearest.Close(want, got) {
			continue
		}
		if d := nearest.Distance(want, got); bestDist < 0 || d < bestDist {
			bestDist = d
			best = ast.NewObject(ast.Item(ast.StringTerm("label"), ast.StringTerm(missKey+"="+got)), ast.Item(ast.StringTerm("key"), ast.StringTerm(key)))
		}
	}
	return best
}

// targetTypo finds, for an autoscaler whose scaleTargetRef names no object
// of the namespace, the object of that kind whose name is a few edits away
// (nearest.Nearest): {"name": name, "key": Kind/name}, or nil.
func targetTypo(e entry, objects map[string]entry) ast.Value {
	if e.Kind != "HorizontalPodAutoscaler" {
		return nil
	}
	ref, _ := e.Spec["scaleTargetRef"].(map[string]any)
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	if kind == "" || name == "" {
		return nil
	}
	if _, ok := objects[kind+"/"+name]; ok {
		return nil
	}
	var names []string
	for _, o := range objects {
		if o.Kind == kind {
			names = append(names, o.Name)
		}
	}
	n := nearest.Nearest(name, names)
	if n == "" {
		return nil
	}
	return ast.NewObject(ast.Item(ast.StringTerm("name"), ast.StringTerm(n)), ast.Item(ast.StringTerm("key"), ast.StringTerm(kind+"/"+n)))
}

// nearMisses sums up, for a selector with two matchLabels pairs or more,
// the workloads whose pod template carries every pair but one; nil
// otherwise. It mirrors xref.near_misses.
func nearMisses(ls *metav1.LabelSelector, objects map[string]entry, holders map[string]labels.Set, byPair map[string][]string) *nearMissSummary {
	if len(ls.MatchLabels) < 2 {
		return nil
	}
	// A near miss lacks one pair: it carries at least one, so it is in
	// the list of that pair.
	seen := map[string]bool{}
	near := []string{}
	for k, v := range ls.MatchLabels {
		for _, key := range byPair[k+"="+v] {
			if seen[key] || !templateWorkloadKinds[objects[key].Kind] {
				continue
			}
			seen[key] = true
			have := 0
			for k2, v2 := range ls.MatchLabels {
				if got, ok := holders[key][k2]; ok && got == v2 {
					have++
				}
			}
			if have == len(ls.MatchLabels)-1 {
				near = append(near, key)
			}
		}
	}
	sort.Strings(near)
	first := make([]*ast.Term, 0, shownNearMisses)
	for _, k := range near[:min(len(near), shownNearMisses)] {
		first = append(first, ast.StringTerm(k))
	}
	return &nearMissSummary{first: ast.NewArray(first...), count: len(near)}
}
