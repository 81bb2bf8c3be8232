package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// envSARIFSchema names the SARIF 2.1.0 JSON schema file that
// hack/install-test-tools.sh extracts from the npm package
// @microsoft/jest-sarif (lib/schemas/sarif-2.1.0-rtm.5.json).
const envSARIFSchema = "KUBECTL_WORKLOAD_SARIF_SCHEMA"

// realisticRun lints examples/ and adds what examples/ lacks: findings
// suppressed by an annotation and by the configuration, a user policy
// finding, a finding without a position, standard input, an absolute path
// that needs escaping, and a tool error.
func realisticRun(t *testing.T) (*lint.Result, []rules.Rule) {
	t.Helper()
	linter, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	res := linter.Run(context.Background(), lint.Options{Paths: []string{"../../examples"}})
	if len(res.Findings) == 0 {
		t.Fatal("lint ../../examples found nothing; the examples are broken on purpose")
	}
	obj := &lint.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "batch", Name: "worker-1"}
	res.Findings = append(res.Findings,
		lint.Finding{Rule: "api/invalid", Severity: lint.SeverityError, Message: "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
			File: "deploy/worker.yaml", Line: 7, Column: 13, Field: "spec.replicas", Object: obj,
			Suppressed: &lint.Suppression{Kind: "annotation", Reason: "scaled by the batch operator, which fixes replicas"}},
		lint.Finding{Rule: "rollout/downtime", Severity: lint.SeverityWarning, Message: "maxSurge 0 and maxUnavailable 1 with 1 replica",
			File: "deploy/worker.yaml", Line: 12, Column: 7, Field: "spec.strategy", Object: obj,
			Suppressed: &lint.Suppression{Kind: "config", Reason: "Workers serve no traffic (.kubectl-workload.yaml:12)"}},
		lint.Finding{Rule: "policy/main/deny", Severity: lint.SeverityError, Message: "images must come from registry.example.com",
			File: "deploy/worker.yaml", Line: 1, Column: 1, Object: obj},
		// A finding in a chart: at the template, with the rendered place.
		lint.Finding{Rule: "api/decode", Severity: lint.SeverityError, Message: "cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
			File: "charts/web/templates/deployment.yaml", Line: 8, Column: 3, Field: "spec.replicas", Object: obj,
			Rendered: &lint.Rendered{File: "charts/web@helm-template", Document: 1, Line: 30, Column: 3}},
		lint.Finding{Rule: lint.RuleUnparsable, Severity: lint.SeverityError, Message: "cannot parse YAML: unexpected end of stream",
			File: "<stdin>", Line: 0, Column: 0},
		lint.Finding{Rule: lint.RuleDuplicateKey, Severity: lint.SeverityError, Message: "metadata.name: duplicate key",
			File: filepath.Join(t.TempDir(), "dir with space", "100%.yaml"), Line: 3, Column: 3, Field: "metadata.name", Object: obj},
	)
	lint.SortFindings(res.Findings)
	res.Errors = append(res.Errors, errors.New("missing.yaml: no such file or directory"))
	catalogue, err := linter.Rules()
	if err != nil {
		t.Fatalf("Rules: %v", err)
	}
	return res, catalogue
}

func renderSARIF(t *testing.T, res *lint.Result, catalogue []rules.Rule) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := SARIF(&buf, res, catalogue, "v1.37.1"); err != nil {
		t.Fatalf("SARIF() = %v", err)
	}
	return buf.Bytes()
}

