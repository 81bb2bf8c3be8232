package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/version"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// SARIF constants: the format's version and where the plugin documents
// itself. helpUri values are built from them.
const (
	sarifVersion = "2.1.0"
	// sarifSchema is the schema URI SARIF consumers (GitHub code scanning
	// among them) recognise for 2.1.0.
	sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"
	// repositoryURL is the plugin's home; rule docs live under it.
	repositoryURL = "https://github.com/kubectl-workload/kubectl-workload"
	// srcRoot is the uriBaseId of relative artifact locations: SARIF
	// consumers resolve it to the checkout the linter ran in.
	srcRoot = "%SRCROOT%"
)

// ruleDocURL is the documentation page of a catalogue rule, which
// go test ./rules -update-docs generates: docs/rules/<id with / replaced by ->.md.
func ruleDocURL(id string) string {
	return repositoryURL + "/blob/main/docs/rules/" + rules.DocFile(id)
}

// AllRules returns every rule --list-rules and --explain know, other than
// user policies: the Go tiers (input/*, ignore/*, api/*) and the catalogue,
// sorted by id.
func AllRules(catalogue []rules.Rule) []rules.Rule {
	return sortRules(append(builtinTiers(), catalogue...))
}

// The SARIF 2.1.0 objects this printer writes, as structs so that field
// order, and so output, is fixed.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool        sarifTool         `json:"tool"`
		Invocations []sarifInvocation `json:"invocations"`
		// ColumnKind says how columns count: lint counts characters (code
		// points), as its YAML parser does, not UTF-16 code units.
		ColumnKind string             `json:"columnKind"`
		Results    []sarifResult      `json:"results"`
		Properties sarifRunProperties `json:"properties"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string                `json:"name"`
		Version        string                `json:"version"`
		InformationURI string                `json:"informationUri"`
		Rules          []sarifRuleDescriptor `json:"rules"`
	}
	sarifRuleDescriptor struct {
		ID                   string             `json:"id"`
		ShortDescription     sarifMessage       `json:"shortDescription"`
		FullDescription      sarifMessage       `json:"fullDescription"`
		Help                 sarifMultiformat   `json:"help"`
		HelpURI              string             `json:"helpUri,omitempty"`
		DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
		Properties           *sarifRuleProps    `json:"properties,omitempty"`
	}
	// sarifRuleProps are what GitHub code scanning reads from a rule: a
	// "security" tag and a security-severity (a CVSS-like score as a
	// string) make its alerts security alerts, ranked by that score.
	sarifRuleProps struct {
		Tags             []string `json:"tags,omitempty"`
		SecuritySeverity string   `json:"security-severity,omitempty"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifMultiformat struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	}
	sarifConfiguration struct {
		Level string `json:"level"`
	}
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level   string       `json:"level"`
		Message sarifMessage `json:"message"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations"`
		// RelatedLocations holds, for a finding in a Helm chart or a
		// kustomization, where it stands in the rendered output.
		RelatedLocations []sarifRelatedLocation `json:"relatedLocations,omitempty"`
		Suppressions     []sarifSuppression     `json:"suppressions,omitempty"`
		// PartialFingerprints identify a result across runs and commits, so
		// that code scanning keeps one alert for a finding whose line moves
		// (see fingerprints).
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          *sarifResultProps `json:"properties,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysicalLocation  `json:"physicalLocation"`
		LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
	}
	sarifRelatedLocation struct {
		ID               int                   `json:"id"`
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
		Message          sarifMessage          `json:"message"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           sarifRegion           `json:"region"`
	}
	sarifArtifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
	}
	sarifLogicalLocation struct {
		Name               string `json:"name"`
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	sarifSuppression struct {
		Kind          string `json:"kind"`
		Status        string `json:"status"`
		Justification string `json:"justification"`
	}
	sarifResultProps struct {
		// Field is the finding's field path in the API server's notation.
		Field string `json:"field,omitempty"`
		// Document is the 0-based document index in the file.
		Document int `json:"document"`
		// Related is lint.Finding.Related: the full count of related
		// objects when the message names only the first few.
		Related int `json:"related,omitempty"`
	}
	sarifRunProperties struct {
		KubernetesVersion string `json:"kubernetesVersion"`
	}
)

// sarifLevel maps a severity to a SARIF level: info is a "note".
func sarifLevel(s string) string {
	switch s {
	case rules.SeverityError:
		return "error"
	case rules.SeverityWarning:
		return "warning"
	default:
		return "note"
	}
}

// suppressionKind maps a lint.Suppression's kind to SARIF's: an annotation in
// the manifest is "inSource", a configuration exemption is "external".
func suppressionKind(kind string) string {
	if kind == "annotation" {
		return "inSource"
	}
	return "external"
}

// artifactURI turns a finding's file into a SARIF artifact location. A
// relative path stays relative (to %SRCROOT%), as the user gave it; an
// absolute one becomes a file: URI. Both are percent-encoded, with forward
// slashes, so that they are valid URI references on every platform.
func artifactURI(file string) sarifArtifactLocation {
	if filepath.IsAbs(file) {
		p := filepath.ToSlash(file)
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/x on Windows: file:///C:/x
		}
		return sarifArtifactLocation{URI: (&url.URL{Scheme: "file", Path: p}).String()}
	}
	return sarifArtifactLocation{URI: (&url.URL{Path: filepath.ToSlash(file)}).String(), URIBaseID: srcRoot}
}

// atLeastOne keeps a SARIF region valid: SARIF lines and columns start at 1,
// and a finding whose parser could not say where it is points at the start.
func atLeastOne(n int) int {
	return max(n, 1)
}

