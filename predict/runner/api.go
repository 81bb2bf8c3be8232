package runner

import (
	"context"
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// checkAPI runs the API tier on obj the way kubectl apply reaches the server: with stored (the
// object the server holds, as JSON) an update of it by kubectl apply's three-way merge, which
// is where an immutable field is refused; without, a create. What it rejects goes into p at
// the field's position in obj's file. It returns the defaulted object, and false when there is
// none to predict from.
func checkAPI(ctx context.Context, checker *apicheck.Checker, obj *manifest.Object, p *Prediction, ns string, stored []byte) (runtime.Object, bool) {
	newObj := apicheck.Object{APIVersion: obj.APIVersion, Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name, JSON: obj.JSON}
	opts := apicheck.Options{Namespace: ns}
	var check apicheck.Result
	if stored != nil {
		applied := newObj
		if a, err := apicheck.Applied(stored, newObj); err == nil {
			applied = a
		}
		check = checker.CheckUpdate(ctx, apicheck.Object{APIVersion: obj.APIVersion, Kind: obj.Kind, Namespace: p.Namespace, Name: obj.Name, JSON: stored},
			applied, opts)
	} else {
		check = checker.Check(ctx, newObj, opts)
	}
	for _, is := range check.Issues {
		if is.Warning {
			continue
		}
		pos, _ := obj.Position(is.Field)
		p.Rejected = append(p.Rejected, Rejection{Rule: is.Rule, Field: is.Field, Message: is.Message, Pos: pos})
	}
	if len(p.Rejected) > 0 || check.Versioned == nil {
		return nil, false
	}
	return check.Versioned.DeepCopyObject(), true
}

// storedJSON is the stored object cur as the update path takes it. A trimmed dump may lack the
// resourceVersion the server always has and an update must carry: it gets a placeholder.
func storedJSON(cur runtime.Object) ([]byte, error) {
	accessor, err := meta.Accessor(cur)
	if err != nil {
		return nil, err
	}
	if accessor.GetResourceVersion() == "" {
		cur = cur.DeepCopyObject()
		accessor, err = meta.Accessor(cur)
		if err != nil {
			return nil, err
		}
		accessor.SetResourceVersion("1")
	}
	return json.Marshal(cur)
}
