// Package statefulset predicts a StatefulSet rollout or scale with the StatefulSet controller's
// own rules (k8s.io/kubernetes v1.37.1, pkg/controller/statefulset), in a discrete-event world on
// an injected clock. It never imports cobra and never prints: Simulate takes plain inputs and
// returns a *predict.Plan.
package statefulset

import (
	"encoding/json"
	"fmt"

	apps "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubernetes/pkg/controller/history"
)

// controllerKind is the owner kind the controller puts on its ControllerRevisions.
var controllerKind = apps.SchemeGroupVersion.WithKind("StatefulSet")

// patchCodec encodes a StatefulSet as the controller does before it cuts the template out.
var patchCodec = scheme.Codecs.LegacyCodec(apps.SchemeGroupVersion)

// RevisionName is the name the StatefulSet controller gives the ControllerRevision of set's
// template: "<set>-<hash>", the value it writes to status.updateRevision and to each pod's
// controller-revision-hash label. set must be defaulted as the API server stores it.
//
// The controller always hashes with a collision count, 0 when status.collisionCount is unset
// (getStatefulSetRevisions passes a pointer to a local copy), so the hash covers the patch
// followed by the count's decimal digits.
func RevisionName(set *apps.StatefulSet) (string, error) {
	patch, err := revisionPatch(set)
	if err != nil {
		return "", err
	}
	collisionCount := int32(0)
	if set.Status.CollisionCount != nil {
		collisionCount = *set.Status.CollisionCount
	}
	cr, err := history.NewControllerRevision(set, controllerKind, set.Spec.Template.Labels,
		runtime.RawExtension{Raw: patch}, 1, &collisionCount)
	if err != nil {
		return "", fmt.Errorf("statefulset %s: revision: %w", set.Name, err)
	}
	return cr.Name, nil
}

// revisionPatch mirrors getPatch in pkg/controller/statefulset/stateful_set_utils.go: the set
// encoded as apps/v1 JSON, reduced to {"spec":{"template":{…,"$patch":"replace"}}} and
// re-marshalled (encoding/json sorts map keys, so the bytes are canonical).
func revisionPatch(set *apps.StatefulSet) ([]byte, error) {
	data, err := runtime.Encode(patchCodec, set)
	if err != nil {
		return nil, fmt.Errorf("statefulset %s: encode: %w", set.Name, err)
	}
	var raw map[string]interface{}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("statefulset %s: decode: %w", set.Name, err)
	}
	spec, ok := raw["spec"].(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("statefulset %s: no spec", set.Name)
	}
	template, ok := spec["template"].(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("statefulset %s: no spec.template", set.Name)
	}
	template["$patch"] = "replace"
	return json.Marshal(map[string]interface{}{"spec": map[string]interface{}{"template": template}})
}
