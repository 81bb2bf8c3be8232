package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintChartCRDs: a chart's crds/ are installed with it, so its custom
// resources are checked against them, as with --crds: no api/crd-missing,
// and a value the CRD's schema refuses is an error at its template line.
func TestLintChartCRDs(t *testing.T) {
	chart := "../internal/render/testdata/charts/chart-crds"
	out, errOut, code := run(t, "", "lint", chart)
	if code != 0 || strings.Contains(out, "api/crd-missing") {
		t.Errorf("lint %s = exit %d, want 0 and no api/crd-missing:\n%s%s", chart, code, out, errOut)
	}
	out, errOut, code = run(t, "", "lint", chart, "--set", "schedule=5")
	if want := chart + "/templates/schedule.yaml:6:3: error api/type-invalid: spec.schedule"; code != 1 || !strings.Contains(out, want) {
		t.Errorf("lint %s --set schedule=5 = exit %d, want 1 and %q:\n%s%s", chart, code, want, out, errOut)
	}
}

// TestHelmValueFlags: helm's value flags as helm spells them: --values
// (and the old --helm-values, in command-line order), --set-json,
// --set-file; a values file given as an input beside a chart is a usage
// error pointing at --values.
func TestHelmValueFlags(t *testing.T) {
	chart := "../internal/render/testdata/charts/bitnami-schema"
	dir := t.TempDir()
	values := filepath.Join(dir, "values-ha.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	tag := filepath.Join(dir, "tag")
	for name, text := range map[string]string{values: "replicaCount: 3\n", bad: "replicaCount: many\n", tag: "3"} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{chart, "-f", values}, {chart, values}} {
		_, errOut, code := run(t, "", append([]string{"lint"}, args...)...)
		if want := values + " is a Helm values file (no apiVersion, no kind), given as an input beside the chart " + chart + ": give it with --values " + values; code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("lint %v = exit %d, %q; want 2 and %q", args, code, errOut, want)
		}
	}
	tests := []struct {
		args []string
		want string // in the output
		code int
	}{
		{[]string{"--values", values}, "runs 3 replicas", 0},
		{[]string{"--values", values, "--helm-values", bad}, "got string, want integer", 1},
		{[]string{"--helm-values", bad, "--values", values}, "runs 3 replicas", 0},
		{[]string{"--set-json", "replicaCount=4"}, "runs 4 replicas", 0},
		{[]string{"--set-json", `{"replicaCount":"four"}`}, "got string, want integer", 1},
		// The file's content is a string, as helm gives it: the schema refuses it.
		{[]string{"--set-file", "replicaCount=" + tag}, "at '/replicaCount': got string, want integer", 1},
	}
	for _, tt := range tests {
		// --profile all: the replica count shows in availability/no-pdb, an opt-in rule.
		out, errOut, code := run(t, "", append([]string{"lint", chart, "--verbose", "--profile", "all"}, tt.args...)...)
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("lint %s %v = exit %d, want %d and %q:\n%s%s", chart, tt.args, code, tt.code, tt.want, out, errOut)
		}
	}
}

// TestPredictFromValues: predict -f chart --from chart gives the old side
// its own values with --from-set; with --set alone, it says the values
// apply to both sides.
func TestPredictFromValues(t *testing.T) {
	chart := "../internal/render/testdata/charts/bitnami-schema"
	out, errOut, _ := run(t, "", "predict", "-f", chart, "--from", chart, "--set", "replicaCount=5", "--from-set", "replicaCount=2")
	if !strings.Contains(out, "Create Pod release-name-bitnami-schema-2 ") || strings.Contains(errOut, "apply to the charts of -f and of --from alike") {
		t.Errorf("predict --from-set replicaCount=2: want a scale from 2 to 5, no note:\n%s%s", out, errOut)
	}
	out, errOut, _ = run(t, "", "predict", "-f", chart, "--from", chart, "--set", "replicaCount=5")
	if strings.Contains(out, "Create Pod") || !strings.Contains(errOut, "note: --values and the --set flags apply to the charts of -f and of --from alike") {
		t.Errorf("predict --set with --from: want no change and the note:\n%s%s", out, errOut)
	}
	if _, errOut, code := run(t, "", "predict", "-f", chart, "--from-set", "replicaCount=2"); code != 2 || !strings.Contains(errOut, "there is no --from") {
		t.Errorf("predict --from-set without --from = exit %d, %q; want 2", code, errOut)
	}
}
