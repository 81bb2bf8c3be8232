// What the inventory (inventory.go) computes of a pod template, for
// the cross-resource rules to read from an Entry: whether it spreads its
// pods, its stray spread terms, its claims and how it is pinned to nodes.

package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// spreads reports whether a pod template spreads its own pods by node or
// zone: a topology spread constraint or a pod anti-affinity term (required
// or preferred) on kubernetes.io/hostname or a zone whose selector selects
// the template's own labels (own). A term that selects other pods only
// keeps this workload away from them, not its replicas from each other.
func spreads(spec *corev1.PodSpec, own map[string]string) bool {
	for _, c := range spec.TopologySpreadConstraints {
		if spreadTopologyKeys[c.TopologyKey] && selectsOwn(c.LabelSelector, c.MatchLabelKeys, own) {
			return true
		}
	}
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
		return false
	}
	terms := append([]corev1.PodAffinityTerm{}, spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
	for _, w := range spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		terms = append(terms, w.PodAffinityTerm)
	}
	for _, t := range terms {
		if spreadTopologyKeys[t.TopologyKey] && selectsOwn(t.LabelSelector, t.MatchLabelKeys, own) {
			return true
		}
	}
	return false
}

// StrayTerm is a required pod anti-affinity term or a topology spread
// constraint of a pod template whose selector selects none of the
// template's own pods.
type StrayTerm struct {
	// Path is the term's field path, relative to the object.
	Path string
	// AntiAffinity is set for a required pod anti-affinity term, unset for
	// a topology spread constraint.
	AntiAffinity bool
	// Selector is the term's labelSelector; OtherNamespaces is set when
	// the term names namespaces or a namespaceSelector.
	Selector        *metav1.LabelSelector
	OtherNamespaces bool
}

// strayTerms lists the required anti-affinity terms and the spread
// constraints of spec (a pod template's, at spec.template.spec) whose
// selector selects none of own.
func strayTerms(spec *corev1.PodSpec, own map[string]string) []StrayTerm {
	var out []StrayTerm
	for i, c := range spec.TopologySpreadConstraints {
		if !selectsOwn(c.LabelSelector, c.MatchLabelKeys, own) {
			out = append(out, StrayTerm{Path: fmt.Sprintf("spec.template.spec.topologySpreadConstraints[%d].labelSelector", i), Selector: c.LabelSelector})
		}
	}
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
		return out
	}
	for i, t := range spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if !selectsOwn(t.LabelSelector, t.MatchLabelKeys, own) {
			out = append(out, StrayTerm{Path: fmt.Sprintf("spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[%d].labelSelector", i),
				AntiAffinity: true, Selector: t.LabelSelector, OtherNamespaces: len(t.Namespaces) > 0 || t.NamespaceSelector != nil})
		}
	}
	return out
}

// ClaimVolume is a pod template volume backed by a PersistentVolumeClaim.
type ClaimVolume struct {
	// Volume is the volume's name, Claim the claim's.
	Volume, Claim string
}

// claimVolumes lists the PersistentVolumeClaims spec mounts as volumes.
func claimVolumes(spec *corev1.PodSpec) []ClaimVolume {
	var out []ClaimVolume
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName != "" {
			out = append(out, ClaimVolume{Volume: v.Name, Claim: v.PersistentVolumeClaim.ClaimName})
		}
	}
	return out
}

// pinnedToNode reports whether spec's pods can run on one node only:
// spec.nodeName, a kubernetes.io/hostname nodeSelector, or required node
// affinity whose every term names one and the same host (by the hostname
// label or by metadata.name).
func pinnedToNode(spec *corev1.PodSpec) bool {
	if spec.NodeName != "" || spec.NodeSelector[hostnameLabel] != "" {
		return true
	}
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil || spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	terms := spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	host := ""
	for _, t := range terms {
		one := ""
		for _, r := range append(append([]corev1.NodeSelectorRequirement{}, t.MatchExpressions...), t.MatchFields...) {
			if (r.Key == hostnameLabel || r.Key == "metadata.name") && r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
				one = r.Values[0]
			}
		}
		if one == "" || host != "" && one != host {
			return false
		}
		host = one
	}
	return host != ""
}

// prefersOtherNode reports whether spec's preferred pod anti-affinity
// spreads its own pods (own) across hostnames: the scheduler then sends a
// surge pod away from the old pod's node.
func prefersOtherNode(spec *corev1.PodSpec, own map[string]string) bool {
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
		return false
	}
	for _, w := range spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		if w.PodAffinityTerm.TopologyKey == hostnameLabel && selectsOwn(w.PodAffinityTerm.LabelSelector, w.PodAffinityTerm.MatchLabelKeys, own) {
			return true
		}
	}
	return false
}

// hostnameLabel is the node label that names one node.
const hostnameLabel = "kubernetes.io/hostname"

var spreadTopologyKeys = map[string]bool{"kubernetes.io/hostname": true, "topology.kubernetes.io/zone": true,
	"failure-domain.beta.kubernetes.io/zone": true}
