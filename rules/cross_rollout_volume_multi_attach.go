package rules

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// rolloutVolumeMultiAttachRule is rollout/volume-multi-attach.
var rolloutVolumeMultiAttachRule = BuiltinRule{
	Meta: Rule{
		ID:       "rollout/volume-multi-attach",
		Title:    "Rolling update surges a pod that needs a ReadWriteOnce volume the old pod holds",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment"},
		File:     "cross_rollout_volume_multi_attach.go",
		Description: `A Deployment's rolling update with maxSurge above 0 starts the new pod
before the old one stops. When the pods mount a PersistentVolumeClaim (a
volume, not a StatefulSet's claim template) whose access modes are
ReadWriteOnce only, the volume can be attached to one node at a time: a
new pod the scheduler puts on another node waits in ContainerCreating
("Multi-Attach error for volume ... Volume is already used by pod(s)"),
the old pod is not removed until the new one is available, and the
rollout stalls until progressDeadlineSeconds marks it failed. Nothing keeps
the new pod on the old one's node unless the pod template pins it there
(nodeName, a kubernetes.io/hostname nodeSelector or required node
affinity naming one host); a preferred pod anti-affinity on the hostname
that selects the workload's own pods sends it to another node on purpose.
With ReadWriteOncePod the new pod cannot start even on the same node.
Reported when the input holds the claim; a claim defined elsewhere is not
judged.`,
		Remediation: "Use strategy.type Recreate, or RollingUpdate with maxSurge 0 and maxUnavailable 1, for a Deployment that mounts a ReadWriteOnce claim (or use a StatefulSet with volumeClaimTemplates).",
	},
	Cross: rolloutVolumeMultiAttach,
}

// multiAttachReason says why a claim with the access modes blocks a surge
// pod, or "" when it does not: ReadWriteOncePod always, ReadWriteOnce only
// (no ReadWriteMany or ReadOnlyMany) unless the pods are pinned to one node.
func multiAttachReason(modes []corev1.PersistentVolumeAccessMode, pinned, prefersOther bool) string {
	switch {
	case slices.Contains(modes, corev1.ReadWriteOncePod):
		return "ReadWriteOncePod: the new pod cannot mount it while the old pod does, even on the same node"
	case slices.Contains(modes, corev1.ReadWriteOnce) && !slices.Contains(modes, corev1.ReadWriteMany) && !slices.Contains(modes, corev1.ReadOnlyMany) && !pinned:
		why := "ReadWriteOnce: the volume attaches to one node at a time, and nothing keeps the new pod on the old pod's node"
		if prefersOther {
			why += " (its preferred pod anti-affinity sends it to another node)"
		}
		return why
	}
	return ""
}

// MultiAttachRisk is a claim a Deployment's surge pod cannot mount while
// the old pod holds it (rollout/volume-multi-attach).
type MultiAttachRisk struct {
	Volume, Claim, Why string
}

// MultiAttachRisks lists the claims of a Deployment's pod template that
// stall its rolling update, given the access modes of the claims known
// (modes returns false for a claim defined elsewhere, which is not
// judged): none when the Deployment does not surge. predict shows them as
// a likely stall.
func MultiAttachRisks(d *appsv1.Deployment, modes func(claim string) ([]corev1.PersistentVolumeAccessMode, bool)) []MultiAttachRisk {
	facts := DeploymentFactsOf(d)
	if facts == nil || !facts.Rolling || facts.MaxSurge == 0 || facts.Replicas == 0 {
		return nil
	}
	spec, own := &d.Spec.Template.Spec, d.Spec.Template.Labels
	var out []MultiAttachRisk
	for _, v := range claimVolumes(spec) {
		m, ok := modes(v.Claim)
		if !ok {
			continue
		}
		if why := multiAttachReason(m, pinnedToNode(spec), prefersOtherNode(spec, own)); why != "" {
			out = append(out, MultiAttachRisk{Volume: v.Volume, Claim: v.Claim, Why: why})
		}
	}
	return out
}

// rolloutVolumeMultiAttach reports a RollingUpdate Deployment with
// replicas and a surge above 0 whose pods mount a claim of the input that
// is ReadWriteOnce only (and are not pinned to one node), or
// ReadWriteOncePod.
func rolloutVolumeMultiAttach(c *CrossContext) []Finding {
	facts := DeploymentFactsOf(c.Self.Object)
	if facts == nil || !facts.Rolling || facts.MaxSurge == 0 || facts.Replicas == 0 || len(c.Self.Claims) == 0 {
		return nil
	}
	var out []Finding
	for _, v := range c.Self.Claims {
		e := c.NS.Get(Key("PersistentVolumeClaim", v.Claim))
		if e == nil {
			continue
		}
		pvc, ok := e.Object.(*corev1.PersistentVolumeClaim)
		if !ok {
			continue
		}
		why := multiAttachReason(pvc.Spec.AccessModes, c.Self.PinnedToNode, c.Self.PrefersOtherNode)
		if why == "" {
			continue
		}
		out = append(out, Finding{Path: "spec.strategy",
			Message: fmt.Sprintf("Deployment %s rolls out with maxSurge %d, starting each new pod before an old one stops, and its volume %s mounts PersistentVolumeClaim %s, which is %s: the new pod waits in ContainerCreating (Multi-Attach error), the old one is not removed, and the rollout stalls",
				c.Self.Name, facts.MaxSurge, v.Volume, v.Claim, why)})
	}
	return out
}