// TestSARIFMatchesSchema validates a realistic run's SARIF against the
// official SARIF 2.1.0 JSON schema (draft-04), with format assertions on.
func TestSARIFMatchesSchema(t *testing.T) {
	path := os.Getenv(envSARIFSchema)
	if path == "" {
		t.Skipf("%s is not set: the SARIF schema test needs the official schema; run eval \"$(hack/install-test-tools.sh --env)\" (or hack/test.sh) to fetch it", envSARIFSchema)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%s=%s: %v", envSARIFSchema, path, err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s=%s: not JSON: %v", envSARIFSchema, path, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	c.AssertFormat()
	const url = "file:///sarif-2.1.0-rtm.5.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s=%s: %v", envSARIFSchema, path, err)
	}
	schema, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s=%s: not a JSON schema: %v", envSARIFSchema, path, err)
	}
	if got, ok := doc.(map[string]any)["title"].(string); !ok || !strings.Contains(got, "SARIF") || !strings.Contains(got, "2.1.0") {
		t.Fatalf("%s=%s: title %q, want the SARIF 2.1.0 schema", envSARIFSchema, path, got)
	}

	res, catalogue := realisticRun(t)
	out := renderSARIF(t, res, catalogue)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("SARIF output is not JSON: %v", err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Errorf("SARIF output does not match the SARIF 2.1.0 schema: %v\n%s", err, out)
	}

	// The schema must be able to fail: a region starting at line 0 is invalid.
	var broken map[string]any
	if err := json.Unmarshal(out, &broken); err != nil {
		t.Fatal(err)
	}
	run := broken["runs"].([]any)[0].(map[string]any)
	region := run["results"].([]any)[0].(map[string]any)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["region"].(map[string]any)
	region["startLine"] = 0
	if err := schema.Validate(broken); err == nil {
		t.Error("schema accepted startLine 0; the validator is not validating")
	}
}

// sarifOut is the part of a SARIF log the tests read.
type sarifOut struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				Rules   []struct {
					ID                   string `json:"id"`
					HelpURI              string `json:"helpUri"`
					Help                 struct{ Text, Markdown string }
					DefaultConfiguration struct{ Level string } `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful bool `json:"executionSuccessful"`
		} `json:"invocations"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			Suppressions []struct {
				Kind          string `json:"kind"`
				Justification string `json:"justification"`
			} `json:"suppressions"`
		} `json:"results"`
	} `json:"runs"`
}

