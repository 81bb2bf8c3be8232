package garbagecollector

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// claimsOf returns, for each StatefulSet in objs, the PersistentVolumeClaims of its
// ordinals as the StatefulSet controller leaves them: named as getPersistentVolumeClaimName
// (pkg/controller/statefulset/stateful_set_utils.go) does, TEMPLATE-SET-ORDINAL, and,
// under persistentVolumeClaimRetentionPolicy.whenDeleted Delete, owned by the set (as
// updateClaimOwnerRefForSetAndPod sets it, without blockOwnerDeletion). Claims already in
// objs are taken as they are, with the set's reference added when the policy asks for it
// and they lack it; missing ones are added (assumed, by claim). retained
// lists the claims that whenDeleted Retain keeps, by set.
func claimsOf(objs []*unstructured.Unstructured) (out []*unstructured.Unstructured, retained map[string][]string, assumed map[string]string, err error) {
	byID := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		// Copies: the claims' references change, the caller's objects do not.
		c := o.DeepCopy()
		byID[ID(c)] = c
		out = append(out, c)
	}
	retained, assumed = map[string][]string{}, map[string]string{}
	for _, o := range out[:len(objs)] {
		if o.GetKind() != "StatefulSet" {
			continue
		}
		var set appsv1.StatefulSet
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &set); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", ID(o), err)
		}
		replicas, start := int32(1), int32(0)
		if set.Spec.Replicas != nil {
			replicas = *set.Spec.Replicas
		}
		if set.Spec.Ordinals != nil {
			start = set.Spec.Ordinals.Start
		}
		deleteClaims := set.Spec.PersistentVolumeClaimRetentionPolicy != nil &&
			set.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted == appsv1.DeletePersistentVolumeClaimRetentionPolicyType
		setID := ID(o)
		for _, t := range set.Spec.VolumeClaimTemplates {
			for i := start; i < start+replicas; i++ {
				name := fmt.Sprintf("%s-%s-%d", t.Name, set.Name, i)
				id := "PersistentVolumeClaim/" + set.Namespace + "/" + name
				claim := byID[id]
				if claim == nil {
					claim = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
						"metadata": map[string]any{"name": name, "namespace": set.Namespace}}}
					out = append(out, claim)
					byID[id] = claim
					assumed[id] = fmt.Sprintf("%s exists, as %s's controller creates it", id, setID)
				}
				if !deleteClaims {
					retained[setID] = append(retained[setID], id)
					continue
				}
				owned := false
				for _, ref := range claim.GetOwnerReferences() {
					owned = owned || (ref.Kind == "StatefulSet" && ref.Name == set.Name)
				}
				if !owned {
					claim.SetOwnerReferences(append(claim.GetOwnerReferences(), metav1.OwnerReference{
						APIVersion: "apps/v1", Kind: "StatefulSet", Name: set.Name, UID: set.UID}))
				}
			}
		}
	}
	return out, retained, assumed, nil
}
