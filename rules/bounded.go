package rules

import (
	"regexp"
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Bounded relations. Some rules relate one object to many: a bare Pod to
// every controller that would adopt it (selector/bare-pod-adopted), a
// controller to every other whose pods it overlaps (selector/overlap), a
// budget to every workload another budget covers too (pdb/overlap). When
// many copies of a manifest share their labels in one namespace each of n
// objects relates to about n others; listing them, or even walking them in
// Rego, is n² work for n² lines nobody reads. So the inventory answers
// these questions here, in time linear in the namespace (the lists are
// built once per distinct selector or signature and shared), and gives each
// entry only the first maxRelated related keys, sorted, and how many there
// are:
//
//   - "adopters" (Pods): {"first", "count"} of the selectors that adopt the
//     Pod if it is bare, as selector/bare-pod-adopted's adopts() decides:
//     ReplicaSets, ReplicationControllers, DaemonSets and Jobs that select
//     its labels, and the StatefulSet whose name is the Pod's with its
//     -<ordinal> removed (isMemberOf), if it selects them;
//   - "overlapping" (controllers, as xref.controller decides): {"first",
//     "count"} of the other controllers whose pod templates its selector
//     selects or whose selectors select its pod template;
//   - "pdb_overlaps" (PodDisruptionBudgets): {"first", "count"} of the
//     workloads it selects that another budget selects too, each first one
//     as {"key", "others": first names of those other budgets,
//     "others_count"}.
//
// The rules print these and "and N more", and set related_count.

// maxRelated is how many related objects a bounded answer names.
const maxRelated = 5

// ordinalName splits a Pod name into a StatefulSet's name and an ordinal,
// as selector/bare-pod-adopted's parent_and_ordinal does (upstream's
// getParentNameAndOrdinal in pkg/controller/statefulset).
var ordinalName = regexp.MustCompile(`^(.*)-([0-9]+)$`)

// bound is a bounded answer: the first keys, sorted, and the count.
func bound(keys []string, count int) *ast.Term {
	first := make([]*ast.Term, 0, min(len(keys), maxRelated))
	for _, k := range keys[:min(len(keys), maxRelated)] {
		first = append(first, ast.StringTerm(k))
	}
	return ast.ObjectTerm(ast.Item(ast.StringTerm("first"), ast.ArrayTerm(first...)),
		ast.Item(ast.StringTerm("count"), ast.InternedTerm(count)))
}

// isController mirrors xref.controller: a pod controller that claims pods
// by its own selector.
func isController(e entry) bool {
	switch e.Kind {
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicationController":
		return true
	case "ReplicaSet":
		_, hashed := e.TemplateLabels["pod-template-hash"]
		return !e.Owned && !hashed
	case "Job":
		return e.Selector != nil
	}
	return false
}

var controllerKinds = []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicationController", "ReplicaSet", "Job"}

// boundedRelations adds the bounded answers to rel.
func boundedRelations(objects map[string]entry, holderSig map[string]*selectedBy, selClass map[string]*answerRef, rel *relation) {
	add := func(key, name string, t *ast.Term) {
		rel.bounded[key] = append(rel.bounded[key], ast.Item(ast.StringTerm(name), t))
	}
	// Adopters of each Pod.
	adopterLists := map[*selectedBy][]string{}
	for key, e := range objects {
		if e.Kind != "Pod" {
			continue
		}
		sb := holderSig[key]
		if sb == nil {
			continue
		}
		l, ok := adopterLists[sb]
		if !ok {
			for _, kind := range []string{"ReplicaSet", "ReplicationController", "DaemonSet", "Job"} {
				l = append(l, sb.byKind[kind]...)
			}
			sort.Strings(l)
			adopterLists[sb] = l
		}
		if m := ordinalName.FindStringSubmatch(e.Name); m != nil {
			sts := "StatefulSet/" + m[1]
			if has(sb.byKind["StatefulSet"], sts) {
				i := sort.SearchStrings(l, sts)
				first := append(append(append([]string{}, l[:min(i, maxRelated)]...), sts), l[i:min(len(l), maxRelated)]...)
				add(key, "adopters", bound(first, len(l)+1))
				continue
			}
		}
		add(key, "adopters", bound(l, len(l)))
	}
	// Overlapping controllers: the union of what a controller's selector
	// selects and what selects its template, controllers only, shared per
	// (selector, signature).
	type pair struct {
		a  *answerRef
		sb *selectedBy
	}
	unions := map[pair][]string{}
	for key, e := range objects {
		a, sb := selClass[key], holderSig[key]
		if a == nil || sb == nil || !isController(e) {
			continue
		}
		u, ok := unions[pair{a, sb}]
		if !ok {
			seen := map[string]bool{}
			for _, k := range a.keys {
				if objects[k].Kind != "Pod" && isController(objects[k]) && !seen[k] {
					seen[k] = true
					u = append(u, k)
				}
			}
			for _, kind := range controllerKinds {
				for _, k := range sb.byKind[kind] {
					if isController(objects[k]) && !seen[k] {
						seen[k] = true
						u = append(u, k)
					}
				}
			}
			sort.Strings(u)
			unions[pair{a, sb}] = u
		}
		n := len(u)
		first := u[:min(len(u), maxRelated+1)]
		if has(u, key) {
			n--
			first = without(first, key)
		}
		add(key, "overlapping", bound(first, n))
	}
	// Budgets that overlap another on some workload.
	shared := map[*answerRef][]string{}
	for key, e := range objects {
		a := selClass[key]
		if e.Kind != "PodDisruptionBudget" || a == nil {
			continue
		}
		ws, ok := shared[a]
		if !ok {
			for _, w := range a.keys {
				if sb := holderSig[w]; workloadKind(objects[w].Kind) && sb != nil && len(sb.byKind["PodDisruptionBudget"]) >= 2 {
					ws = append(ws, w)
				}
			}
			shared[a] = ws
		}
		first := make([]*ast.Term, 0, maxRelated)
		for _, w := range ws[:min(len(ws), maxRelated)] {
			others := without(holderSig[w].byKind["PodDisruptionBudget"], key)
			names := make([]*ast.Term, 0, maxRelated)
			for _, o := range others[:min(len(others), maxRelated)] {
				names = append(names, ast.StringTerm(objects[o].Name))
			}
			first = append(first, ast.ObjectTerm(ast.Item(ast.StringTerm("key"), ast.StringTerm(w)),
				ast.Item(ast.StringTerm("others"), ast.ArrayTerm(names...)),
				ast.Item(ast.StringTerm("others_count"), ast.InternedTerm(len(others)))))
		}
		add(key, "pdb_overlaps", ast.ObjectTerm(ast.Item(ast.StringTerm("first"), ast.ArrayTerm(first...)),
			ast.Item(ast.StringTerm("count"), ast.InternedTerm(len(ws)))))
	}
}

// workloadKind mirrors xref.workload_kinds.
func workloadKind(kind string) bool { return templateWorkloadKinds[kind] || kind == "Pod" }

// has reports whether the sorted keys hold k.
func has(keys []string, k string) bool {
	i := sort.SearchStrings(keys, k)
	return i < len(keys) && keys[i] == k
}

// without is the sorted keys without k (a copy when k is there).
func without(keys []string, k string) []string {
	i := sort.SearchStrings(keys, k)
	if i == len(keys) || keys[i] != k {
		return keys
	}
	return append(append([]string{}, keys[:i]...), keys[i+1:]...)
}
