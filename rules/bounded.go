package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

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
// pdbPods, servicePorts and readinessTargets below answer, once per distinct
// selector or signature, what pdb/zero-disruptions,
// service/target-port-not-exposed and probes/readiness-missing read of every
// related object.
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
			// The other budgets: the first few of the workload's, without
			// this one, read in place (a copy of the list per budget would
			// be n² when n budgets share every workload).
			all := holderSig[w].byKind["PodDisruptionBudget"]
			others := without(all[:min(len(all), maxRelated+1)], key)
			n := len(all)
			if has(all, key) {
				n--
			}
			names := make([]*ast.Term, 0, maxRelated)
			for _, o := range others[:min(len(others), maxRelated)] {
				names = append(names, ast.StringTerm(objects[o].Name))
			}
			first = append(first, ast.ObjectTerm(ast.Item(ast.StringTerm("key"), ast.StringTerm(w)),
				ast.Item(ast.StringTerm("others"), ast.ArrayTerm(names...)),
				ast.Item(ast.StringTerm("others_count"), ast.InternedTerm(n))))
		}
		add(key, "pdb_overlaps", ast.ObjectTerm(ast.Item(ast.StringTerm("first"), ast.ArrayTerm(first...)),
			ast.Item(ast.StringTerm("count"), ast.InternedTerm(len(ws)))))
	}
	pdbPods(objects, selClass, rel)
	servicePorts(objects, selClass, rel)
	readinessTargets(objects, holderSig, rel)
}

// readinessTargets adds, for each workload and Pod with containers without
// a readinessProbe, the Services that send connections to each of them, as
// probes/readiness-missing's targets decides, computed once per signature
// (the selectors that select the holder) and pod summary instead of by
// walking every selecting Service's ports in Rego for every workload:
//
//	"readiness_targets": {index in pods.unready: {"first": the first
//	  maxRelated Service names, sorted, "count"}}, for the containers some
//	  Service targets
//
// It mirrors probes_readiness_missing.rego's services, targets, target_of
// and targeted.
func readinessTargets(objects map[string]entry, holderSig map[string]*selectedBy, rel *relation) {
	if noReadinessTargets {
		return
	}
	type memoKey struct {
		sb   *selectedBy
		pods string
	}
	memo := map[memoKey]*ast.Term{}
	for key, e := range objects {
		sb := holderSig[key]
		if e.Pods == nil || len(e.Pods.Unready) == 0 || sb == nil || len(sb.byKind["Service"]) == 0 {
			continue
		}
		js, err := json.Marshal(e.Pods)
		if err != nil {
			continue
		}
		k := memoKey{sb, string(js)}
		t, ok := memo[k]
		if !ok {
			t = readinessTargetsOf(objects, sb.byKind["Service"], e.Pods)
			memo[k] = t
		}
		rel.bounded[key] = append(rel.bounded[key], ast.Item(ast.StringTerm("readiness_targets"), t))
	}
}

func readinessTargetsOf(objects map[string]entry, services []string, pods *podSummary) *ast.Term {
	names := make([]map[string]bool, len(pods.Unready))
	for _, svc := range services {
		var ports []any
		switch ps := objects[svc].Spec["ports"].(type) {
		case []any:
			ports = ps
		case map[string]any: // some sp in an object: its values
			for _, p := range ps {
				ports = append(ports, p)
			}
		}
		for _, p := range ports {
			sp, _ := p.(map[string]any)
			if sp == nil {
				continue
			}
			for i, c := range pods.Unready {
				if targeted(sp, c, pods) {
					if names[i] == nil {
						names[i] = map[string]bool{}
					}
					names[i][objects[svc].Name] = true
				}
			}
		}
	}
	var items [][2]*ast.Term
	for i, set := range names {
		if len(set) == 0 {
			continue
		}
		list := make([]string, 0, len(set))
		for n := range set {
			list = append(list, n)
		}
		sort.Strings(list)
		items = append(items, ast.Item(ast.InternedTerm(i), bound(list, len(list))))
	}
	return ast.ObjectTerm(items...)
}

// targeted mirrors probes_readiness_missing.rego's targeted(sp, c): the
// Service port sp sends to container c (of a pod summarized by pods).
func targeted(sp map[string]any, c containerSummary, pods *podSummary) bool {
	// target_of: object.get(sp, "targetPort", sp.port), undefined without a
	// port (the default is evaluated too).
	port, ok := sp["port"]
	if !ok {
		return false
	}
	target, ok := sp["targetPort"]
	if !ok {
		target = port
	}
	switch t := target.(type) {
	case string:
		proto, ok := sp["protocol"].(string)
		if _, present := sp["protocol"]; !present {
			proto, ok = "TCP", true
		}
		return ok && slices.Contains(c.PortNames, t+"/"+proto)
	case float64:
		integral := t == float64(int64(t))
		if integral && slices.Contains(c.PortNumbers, int64(t)) {
			return true
		}
		inPod := integral && slices.Contains(pods.PortNumbers, int64(t))
		return !inPod && pods.Regular == 1 && c.Field == "containers"
	}
	return false
}

