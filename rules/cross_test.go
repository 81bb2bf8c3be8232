package rules

import (
	"bytes"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestCrossJSON checks the cross-resource input: the fields of crossFields,
// and nothing else, written as JSON that reads back to the same values,
// whatever the strings hold.
func TestCrossJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{
			name: "deployment",
			in: `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "annotations": {"a": "b"}, "labels": {"app": "web"}},
				"spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "strategy": {"type": "Recreate"},
				"template": {"metadata": {"labels": {"app": "web"}, "annotations": {"x": "y"}}, "spec": {"containers": [{"name": "a"}]}}}}`,
			want: `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web"}},
				"spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "strategy": {"type": "Recreate"}, "template": {"metadata": {"labels": {"app": "web"}}}}}`,
		},
		{
			name: "strings and numbers",
			in: `{"kind": "Service", "metadata": {"name": "a\"b\\c<d>&e\u0001\u00e9\u2028😀", "labels": {"k": "v\n"}},
				"spec": {"type": "ClusterIP", "clusterIPs": ["None", "1.2.3.4"], "ports": [{"port": 80}], "sessionAffinity": "None", "selector": {"app": "x"}, "minAvailable": 1.50e1}}`,
			want: `{"kind": "Service", "metadata": {"name": "a\"b\\c<d>&e\u0001\u00e9\u2028😀", "labels": {"k": "v\n"}},
				"spec": {"type": "ClusterIP", "clusterIPs": ["None", "1.2.3.4"], "ports": [{"port": 80}], "selector": {"app": "x"}, "minAvailable": 1.50e1}}`,
		},
		{
			name: "odd shapes are kept as they are",
			in:   `{"kind": "Pod", "metadata": "not an object", "spec": {"template": [1, {"spec": 2}], "replicas": null, "selector": true}}`,
			want: `{"kind": "Pod", "metadata": "not an object", "spec": {"template": [1, {"spec": 2}], "replicas": null, "selector": true}}`,
		},
		{name: "not an object", in: `[{"kind": "x", "other": 1}]`, want: `[{"kind": "x", "other": 1}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := valueFromJSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			buf := crossJSON(v, crossFields)
			js := bytes.Clone(*buf)
			jsonBuf.Put(buf)
			got, err := ast.ValueFromReader(bytes.NewReader(js))
			if err != nil {
				t.Fatalf("crossJSON wrote %s, which does not read: %v", js, err)
			}
			want, err := ast.ValueFromReader(bytes.NewReader([]byte(tt.want)))
			if err != nil {
				t.Fatal(err)
			}
			if got.Compare(want) != 0 {
				t.Errorf("crossJSON(%s) = %s, want %v", tt.in, js, want)
			}
		})
	}
}
