package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// multiDocTemplate is microservices-demo's shape: a ServiceAccount whose
// "---" is inside {{ if }}, then a Deployment and a Service.
const multiDocTemplate = `{{- if .Values.serviceAccounts.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: adservice
---
{{- end }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: adservice
spec:
  selector:
    matchLabels:
      app: adservice
  template:
    metadata:
      labels:
        app: adservice
    spec:
      containers:
      - name: server
        image: adservice:v1
---
apiVersion: v1
kind: Service
metadata:
  name: adservice
spec:
  selector:
    app: adservice
  ports:
  - port: 9555
`

// TestHelmPlacesMultiDocument: each rendered document's fields are found in
// its own document of the template, whether the conditional document is
// rendered or not.
func TestHelmPlacesMultiDocument(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	for name, text := range map[string]string{
		"Chart.yaml":               "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
		"values.yaml":              "serviceAccounts:\n  create: false\n",
		"templates/adservice.yaml": multiDocTemplate,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tpl := filepath.Join(dir, "templates", "adservice.yaml")
	places := []place{
		{"Deployment", "adservice", "", tpl + ":8"},
		{"Deployment", "adservice", "spec.template.spec.containers[0].image", tpl + ":23"},
		{"Service", "adservice", "spec.ports[0].port", tpl + ":33"},
	}
	t.Run("the conditional document left out", func(t *testing.T) {
		checkPlaces(t, newRenderer(t, Options{}), dir, manifest.Chart, places)
	})
	t.Run("the conditional document rendered", func(t *testing.T) {
		checkPlaces(t, newRenderer(t, Options{Set: []string{"serviceAccounts.create=true"}}), dir, manifest.Chart,
			append(places, place{"ServiceAccount", "adservice", "metadata.name", tpl + ":5"}))
	})
}