// noReadinessTargets, set by tests only, leaves "readiness_targets" out, so
// that the rule's Rego fallback answers.
var noReadinessTargets bool

// noServicePorts, set by tests only, leaves "service_ports" out, so that the
// rule's Rego fallback answers.
var noServicePorts bool

// servicePorts adds, for each Service, what service/target-port-not-exposed
// reads of the workloads it selects, computed once per distinct selector
// instead of by walking every selected workload in Rego for every Service:
//
//	"service_ports": {"count": how many workloads and Pods it selects have a
//	  pod summary, "names": the sorted "name/PROTOCOL" of their named ports,
//	  "numbers": their port numbers, sorted, "all_numbered": each declares a
//	  port number, "shown": xref.describe_list of them}
//
// It mirrors service_target_port_not_exposed.rego's selected, some_named,
// some_numbered, the every over selected, shown, port_names and
// port_numbers.
func servicePorts(objects map[string]entry, selClass map[string]*answerRef, rel *relation) {
	if noServicePorts {
		return
	}
	perSelector(objects, selClass, rel, "Service", "service_ports", func(keys []string) *ast.Term {
		return servicePortsOf(objects, keys)
	})
}

func servicePortsOf(objects map[string]entry, keys []string) *ast.Term {
	names := map[string]bool{}
	numbers := map[int64]bool{}
	allNumbered := true
	var shown []string
	for _, k := range keys {
		e := objects[k]
		if !workloadKind(e.Kind) || e.Pods == nil {
			continue
		}
		shown = append(shown, e.Kind+" "+e.Name) // xref.describe
		for _, n := range e.Pods.PortNames {
			names[n] = true
		}
		for _, n := range e.Pods.PortNumbers {
			numbers[n] = true
		}
		allNumbered = allNumbered && len(e.Pods.PortNumbers) > 0
	}
	sort.Strings(shown)
	text := strings.Join(shown[:min(len(shown), maxRelated)], ", ")
	if len(shown) > maxRelated {
		text += fmt.Sprintf(" and %d more", len(shown)-maxRelated)
	}
	nameTerms := make([]*ast.Term, 0, len(names))
	for _, n := range slices.Sorted(maps.Keys(names)) {
		nameTerms = append(nameTerms, ast.StringTerm(n))
	}
	numberTerms := make([]*ast.Term, 0, len(numbers))
	for _, n := range slices.Sorted(maps.Keys(numbers)) {
		numberTerms = append(numberTerms, ast.NumberTerm(json.Number(strconv.FormatInt(n, 10))))
	}
	return ast.ObjectTerm(
		ast.Item(ast.StringTerm("count"), ast.InternedTerm(len(shown))),
		ast.Item(ast.StringTerm("names"), ast.ArrayTerm(nameTerms...)),
		ast.Item(ast.StringTerm("numbers"), ast.ArrayTerm(numberTerms...)),
		ast.Item(ast.StringTerm("all_numbered"), ast.BooleanTerm(allNumbered)),
		ast.Item(ast.StringTerm("shown"), ast.StringTerm(text)),
	)
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

// pdbPods adds, for each PodDisruptionBudget, what pdb/zero-disruptions
// reads of the pods its selector selects, computed once per distinct
// selector instead of by walking every selected workload in Rego for every
// budget:
//
//	"pdb_pods": {"selected": {"first", "count"} of xref.workloads_selected_by,
//	  "known": every selected template's pod count is known,
//	  "template_replicas": their sum (when known), "autoscaled": an autoscaler
//	  targets one of them, "bare": the selected Pods no controller owns,
//	  "counted": the message's list of them, the first maxRelated entries and
//	  "and N more", "floor_replicas": template_replicas with each autoscaled
//	  template at its autoscalers' smallest minReplicas, "autoscalers": their
//	  keys}
//
// It mirrors pdb_zero_disruptions.rego's templates, replicas, known,
// template_pods, autoscaled, bare_pods and counted_list.
func pdbPods(objects map[string]entry, selClass map[string]*answerRef, rel *relation) {
	// Autoscaler targets: Kind/name to the autoscalers whose refs name it.
	targets := map[string][]scaleTarget{}
	for key, e := range objects {
		if e.Kind != "HorizontalPodAutoscaler" {
			continue
		}
		ref, _ := e.Spec["scaleTargetRef"].(map[string]any)
		kind, _ := ref["kind"].(string)
		name, _ := ref["name"].(string)
		v, _ := ref["apiVersion"].(string)
		minReplicas, ok := e.Spec["minReplicas"].(float64)
		if !ok {
			minReplicas = 1 // the API server's default
		}
		targets[kind+"/"+name] = append(targets[kind+"/"+name], scaleTarget{apiVersion: v, key: key, minReplicas: minReplicas})
	}
	perSelector(objects, selClass, rel, "PodDisruptionBudget", "pdb_pods", func(keys []string) *ast.Term {
		return pdbPodsOf(objects, keys, targets)
	})
}

// perSelector adds the answer name to each object of the kind that has a
// selector, made by answer from what the selector selects, once per
// distinct selector: n objects that share one cost one answer.
func perSelector(objects map[string]entry, selClass map[string]*answerRef, rel *relation, kind, name string, answer func(keys []string) *ast.Term) {
	memo := map[*answerRef]*ast.Term{}
	for key, e := range objects {
		a := selClass[key]
		if e.Kind != kind || a == nil {
			continue
		}
		t, ok := memo[a]
		if !ok {
			t = answer(a.keys)
			memo[a] = t
		}
		rel.bounded[key] = append(rel.bounded[key], ast.Item(ast.StringTerm(name), t))
	}
}

// scaleTarget is one autoscaler of a workload: the apiVersion its
// scaleTargetRef names, its key and its minReplicas.
type scaleTarget struct {
	apiVersion  string
	key         string
	minReplicas float64
}

func pdbPodsOf(objects map[string]entry, keys []string, targets map[string][]scaleTarget) *ast.Term {
	var templates, pods []string
	for _, k := range keys {
		switch kind := objects[k].Kind; {
		case kind == "Pod":
			pods = append(pods, k)
		case templateWorkloadKinds[kind]:
			templates = append(templates, k)
		}
	}
	selected := templates
	if len(selected) == 0 {
		selected = pods
	}
	known := len(templates) > 0
	sum, floor := 0.0, 0.0
	autoscaled := false
	hpas := map[string]bool{}
	var counted []string
	for _, k := range templates {
		e := objects[k]
		n, isNum := e.Spec["replicas"].(float64)
		switch e.Kind {
		case "Deployment", "StatefulSet", "ReplicationController", "ReplicaSet":
		default:
			isNum = false
		}
		if !isNum {
			known = false
		}
		if _, hashed := e.TemplateLabels["pod-template-hash"]; e.Kind == "ReplicaSet" && (e.Owned || hashed) {
			n = 0
		}
		sum += n
		if n > 0 {
			counted = append(counted, fmt.Sprintf("%s %s with %s", e.Kind, e.Name, quantity(n, "replica")))
		}
		smallest := -1.0
		for _, t := range targets[k] {
			if t.apiVersion == "" || apiGroup(t.apiVersion) == apiGroup(e.APIVersion) {
				autoscaled = true
				if n > 0 {
					hpas[t.key] = true
					if smallest < 0 || t.minReplicas < smallest {
						smallest = t.minReplicas
					}
				}
			}
		}
		if smallest >= 0 {
			n = smallest
		}
		floor += n
	}
	sort.Strings(counted)
	bare := 0
	var barePods []string
	for _, k := range pods {
		if !objects[k].Owned {
			bare++
			barePods = append(barePods, "Pod "+objects[k].Name)
		}
	}
	sort.Strings(barePods)
	counted = append(counted, barePods...)
	text := strings.Join(counted[:min(len(counted), maxRelated)], ", ")
	if len(counted) > maxRelated {
		text += fmt.Sprintf(" and %d more", len(counted)-maxRelated)
	}
	items := [][2]*ast.Term{
		ast.Item(ast.StringTerm("selected"), bound(selected, len(selected))),
		ast.Item(ast.StringTerm("known"), ast.BooleanTerm(known)),
		ast.Item(ast.StringTerm("autoscaled"), ast.BooleanTerm(autoscaled)),
		ast.Item(ast.StringTerm("bare"), ast.InternedTerm(bare)),
		ast.Item(ast.StringTerm("counted"), ast.StringTerm(text)),
		ast.Item(ast.StringTerm("counted_count"), ast.InternedTerm(len(counted))),
	}
	if known {
		items = append(items, ast.Item(ast.StringTerm("template_replicas"),
			ast.NumberTerm(json.Number(strconv.FormatFloat(sum, 'f', -1, 64)))))
		items = append(items, ast.Item(ast.StringTerm("floor_replicas"),
			ast.NumberTerm(json.Number(strconv.FormatFloat(floor, 'f', -1, 64)))))
		hpaKeys := make([]*ast.Term, 0, len(hpas))
		for _, k := range sortedKeys(hpas) {
			hpaKeys = append(hpaKeys, ast.StringTerm(k))
		}
		items = append(items, ast.Item(ast.StringTerm("autoscalers"), ast.SetTerm(hpaKeys...)))
	}
	return ast.ObjectTerm(items...)
}

// quantity mirrors xref.quantity.
func quantity(n float64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatFloat(n, 'f', -1, 64) + " " + noun + "s"
}

// apiGroup mirrors xref.api_group.
func apiGroup(apiVersion string) string {
	parts := strings.Split(apiVersion, "/")
	if len(parts) == 2 {
		return parts[0]
	}
	return ""
}