// unwrap joins the lines of each paragraph: the catalogue's descriptions are
// wrapped for the Go source, and SARIF viewers wrap text themselves.
func unwrap(s string) string {
	paragraphs := strings.Split(strings.TrimSpace(s), "\n\n")
	for i, p := range paragraphs {
		paragraphs[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paragraphs, "\n\n")
}

// descriptor builds a rule's SARIF descriptor.
func descriptor(r rules.Rule, helpURI string) sarifRuleDescriptor {
	full := unwrap(r.Description)
	if full == "" {
		full = r.Title + "."
	}
	md := r.Remediation
	if helpURI != "" {
		md += fmt.Sprintf("\n\n[%s](%s)", r.ID, helpURI)
	}
	return sarifRuleDescriptor{
		ID:                   r.ID,
		ShortDescription:     sarifMessage{Text: r.Title},
		FullDescription:      sarifMessage{Text: full},
		Help:                 sarifMultiformat{Text: r.Remediation, Markdown: md},
		HelpURI:              helpURI,
		DefaultConfiguration: sarifConfiguration{Level: sarifLevel(r.Severity)},
		Properties:           securityProps(r.ID),
	}
}

// sarifRules returns the descriptors of every rule the run could report,
// sorted by id: the catalogue, the Go tiers, and any other id the findings
// carry (user policies, policy/<package>/<rule>).
func sarifRules(res *lint.Result, catalogue []rules.Rule) []sarifRuleDescriptor {
	byID := map[string]sarifRuleDescriptor{}
	for _, r := range catalogue {
		byID[r.ID] = descriptor(r, ruleDocURL(r.ID))
	}
	for _, t := range rules.Tiers() {
		r := t.Meta
		if t.HelpTitle != "" {
			r.Title = t.HelpTitle
		}
		byID[r.ID] = descriptor(r, repositoryURL+"/blob/main/"+t.Docs)
	}
	for _, f := range res.Findings { // sorted, so the first finding of an id decides
		if _, ok := byID[f.Rule]; ok {
			continue
		}
		r := rules.Rule{ID: f.Rule, Severity: f.Severity.String(), Title: "User policy rule " + f.Rule,
			Remediation: "See the policy that reports " + f.Rule + " (--policy)."}
		if !strings.HasPrefix(f.Rule, "policy/") {
			r.Title = "Rule " + f.Rule
			r.Remediation = "See kubectl workload lint --explain " + f.Rule + "."
		}
		byID[f.Rule] = descriptor(r, "")
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]sarifRuleDescriptor, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out
}

// SARIF writes the result as a SARIF 2.1.0 log with one run: a descriptor per
// rule (help text and a documentation link), and a result per finding at its
// real line and column. Suppressed findings are results with suppressions,
// as SARIF consumers expect, not dropped.
func SARIF(w io.Writer, res *lint.Result, catalogue []rules.Rule, kubernetesVersion string) error {
	descriptors := sarifRules(res, catalogue)
	index := make(map[string]int, len(descriptors))
	for i, d := range descriptors {
		index[d.ID] = i
	}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: "kubectl-workload", Version: version.Get().Plugin,
			InformationURI: repositoryURL, Rules: descriptors}},
		Invocations: []sarifInvocation{{ExecutionSuccessful: len(res.Errors) == 0}},
		ColumnKind:  "unicodeCodePoints",
		Results:     []sarifResult{},
		Properties:  sarifRunProperties{KubernetesVersion: kubernetesVersion},
	}
	for _, err := range res.Errors {
		run.Invocations[0].ToolExecutionNotifications = append(run.Invocations[0].ToolExecutionNotifications,
			sarifNotification{Level: "error", Message: sarifMessage{Text: err.Error()}})
	}
	prints := fingerprints(res.Findings)
	for i, f := range res.Findings {
		msg := f.Message
		loc := sarifLocation{PhysicalLocation: sarifPhysicalLocation{
			ArtifactLocation: artifactURI(f.File),
			Region:           sarifRegion{StartLine: atLeastOne(f.Line), StartColumn: atLeastOne(f.Column)},
		}}
		if f.Object != nil {
			msg += " (" + f.Object.String() + ")"
			loc.LogicalLocations = []sarifLogicalLocation{{Name: f.Object.Name, FullyQualifiedName: f.Object.String(), Kind: "resource"}}
		}
		r := sarifResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity.String()),
			Message:             sarifMessage{Text: msg},
			Locations:           []sarifLocation{loc},
			PartialFingerprints: map[string]string{fingerprintKey: prints[i]},
			Properties:          &sarifResultProps{Field: f.Field, Document: f.Document, Related: f.Related},
		}
		if rd := f.Rendered; rd != nil {
			r.RelatedLocations = []sarifRelatedLocation{{ID: 1, PhysicalLocation: sarifPhysicalLocation{
				ArtifactLocation: artifactURI(rd.File),
				Region:           sarifRegion{StartLine: atLeastOne(rd.Line), StartColumn: atLeastOne(rd.Column)},
			}, Message: sarifMessage{Text: fmt.Sprintf("rendered output, document %d", rd.Document)}}}
		}
		if s := f.Suppressed; s != nil {
			r.Suppressions = []sarifSuppression{{Kind: suppressionKind(s.Kind), Status: "accepted", Justification: s.Reason}}
		}
		run.Results = append(run.Results, r)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // messages quote manifests: keep <, > and & readable
	if err := enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}}); err != nil {
		return fmt.Errorf("write SARIF report: %w", err)
	}
	return nil
}
