package runner

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// The bases an autoscaled workload's replica count is planned at (Autoscaler.Basis).
const (
	// BasisCurrent: the count the autoscaler holds now, the stored workload's spec.replicas
	// (its scale), read from the cluster or a state dump.
	BasisCurrent = "current"
	// BasisMinReplicas: the autoscaler's minReplicas (1 when unset), the only count the files
	// say; a running autoscaler may hold more.
	BasisMinReplicas = "minReplicas"
	// BasisManifest: the manifest writes spec.replicas, which an apply sets; the autoscaler
	// then changes it back within its range.
	BasisManifest = "manifest"
	// BasisWhatIf: --replicas scales it, as kubectl scale would; the autoscaler then changes
	// it back within its range.
	BasisWhatIf = "--replicas"
)

// Autoscaler is the HorizontalPodAutoscaler whose scaleTargetRef names a predicted workload:
// it, not the manifest, owns the replica count, and the plan says which count it used.
type Autoscaler struct {
	Namespace string
	Name      string
	// Source is where the autoscaler was read: a file of -f, a state dump or the cluster.
	Source      string
	MinReplicas int32
	MaxReplicas int32
	// CurrentReplicas is the autoscaler's status.currentReplicas, when the cluster or a dump
	// gives it.
	CurrentReplicas *int32
	// Replicas is the count the plan runs at, and Basis where it comes from (the Basis
	// constants).
	Replicas int32
	Basis    string
	// ScaleSource names where the stored workload, whose spec.replicas is the autoscaler's
	// current count, was read (BasisCurrent).
	ScaleSource string
	// Others names further autoscalers that target the same workload (a conflict the
	// autoscaler controller reports as AmbiguousSelector).
	Others []string
}

// Describe is one line for the plan's header: which autoscaler, and which count the plan uses.
func (a *Autoscaler) Describe() string {
	s := fmt.Sprintf("HorizontalPodAutoscaler %s (minReplicas %d, maxReplicas %d) owns the replica count: ", a.Name, a.MinReplicas, a.MaxReplicas)
	switch a.Basis {
	case BasisCurrent:
		s += fmt.Sprintf("planned at its current count %d (the spec.replicas it set, in %s", a.Replicas, a.ScaleSource)
		if a.CurrentReplicas != nil {
			s += fmt.Sprintf("; status.currentReplicas %d", *a.CurrentReplicas)
		}
		s += ")"
	case BasisMinReplicas:
		s += fmt.Sprintf("planned at its minReplicas %d (from %s; a running autoscaler may hold more)", a.Replicas, a.Source)
	case BasisManifest:
		s += fmt.Sprintf("planned at the manifest's spec.replicas %d, which an apply sets; the autoscaler then scales it back into %d to %d", a.Replicas, a.MinReplicas, a.MaxReplicas)
	case BasisWhatIf:
		s += fmt.Sprintf("planned at --replicas %d, as kubectl scale sets it; the autoscaler then scales it back into %d to %d", a.Replicas, a.MinReplicas, a.MaxReplicas)
	}
	if len(a.Others) > 0 {
		s += fmt.Sprintf("; %s also target it, and the autoscaler controller acts on none of them (AmbiguousSelector)", strings.Join(a.Others, ", "))
	}
	return s
}

// Short says in a few words where the planned count comes from, for the picture's subtitle:
// "autoscaler api's minReplicas".
func (a *Autoscaler) Short() string {
	switch a.Basis {
	case BasisCurrent:
		return "autoscaler " + a.Name + "'s current count"
	case BasisMinReplicas:
		return "autoscaler " + a.Name + "'s minReplicas"
	case BasisManifest:
		return "the manifest's; autoscaler " + a.Name + " then scales it"
	}
	return "--replicas; autoscaler " + a.Name + " then scales it"
}

// sourcedAutoscaler is an autoscaler and where it was read.
type sourcedAutoscaler struct {
	hpa    *autoscalingv2.HorizontalPodAutoscaler
	source string
	// obj is the manifest document of an autoscaler of -f; nil for a state's.
	obj *manifest.Object
}

// autoscalersOfSet decodes the HorizontalPodAutoscalers among the new manifests.
func autoscalersOfSet(set *manifest.Set, defaultNS string) ([]sourcedAutoscaler, error) {
	var out []sourcedAutoscaler
	for _, obj := range set.Objects {
		if !isAutoscaler(obj) {
			continue
		}
		hpa := new(autoscalingv2.HorizontalPodAutoscaler)
		if err := json.Unmarshal(obj.JSON, hpa); err != nil {
			return nil, fmt.Errorf("%s: document %d: decode %s: %w", obj.File, obj.Document, obj.Ref(), err)
		}
		if hpa.Namespace == "" {
			hpa.Namespace = defaultNS
		}
		out = append(out, sourcedAutoscaler{hpa: hpa, source: obj.File, obj: obj})
	}
	return out, nil
}

// isAutoscaler reports whether obj is an autoscaling/v1 or v2 HorizontalPodAutoscaler.
func isAutoscaler(obj *manifest.Object) bool {
	return obj.Kind == "HorizontalPodAutoscaler" && (obj.APIVersion == "autoscaling/v2" || obj.APIVersion == "autoscaling/v1")
}

// autoscalersOfState are the state's autoscalers.
func autoscalersOfState(st *kernel.State) []sourcedAutoscaler {
	if st == nil {
		return nil
	}
	out := make([]sourcedAutoscaler, 0, len(st.Autoscalers))
	for _, h := range st.Autoscalers {
		out = append(out, sourcedAutoscaler{hpa: h, source: st.Source})
	}
	return out
}

