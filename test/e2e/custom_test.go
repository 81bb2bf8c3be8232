package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// customFixtureDir holds the custom resources the CRD differential puts to both, valid and
// invalid; the CRDs they are checked against are real ones, under crdDir.
const (
	customFixtureDir = "testdata/custom"
	crdDir           = "../../internal/apicheck/testdata/crds"
)

// TestDifferentialCustomResources installs real CRDs (Gateway API, cert-manager) in a real
// v1.37.1 API server, puts every custom resource of the fixtures to it as a dry-run create
// with strict field validation, and to `kubectl-workload lint --crds`: the verdicts, the
// rejected field paths and the messages must be the same, and so must the warnings.
func TestDifferentialCustomResources(t *testing.T) {
	c := sharedCluster(t)
	plugin := pluginBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := c.Kubectl(ctx, "apply", "--server-side", "-f", crdDir); err != nil {
		t.Fatalf("install the CRDs: %v\n%s", err, out)
	}
	if out, err := c.WaitEstablished(ctx, "crd", "--all"); err != nil {
		t.Fatalf("wait for the CRDs: %v\n%s", err, out)
	}
	oracle, err := waitOracle(ctx, c, schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"},
		schema.GroupKind{Group: "cert-manager.io", Kind: "Certificate"})
	if err != nil {
		t.Fatal(err)
	}
	report := lintCustom(t, ctx, plugin, "--crds", crdDir, customFixtureDir)
	files, err := filepath.Glob(filepath.Join(customFixtureDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures under %s (%v)", customFixtureDir, err)
	}
	var objects, rejected int
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := splitYAML(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for i, doc := range docs {
			v, err := oracle.DryRunCreate(ctx, doc)
			if err != nil {
				t.Fatalf("%s: document %d: %v", file, i, err)
			}
			objects++
			if v.Rejected {
				rejected++
			}
			p := report.object(file, i)
			if !agrees(v, p) {
				t.Errorf("%s: document %d: server %s; lint %s", file, i, formatVerdict(v), formatFindings(p.apiErrors))
			}
			if got := p.warnings(); !slices.Equal(sorted(v.Warnings), got) {
				t.Errorf("%s: document %d: server warned %q; lint warned %q", file, i, sorted(v.Warnings), got)
			}
		}
	}
	t.Logf("%d custom resources, %d rejected by the server; lint agreed on the verdicts and messages", objects, rejected)
	if objects < 20 || rejected < objects/3 {
		t.Errorf("%d objects, %d rejected: the fixtures should hold at least 20, a third of them invalid", objects, rejected)
	}
}

// TestCustomResourcesWithoutCRD: without their CRDs, custom resources get one info per
// kind, naming --crds, and no error.
func TestCustomResourcesWithoutCRD(t *testing.T) {
	plugin := pluginBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	report := lintCustom(t, ctx, plugin, customFixtureDir)
	kinds := map[string]int{}
	for _, f := range report.Findings {
		if f.Severity == severityError {
			t.Errorf("%s:%d:%d: %s without its CRD: %s", f.File, f.Line, f.Column, f.Rule, f.Message)
		}
		if f.Rule == "api/crd-missing" {
			if !strings.Contains(f.Message, "--crds") {
				t.Errorf("api/crd-missing does not name --crds: %s", f.Message)
			}
			kinds[f.Object.Kind]++
		}
	}
	want := map[string]int{"Certificate": 1, "Gateway": 1, "GatewayClass": 1, "HTTPRoute": 1}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("api/crd-missing by kind = %v, want %v", kinds, want)
	}
}

// waitOracle returns an oracle once discovery serves every kind named.
func waitOracle(ctx context.Context, c *Cluster, groups ...schema.GroupKind) (*Oracle, error) {
	for {
		o, err := c.NewOracle(ctx)
		if err == nil {
			missing := false
			for _, g := range groups {
				if _, err := o.mapper.RESTMapping(g); err != nil {
					missing = true
				}
			}
			if !missing {
				return o, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("discovery does not serve %v: %w", groups, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// customReport is one `kubectl-workload lint -o json` run over several files.
type customReport struct{ lintReport }

// lintCustom runs the plugin with args and reads its JSON report.
func lintCustom(t *testing.T, ctx context.Context, plugin string, args ...string) customReport {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, plugin, append([]string{"lint", "-o", "json", "--fail-on", "error"}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && (!errors.As(err, &exitErr) || exitErr.ExitCode() != 1) {
		t.Fatalf("kubectl-workload lint %v: %v\n%s", args, err, stderr.String())
	}
	var r customReport
	if err := json.Unmarshal(stdout.Bytes(), &r.lintReport); err != nil {
		t.Fatalf("kubectl-workload lint %v: %v\n%s", args, err, stdout.String())
	}
	return r
}

// object returns the findings on one document as a pluginRun.
func (r customReport) object(file string, document int) pluginRun {
	p := pluginRun{fields: []string{}}
	for _, f := range r.Findings {
		if filepath.Clean(f.File) != filepath.Clean(file) || f.Document != document {
			continue
		}
		p.report.Findings = append(p.report.Findings, f)
		if strings.HasPrefix(f.Rule, apiRulePrefix) && f.Severity == severityError {
			if f.Field == "" && strings.HasPrefix(f.Message, "<nil>: ") {
				// A CEL error about the whole object: the server's cause names
				// the nil path "<nil>", which lint places at the object.
				f.Field = "<nil>"
			}
			p.apiErrors = append(p.apiErrors, f)
			p.fields = append(p.fields, f.Field)
		}
	}
	slices.Sort(p.fields)
	p.fields = slices.Compact(p.fields)
	return p
}

// warnings returns the api/warning messages of a pluginRun, sorted.
func (p pluginRun) warnings() []string {
	out := []string{}
	for _, f := range p.report.Findings {
		if f.Rule == "api/warning" {
			out = append(out, f.Message)
		}
	}
	return sorted(out)
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}

func formatFindings(fs []lintFinding) string {
	if len(fs) == 0 {
		return "accepts"
	}
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s %q", f.Rule, f.Message))
	}
	return "rejects: " + strings.Join(parts, "; ")
}