func TestSARIFResults(t *testing.T) {
	res, catalogue := realisticRun(t)
	out := renderSARIF(t, res, catalogue)
	var log sarifOut
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatalf("SARIF output is not JSON: %v", err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("SARIF version %q with %d runs, want 2.1.0 with 1", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "kubectl-workload" || run.Tool.Driver.Version == "" {
		t.Errorf("driver = %q %q, want kubectl-workload and a version", run.Tool.Driver.Name, run.Tool.Driver.Version)
	}
	if len(run.Invocations) != 1 || run.Invocations[0].ExecutionSuccessful {
		t.Errorf("invocations = %+v, want one, unsuccessful (the run had a tool error)", run.Invocations)
	}

	descriptors := run.Tool.Driver.Rules
	ids := map[string]int{}
	for i, d := range descriptors {
		if i > 0 && descriptors[i-1].ID >= d.ID {
			t.Errorf("rule descriptors not sorted by id: %s before %s", descriptors[i-1].ID, d.ID)
		}
		ids[d.ID] = i
		if d.Help.Text == "" || d.Help.Markdown == "" {
			t.Errorf("rule %s has no help", d.ID)
		}
	}
	for _, r := range AllRules(catalogue) {
		i, ok := ids[r.ID]
		if !ok {
			t.Errorf("no rule descriptor for %s", r.ID)
			continue
		}
		d := descriptors[i]
		if want := sarifLevel(r.Severity); d.DefaultConfiguration.Level != want {
			t.Errorf("rule %s: defaultConfiguration.level = %q, want %q", r.ID, d.DefaultConfiguration.Level, want)
		}
		if !strings.HasPrefix(d.HelpURI, "https://github.com/kubectl-workload/kubectl-workload/blob/main/") {
			t.Errorf("rule %s: helpUri = %q, want a page of the repository", r.ID, d.HelpURI)
		}
	}
	for _, r := range catalogue {
		d := descriptors[ids[r.ID]]
		// rules.TestDocsUpToDate keeps docs/rules/<DocFile> in place.
		if want := "/blob/main/docs/rules/" + strings.ReplaceAll(r.ID, "/", "-") + ".md"; !strings.HasSuffix(d.HelpURI, want) {
			t.Errorf("rule %s: helpUri = %q, want it to end %s", r.ID, d.HelpURI, want)
		}
		if d.Help.Text != r.Remediation {
			t.Errorf("rule %s: help.text = %q, want the remediation %q", r.ID, d.Help.Text, r.Remediation)
		}
	}
	if _, ok := ids["policy/main/deny"]; !ok {
		t.Error("no rule descriptor for the user policy rule policy/main/deny seen in the findings")
	}

	if len(run.Results) != len(res.Findings) {
		t.Fatalf("%d results, want one per finding (%d)", len(run.Results), len(res.Findings))
	}
	suppressions := map[string]string{}
	for i, r := range run.Results {
		f := res.Findings[i]
		if r.RuleID != f.Rule || r.RuleIndex < 0 || r.RuleIndex >= len(descriptors) || descriptors[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %d: ruleId %s, ruleIndex %d: want the finding's rule %s and its descriptor's index", i, r.RuleID, r.RuleIndex, f.Rule)
		}
		if len(r.Locations) != 1 {
			t.Fatalf("result %d (%s): %d locations, want 1", i, r.RuleID, len(r.Locations))
		}
		pl := r.Locations[0].PhysicalLocation
		if pl.Region.StartLine < 1 || pl.Region.StartColumn < 1 {
			t.Errorf("result %d (%s %s): region %d:%d, want line and column >= 1", i, r.RuleID, pl.ArtifactLocation.URI, pl.Region.StartLine, pl.Region.StartColumn)
		}
		if f.Line >= 1 && (pl.Region.StartLine != f.Line || pl.Region.StartColumn != f.Column) {
			t.Errorf("result %d (%s): region %d:%d, want the finding's %d:%d", i, r.RuleID, pl.Region.StartLine, pl.Region.StartColumn, f.Line, f.Column)
		}
		if strings.HasPrefix(f.File, "..") && (pl.ArtifactLocation.URI != f.File || pl.ArtifactLocation.URIBaseID != "%SRCROOT%") {
			t.Errorf("result %d: artifactLocation = %+v, want %s relative to %%SRCROOT%%", i, pl.ArtifactLocation, f.File)
		}
		for _, s := range r.Suppressions {
			suppressions[s.Kind] = s.Justification
		}
		if (f.Suppressed != nil) != (len(r.Suppressions) == 1) {
			t.Errorf("result %d (%s): %d suppressions, want 1 exactly when the finding is suppressed", i, r.RuleID, len(r.Suppressions))
		}
	}
	want := map[string]string{
		"inSource": "scaled by the batch operator, which fixes replicas",
		"external": "Workers serve no traffic (.kubectl-workload.yaml:12)",
	}
	for kind, reason := range want {
		if suppressions[kind] != reason {
			t.Errorf("suppression of kind %s has justification %q, want %q", kind, suppressions[kind], reason)
		}
	}
}

func TestUnwrap(t *testing.T) {
	in := "A HorizontalPodAutoscaler owns the replica count: it\nwrites the scale subresource.\n\nSecond  paragraph,\n  indented.\n"
	want := "A HorizontalPodAutoscaler owns the replica count: it writes the scale subresource.\n\nSecond paragraph, indented."
	if got := unwrap(in); got != want {
		t.Errorf("unwrap(%q) = %q, want %q", in, got, want)
	}
}

func TestArtifactURI(t *testing.T) {
	tests := []struct {
		file string
		want sarifArtifactLocation
	}{
		{file: "deploy/web.yaml", want: sarifArtifactLocation{URI: "deploy/web.yaml", URIBaseID: "%SRCROOT%"}},
		{file: "../examples/a b.yaml", want: sarifArtifactLocation{URI: "../examples/a%20b.yaml", URIBaseID: "%SRCROOT%"}},
		{file: "a:b.yaml", want: sarifArtifactLocation{URI: "./a:b.yaml", URIBaseID: "%SRCROOT%"}},
		{file: "<stdin>", want: sarifArtifactLocation{URI: "%3Cstdin%3E", URIBaseID: "%SRCROOT%"}},
		{file: "/srv/k8s/100%.yaml", want: sarifArtifactLocation{URI: "file:///srv/k8s/100%25.yaml"}},
	}
	for _, tt := range tests {
		if filepath.Separator != '/' && strings.HasPrefix(tt.file, "/") {
			continue // not absolute on Windows
		}
		if got := artifactURI(tt.file); got != tt.want {
			t.Errorf("artifactURI(%q) = %+v, want %+v", tt.file, got, tt.want)
		}
	}
}