// targeting returns the autoscalers among hpas whose scaleTargetRef names the apps/v1 kind
// namespace/name, by name. As the autoscaler controller resolves scaleTargetRef through the
// scale subresource of its group and kind, the group must be apps (an empty apiVersion is
// refused by the API server; it is read as the core group here and so matches nothing).
func targeting(hpas []sourcedAutoscaler, kind, namespace, name string) []sourcedAutoscaler {
	var out []sourcedAutoscaler
	for _, h := range hpas {
		ref := h.hpa.Spec.ScaleTargetRef
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || gv.Group != "apps" || ref.Kind != kind || ref.Name != name {
			continue
		}
		if h.hpa.Namespace != namespace && h.hpa.Namespace != "" {
			continue
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].hpa.Name < out[j].hpa.Name })
	return out
}

// autoscalerFor picks the autoscaler of kind namespace/name: one of the stored state (the
// cluster's or a dump's) first, since it holds the count now, else one of the new manifests.
// Nil when none targets it.
func autoscalerFor(stored, files []sourcedAutoscaler, kind, namespace, name string) (*Autoscaler, *manifest.Object) {
	found := targeting(stored, kind, namespace, name)
	if len(found) == 0 {
		found = targeting(files, kind, namespace, name)
	}
	if len(found) == 0 {
		return nil, nil
	}
	h := found[0].hpa
	a := &Autoscaler{Namespace: namespace, Name: h.Name, Source: found[0].source, MinReplicas: 1, MaxReplicas: h.Spec.MaxReplicas}
	if h.Spec.MinReplicas != nil {
		a.MinReplicas = *h.Spec.MinReplicas
	}
	if found[0].obj == nil {
		n := h.Status.CurrentReplicas
		a.CurrentReplicas = &n
	}
	for _, o := range found[1:] {
		a.Others = append(a.Others, o.hpa.Name)
	}
	return a, found[0].obj
}

// writesReplicas reports whether a manifest's JSON sets spec.replicas.
func writesReplicas(js []byte) bool {
	var m struct {
		Spec map[string]json.RawMessage `json:"spec"`
	}
	if json.Unmarshal(js, &m) != nil {
		return false
	}
	_, ok := m.Spec["replicas"]
	return ok
}

// planReplicas decides the replica count of an autoscaled workload and records it in a.
// stored is the stored workload's spec.replicas (nil when there is none: the baseline is
// files); written says the new manifest sets spec.replicas (nil: a what-if of the stored
// workload), whatIf is --replicas. It returns the count to plan at.
//
// kubectl apply of a manifest that leaves spec.replicas out leaves the stored value, the one
// the autoscaler last wrote, in place; from files alone the autoscaler's minReplicas is the
// only count known (the autoscaler controller scales a target below minReplicas up to it).
// Example: an autoscaler 3 to 10 holding 5 pods, a manifest without replicas: live, 5
// (current); from --from files, 3 (minReplicas).
func (a *Autoscaler) planReplicas(stored *int32, written *int32, whatIf *int32) int32 {
	switch {
	case whatIf != nil:
		a.Replicas, a.Basis = *whatIf, BasisWhatIf
	case written != nil:
		a.Replicas, a.Basis = *written, BasisManifest
	case stored != nil:
		a.Replicas, a.Basis = *stored, BasisCurrent
	default:
		a.Replicas, a.Basis = a.MinReplicas, BasisMinReplicas
	}
	return a.Replicas
}

// autoscalerOfStored is the autoscaler of the state st that targets the stored kind
// namespace/name, with the count a what-if of it (no new manifest) plans at: the stored
// spec.replicas, or --replicas. Nil when none targets it.
func autoscalerOfStored(st *kernel.State, kind, namespace, name string, stored, whatIf *int32) *Autoscaler {
	a, _ := autoscalerFor(autoscalersOfState(st), nil, kind, namespace, name)
	if a != nil {
		a.ScaleSource = st.Source
		a.planReplicas(stored, nil, whatIf)
	}
	return a
}

// attachAutoscaler records a on p and in its plan's header; without one, when st could not
// list the autoscalers, the plan says that it could not tell.
func attachAutoscaler(p *Prediction, a *Autoscaler, st *kernel.State) {
	if p.Plan == nil {
		return
	}
	if a == nil {
		if st != nil && st.AutoscalersUnread != "" {
			p.Plan.Notes = append(p.Plan.Notes, st.AutoscalersUnread)
			sort.Strings(p.Plan.Notes)
		}
		return
	}
	p.Autoscaler = a
}

// targetedAutoscalers are the autoscalers of set whose target is a Deployment or StatefulSet
// of set: predict reads them, and does not list them as skipped.
func targetedAutoscalers(set *manifest.Set, hpas []sourcedAutoscaler, defaultNS string) map[*manifest.Object]bool {
	out := map[*manifest.Object]bool{}
	for _, obj := range set.Objects {
		if obj.APIVersion != "apps/v1" || (obj.Kind != "Deployment" && obj.Kind != "StatefulSet") {
			continue
		}
		ns := obj.Namespace
		if ns == "" {
			ns = defaultNS
		}
		for _, h := range targeting(hpas, obj.Kind, ns, obj.Name) {
			out[h.obj] = true
		}
	}
	return out
}
