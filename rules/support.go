package rules

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-workload/kubectl-workload/internal/slab"
)

// Object is what lint gives the rules about one object.
type Object struct {
	// JSON is the object as written (as kubectl would send it).
	JSON []byte
	// Defaulted is the typed object after the API server's decoding and
	// defaulting (apicheck's Result.Versioned, even when the server would
	// refuse it), for the workload kinds; nil otherwise. The inventory
	// entry (NewEntry) is read from it, and keeps parts of it: callers
	// must not change it afterwards.
	Defaulted runtime.Object
	// Namespace is the namespace the object would be created in.
	Namespace string
	// Rejected is set when the API server would refuse the object: the
	// built-in rules then leave it alone (its API errors come first), while
	// user policies still see it, as in conftest.
	Rejected bool
	// Versioned is the typed object after the API server's decoding and
	// defaulting (apicheck's Result.Versioned), which the per-object rules
	// read; nil when the API tier has none.
	Versioned runtime.Object
	// Written is the typed object as written, decoded from JSON without
	// defaulting (apicheck's Result.Written), or nil: NewEntry then decodes
	// JSON. It must be what decoding JSON gives, and is not changed.
	Written runtime.Object
	// Keep, when set, is where the run keeps what lint holds of the object
	// until its second pass (NewKeep); nil allocates it apart.
	Keep *Keep
}

// Keep is where a run keeps, between its two passes, the bytes each object
// holds until then (lint's positions of the fields cross-resource findings
// point at): packed together, so that a large run's collections do not scan
// one small allocation per object. It is safe for concurrent use.
type Keep struct {
	slab *slab.Slab

	mu sync.Mutex
	// sets and selectors are the run's copies of the label sets and label
	// selectors its inventory entries keep (Entry.share), by their
	// LabelsKey and SelectorKey.
	sets      map[string]map[string]string
	selectors map[string]keptSelector
}

// keptSelector is a label selector and its compilation by upstream (nil
// when upstream refuses it, or not compiled yet).
type keptSelector struct {
	selector *metav1.LabelSelector
	compiled labels.Selector
}

// NewKeep returns an empty Keep for one run.
func NewKeep() *Keep {
	return &Keep{slab: slab.New(), sets: map[string]map[string]string{}, selectors: map[string]keptSelector{}}
}

// labels returns the run's copy of the label set m: m itself the first
// time a set is seen. An empty or nil m is returned as it is, since a
// manifest's "labels: {}" decodes to an empty map, not nil.
func (k *Keep) labels(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	key := LabelsKey(m)
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.labelsLocked(m, key)
}

// labelsLocked is labels, with k.mu held and m's key.
func (k *Keep) labelsLocked(m map[string]string, key string) map[string]string {
	if kept, ok := k.sets[key]; ok {
		return kept
	}
	k.sets[key] = m
	return m
}

// selector returns the run's copy of the label selector sel, and of its
// compilation: compiled, sel's own, when sel is the first such selector
// seen (nil: not compiled, or refused by upstream). Equal selectors are
// those with equal keys whose match expressions are both nil or both not.
func (k *Keep) selector(sel *metav1.LabelSelector, compiled labels.Selector) (*metav1.LabelSelector, labels.Selector) {
	key := SelectorKey(sel)
	if sel.MatchExpressions == nil {
		key += "n"
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if kept, ok := k.selectors[key]; ok {
		if kept.compiled == nil && compiled != nil {
			kept.compiled = compiled
			k.selectors[key] = kept
		}
		return kept.selector, kept.compiled
	}
	if sel.MatchLabels != nil {
		shared := *sel
		shared.MatchLabels = k.labelsLocked(sel.MatchLabels, LabelsKey(sel.MatchLabels))
		sel = &shared
	}
	k.selectors[key] = keptSelector{selector: sel, compiled: compiled}
	return sel, compiled
}

// Copy keeps a copy of b for as long as the run's objects are kept. A nil
// Keep allocates the copy apart.
func (k *Keep) Copy(b []byte) []byte {
	if k == nil {
		return append([]byte(nil), b...)
	}
	return k.slab.Copy(b)
}

// Key names an object within its namespace in the inventory: Kind/name.
func Key(kind, name string) string { return kind + "/" + name }

// podKinds are the kinds that run pods: the namespace's Workloads counts
// them.
var podKinds = map[string]bool{
	"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true,
	"Job": true, "CronJob": true, "ReplicationController": true, "Pod": true,
}

// templateWorkloadKinds are the kinds whose pod templates run pods
// (podKinds but Pod).
var templateWorkloadKinds = map[string]bool{
	"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true,
	"Job": true, "CronJob": true, "ReplicationController": true,
}

// controllerKinds are the kinds whose selectors adopt pods.
var controllerKinds = []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicationController", "ReplicaSet", "Job"}

// maxRelated is how many related objects a finding that relates one object
// to many names; the rest it counts ("and N more", Finding.Related).
const maxRelated = 5

// ordinalName splits a Pod name into a StatefulSet's name and an ordinal,
// as upstream's getParentNameAndOrdinal (pkg/controller/statefulset) does.
var ordinalName = regexp.MustCompile(`^(.*)-([0-9]+)$`)

// podSummary is what cross-resource rules read of the containers of another
// object's pods, kept small (a run has 10,000 workloads): the ports they
// declare, and the containers without a readinessProbe. Containers count
// with the sidecar init containers (restartPolicy Always), which serve like
// containers; other init containers do not.
type podSummary struct {
	// PortNames are the declared ports with a name, as "name/PROTOCOL";
	// PortNumbers every declared containerPort.
	PortNames   []string
	PortNumbers []int64
	// Regular is how many (regular) containers the pod has.
	Regular int
	// Probed is true when some container or sidecar has a readiness or a
	// startup probe.
	Probed bool
	// Unready are the containers and sidecars without a readinessProbe.
	Unready []containerSummary
}

// containerSummary is one container without a readinessProbe.
type containerSummary struct {
	Name        string
	Field       string // containers or initContainers
	Index       int
	PortNames   []string
	PortNumbers []int64
	Startup     bool
}

// quantity is n and noun, plural unless n is 1: "1 replica", "3 replicas".
func quantity(n float64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatFloat(n, 'f', -1, 64) + " " + noun + "s"
}

// apiGroup is the group of apiVersion, "" for the core group.
func apiGroup(apiVersion string) string {
	parts := strings.Split(apiVersion, "/")
	if len(parts) == 2 {
		return parts[0]
	}
	return ""
}
