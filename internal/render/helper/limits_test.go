package helper_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// writeChart writes a chart named name with one template.
func writeChart(t *testing.T, name, values, template string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	files := map[string]string{
		"Chart.yaml":        "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n",
		"values.yaml":       values,
		"templates/cm.yaml": template,
	}
	for f, text := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestHelperLimits: a chart that would take the helper's memory or time
// without bound gets an input/limit-exceeded problem naming why, without a
// goroutine dump, in bounded time; the next chart renders in a new helper.
func TestHelperLimits(t *testing.T) {
	buildHelper(t)
	good := writeChart(t, "good", "", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good\n")
	tests := []struct {
		name, values, template string
		limits                 helper.Limits
		want                   string // in the problem's message
	}{
		{name: "range until 2000000000", template: "{{ range until 2000000000 }}x{{ end }}\n",
			limits: helper.Limits{Memory: 256 << 20, Timeout: 2 * time.Minute}, want: "memory"},
		{name: "tpl calls itself", values: "t: '{{ tpl .Values.t . }}'\n", template: "{{ tpl .Values.t . }}\n",
			limits: helper.Limits{Memory: 256 << 20, Timeout: 2 * time.Minute}, want: "stopped: "},
		{name: "10^10 iterations", template: "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n",
			limits: helper.Limits{Memory: 256 << 20, Timeout: 3 * time.Second}, want: "took longer than 3s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeChart(t, "bad", tt.values, tt.template)
			r, err := helper.New(helper.Options{Limits: tt.limits})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			start := time.Now()
			set := r.Render(dir, manifest.Chart)
			took := time.Since(start)
			if len(set.Problems) != 1 || set.Problems[0].Kind != manifest.LimitExceeded || !strings.Contains(set.Problems[0].Message, tt.want) {
				t.Fatalf("problems = %+v, want one limit-exceeded holding %q", set.Problems, tt.want)
			}
			if msg := set.Problems[0].Message; strings.Contains(msg, "goroutine") || strings.Contains(msg, "\n") {
				t.Errorf("the message holds a goroutine dump or several lines: %q", msg)
			}
			if took > tt.limits.Timeout+30*time.Second {
				t.Errorf("the render took %s, want at most the timeout %s (and some slack)", took, tt.limits.Timeout)
			}
			t.Logf("%s: %s after %s", tt.name, set.Problems[0].Message, took.Round(time.Millisecond))
			if set := r.Render(good, manifest.Chart); len(set.Problems) != 0 || len(set.Objects) != 1 {
				t.Errorf("the next chart: problems %+v, %d objects; want none and 1", set.Problems, len(set.Objects))
			}
		})
	}
}
