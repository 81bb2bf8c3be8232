package plugin

import (
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
