package live

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

// viewClient is a Client whose server answers list requests as one would
// to a user holding Kubernetes' built-in view role: podtemplates (and
// whatever forbid names) are forbidden.
func viewClient(t *testing.T, forbid ...string) *Client {
	t.Helper()
	listKinds := map[schema.GroupVersionResource]string{}
	for _, k := range AllKinds() {
		listKinds[k.GVR] = k.GVK.Kind + "List"
	}
	dep := &unstructured.Unstructured{}
	dep.SetAPIVersion("apps/v1")
	dep.SetKind("Deployment")
	dep.SetNamespace("shop")
	dep.SetName("web")
	fc := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, dep)
	for _, res := range append([]string{"podtemplates"}, forbid...) {
		fc.PrependReactor("list", res, func(a clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: res}, "",
				errUser(res))
		})
	}
	return &Client{dynamic: fc, Context: "view"}
}

type errUser string

func (e errUser) Error() string {
	return `User "jane" cannot list resource "` + string(e) + `" in API group "" in the namespace "shop"`
}

// TestListContextGoesOnWithoutForbiddenContextKinds: under the view role,
// podtemplates cannot be listed. Lint reads them only as context, so the
// run goes on without them, with one message naming the kind and the
// permission; a workload kind that is forbidden still stops the run.
func TestListContextGoesOnWithoutForbiddenContextKinds(t *testing.T) {
	c := viewClient(t)
	objs, skips, err := c.ListContext(context.Background(), []string{"shop", "other"}, AllKinds())
	if err != nil {
		t.Fatalf("ListContext(view role) error = %v, want none", err)
	}
	if len(objs) != 1 || objs[0].GetName() != "web" {
		t.Errorf("ListContext(view role) = %d objects, want the Deployment web", len(objs))
	}
	if len(skips) != 1 {
		t.Fatalf("ListContext(view role) skips = %+v, want one, for PodTemplates (once, not per namespace)", skips)
	}
	for _, want := range []string{`context "view"`, "PodTemplates skipped", "list podtemplates", `namespace "shop"`} {
		if !strings.Contains(skips[0].Message, want) {
			t.Errorf("skip message = %q, want it to contain %q", skips[0].Message, want)
		}
	}

	c = viewClient(t, "deployments")
	if _, _, err := c.ListContext(context.Background(), []string{"shop"}, AllKinds()); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("ListContext(deployments forbidden) error = %v, want the forbidden list", err)
	}
}
