package render

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// capsChart is a chart that picks versions and kinds the way real charts do
// (prometheus-adapter's APIService, traefik's PodDisruptionBudget,
// kube-prometheus-stack's ServiceMonitor), and has a test hook.
var capsChart = map[string]string{
	"Chart.yaml": "apiVersion: v2\nname: caps\nversion: 0.1.0\n",
	"templates/apiservice.yaml": `{{- if .Capabilities.APIVersions.Has "apiregistration.k8s.io/v1" }}
apiVersion: apiregistration.k8s.io/v1
{{- else }}
apiVersion: apiregistration.k8s.io/v1beta1
{{- end }}
kind: APIService
metadata:
  name: v1beta1.custom.metrics.k8s.io
`,
	"templates/pdb.yaml": `{{- if .Capabilities.APIVersions.Has "policy/v1/PodDisruptionBudget" }}
apiVersion: policy/v1
{{- else }}
apiVersion: policy/v1beta1
{{- end }}
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}
`,
	"templates/servicemonitor.yaml": `{{- if .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" }}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: web
spec:
  selector: {matchLabels: {app: web}}
{{- end }}
`,
	"templates/tests/test-connection.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: web-test-connection
  annotations:
    "helm.sh/hook": test
spec:
  restartPolicy: Never
  containers:
  - name: wget
    image: busybox
    command: ['wget', 'web:80']
`,
}

func TestHelmCapabilities(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "caps")
	for name, text := range capsChart {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		opts Options
		want []string // apiVersion kind name, sorted
	}{
		{
			name: "the versions a v1.37 cluster serves; no test hook",
			want: []string{"apiregistration.k8s.io/v1 APIService v1beta1.custom.metrics.k8s.io", "policy/v1 PodDisruptionBudget web"},
		},
		{
			name: "--api-versions adds a CRD's version",
			opts: Options{APIVersions: []string{"monitoring.coreos.com/v1"}},
			want: []string{"apiregistration.k8s.io/v1 APIService v1beta1.custom.metrics.k8s.io",
				"monitoring.coreos.com/v1 ServiceMonitor web", "policy/v1 PodDisruptionBudget web"},
		},
		{
			name: "a cluster's discovery replaces the default set",
			opts: Options{ClusterAPIVersions: []string{"v1", "apps/v1", "policy/v1beta1", "apiregistration.k8s.io/v1beta1"}},
			want: []string{"apiregistration.k8s.io/v1beta1 APIService v1beta1.custom.metrics.k8s.io", "policy/v1beta1 PodDisruptionBudget web"},
		},
		{
			name: "--helm-tests renders the test hook",
			opts: Options{HelmTests: true},
			want: []string{"apiregistration.k8s.io/v1 APIService v1beta1.custom.metrics.k8s.io", "policy/v1 PodDisruptionBudget web",
				"v1 Pod web-test-connection"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := newRenderer(t, tt.opts).Render(dir, manifest.Chart)
			if len(set.Problems) > 0 {
				t.Fatalf("Render: problems %+v", set.Problems)
			}
			var got []string
			for _, o := range set.Objects {
				got = append(got, o.APIVersion+" "+o.Kind+" "+o.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Render(%+v) = %q, want %q", tt.opts, got, tt.want)
			}
		})
	}
}

func TestServedAPIVersionsFile(t *testing.T) {
	vs := apiVersions(Options{})
	for _, v := range []string{"apps/v1/Deployment", "policy/v1/PodDisruptionBudget", "apiregistration.k8s.io/v1", "autoscaling/v2"} {
		if !vs.Has(v) {
			t.Errorf("apiVersions(default) lacks %s", v)
		}
	}
	for _, v := range []string{"policy/v1beta1", "extensions/v1beta1", "batch/v1beta1"} {
		if vs.Has(v) {
			t.Errorf("apiVersions(default) has %s, which v1.37 does not serve", v)
		}
	}
	if got := strings.Count(servedAPIVersions, "\n"); got < 50 {
		t.Errorf("served-api-versions.txt holds %d lines", got)
	}
}
