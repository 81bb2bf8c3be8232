package plugin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

// TestLintChartBrokenValue: replicas given as a string through --set is the
// API server's decode error at the template line that writes replicas, and
// JSON gives the rendered place too.
func TestLintChartBrokenValue(t *testing.T) {
	out, errOut, code := run(t, "", "lint", "../internal/render/testdata/web", "--set", `replicas="3"`, "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, errOut)
	}
	var rep struct {
		Findings []struct {
			Rule, Message, File string
			Line, Column        int
			Field               string
			Rendered            *struct {
				File           string
				Document, Line int
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("parse JSON: %v\n%s", err, out)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Rule != "api/decode" {
			continue
		}
		found = true
		if f.File != "../internal/render/testdata/web/templates/deployment.yaml" || f.Line != 8 || f.Column != 3 ||
			!strings.Contains(f.Message, "cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32") {
			t.Errorf("api/decode at %s:%d:%d %q, want ../internal/render/testdata/web/templates/deployment.yaml:8:3 with the decoder's message", f.File, f.Line, f.Column, f.Message)
		}
		if f.Rendered == nil || f.Rendered.File != "../internal/render/testdata/web@helm-template" || f.Rendered.Line == 0 {
			t.Errorf("api/decode rendered place %+v, want one in ../internal/render/testdata/web@helm-template", f.Rendered)
		}
	}
	if !found {
		t.Errorf("no api/decode finding in %s", out)
	}
}

// TestLintOverlaySARIF: a finding set by a patch stands at the patch's line
// in SARIF, with the rendered place as a related location.
func TestLintOverlaySARIF(t *testing.T) {
	out, errOut, code := run(t, "", "lint", "../internal/render/testdata/kustomize/overlays/prod", "-o", "sarif", "--fail-on", "error")
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr %s", code, errOut)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
				RelatedLocations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("parse SARIF: %v", err)
	}
	found := false
	for _, r := range log.Runs[0].Results {
		if r.RuleID != "rollout/mutable-image-tag" {
			continue
		}
		found = true
		loc := r.Locations[0].PhysicalLocation
		if !strings.HasSuffix(loc.ArtifactLocation.URI, "render/testdata/kustomize/overlays/prod/patches/image.yaml") || loc.Region.StartLine != 2 {
			t.Errorf("mutable-image-tag at %s:%d, want the JSON patch's line 2", loc.ArtifactLocation.URI, loc.Region.StartLine)
		}
		if len(r.RelatedLocations) != 1 || !strings.HasSuffix(r.RelatedLocations[0].PhysicalLocation.ArtifactLocation.URI, "prod@kustomize-build") {
			t.Errorf("related locations %+v, want the rendered place", r.RelatedLocations)
		}
	}
	if !found {
		t.Errorf("no rollout/mutable-image-tag result:\n%s", out)
	}
}

// TestLintBadKubeVersion: a --kube-version helm cannot read is a usage error.
func TestLintBadKubeVersion(t *testing.T) {
	_, errOut, code := run(t, "", "lint", "../internal/render/testdata/web", "--kube-version", "banana")
	if code != 2 || !strings.Contains(errOut, "--kube-version") {
		t.Errorf("exit %d, stderr %q; want 2 naming --kube-version", code, errOut)
	}
}

// TestLintChartBaseRef: lint --base-ref renders the chart as it is at the
// ref, so a selector change in a pull request is the API server's
// immutable-field error at the template line.
func TestLintChartBaseRef(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) { testkit.Git(t, dir, args...) }
	chart := filepath.Join(dir, "chart")
	if err := os.CopyFS(chart, os.DirFS("../internal/render/testdata/web")); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	tpl := filepath.Join(chart, "charts", "cache", "templates", "deployment.yaml")
	data, err := os.ReadFile(tpl)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tpl, []byte(strings.ReplaceAll(string(data), "app: {{ .Release.Name }}-cache\n", "app: {{ .Release.Name }}-cache2\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "", "lint", chart, "--base-ref", "HEAD")
	want := tpl + ":7:3: error api/invalid: spec.selector: Invalid value:"
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "field is immutable") {
		t.Errorf("exit %d, want 1 and %q ... field is immutable:\n%s%s", code, want, out, errOut)
	}
	// predict renders the chart at the ref for the old version too.
	out, errOut, _ = run(t, "", "predict", "-f", chart, "--base-ref", "HEAD")
	if !strings.Contains(out, "Deployment default/release-name-cache  ("+tpl+":1:1)") || !strings.Contains(out, tpl+":7:3: error: spec.selector") ||
		!strings.Contains(out, "baseline            "+chart+" rendered at HEAD") {
		t.Errorf("predict --base-ref: want the cache Deployment at its template, rejected at line 7, with the chart at HEAD as baseline:\n%s%s", out, errOut)
	}
	// Without the change, nothing is immutable.
	git("checkout", "-q", ".")
	out, _, _ = run(t, "", "lint", chart, "--base-ref", "HEAD")
	if strings.Contains(out, "immutable") {
		t.Errorf("unchanged chart: %s", out)
	}
}

// TestLintChartErrorOthersLinted: a template error is a finding at the
// template line, and the other paths are still linted.
func TestLintChartErrorOthersLinted(t *testing.T) {
	out, errOut, code := run(t, "", "lint", "../internal/render/testdata/web", "../internal/render/testdata/kustomize/overlays/prod", "--set", "image.tag=null")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, errOut)
	}
	if !strings.Contains(out, "../internal/render/testdata/web/templates/deployment.yaml:19:") || !strings.Contains(out, "image.tag is required") {
		t.Errorf("no template error at deployment.yaml:19:\n%s", out)
	}
	if !strings.Contains(out, "../internal/render/testdata/kustomize/overlays/prod/patches/image.yaml:2:3: warning rollout/mutable-image-tag") {
		t.Errorf("the overlay was not linted after the chart's error:\n%s", out)
	}
}

// TestLintRenderWarningsInInputOrder: the overlays of a directory render side
// by side, and their kustomize warnings come out in input order, the same on
// every run.
func TestLintRenderWarningsInInputOrder(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := range 6 {
		o := filepath.Join(dir, "overlay-"+string(rune('a'+i)))
		if err := os.MkdirAll(o, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range map[string]string{
			"kustomization.yaml": "resources: [cm.yaml]\ncommonLabels:\n  team: shop\n",
			"cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
		} {
			if err := os.WriteFile(filepath.Join(o, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want = append(want, "warning: "+o+": kustomize: 'commonLabels' is deprecated.")
	}
	var first string
	for range 3 {
		_, errOut, code := run(t, "", "lint", dir)
		if code != 0 {
			t.Fatalf("exit %d; stderr %s", code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if len(lines) != len(want) {
			t.Fatalf("stderr has %d lines, want %d:\n%s", len(lines), len(want), errOut)
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, want[i]) {
				t.Errorf("line %d: %q, want it to start %q", i+1, l, want[i])
			}
		}
		if first == "" {
			first = errOut
		} else if errOut != first {
			t.Errorf("stderr differs between runs:\n%s\n---\n%s", first, errOut)
		}
	}
}
