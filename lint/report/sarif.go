package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/admissionpolicy"
	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/podsecurity"
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

// readmeRulesURL documents the input/*, ignore/* and api/* rules, which have
// no page of their own: the rule table of docs/lint.md.
const readmeRulesURL = repositoryURL + "/blob/main/docs/lint.md#rules"

// tierHelp is the title, description and remediation of a rule outside the
// catalogue (rules.Builtin), which has no metadata to read them from. An
// empty title keeps the rule list's.
type tierHelp struct {
	title, description, remediation string
}

// fieldErrorTitles tell the api/* rules named after field.Error types apart
// (the rule list gives them one title).
var fieldErrorTitles = map[string]string{
	"api/invalid":       "The API server rejects an invalid value",
	"api/required":      "The API server requires a value that is missing",
	"api/forbidden":     "The API server forbids the field or value",
	"api/duplicate":     "The API server rejects a duplicated value",
	"api/not-supported": "The API server rejects a value it does not support",
	"api/not-found":     "The API server cannot find a value the object refers to",
	"api/too-long":      "The API server rejects a value that is too long",
	"api/too-many":      "The API server rejects a list with too many items",
	"api/type-invalid":  "The API server rejects a value of the wrong type",
}

// fieldErrorHelp is the help of every api/* rule named after a field.Error
// type (api/invalid, api/required, ...): the message is the server's own, and
// says what is wrong.
var fieldErrorHelp = tierHelp{
	description: "The Kubernetes API server's own validation (v1.37), run offline, rejects the object: " +
		"kubectl apply would fail. The rule is named after the type of the server's field error, and the message is the server's, word for word.",
	remediation: "Change the field the message names as it says; the API server rejects the object as it is.",
}

// tierHelps holds the help of the Go rules that are not field errors.
var tierHelps = map[string]tierHelp{
	lint.RuleUnparsable: {
		description: "The document is not valid YAML or JSON, for example an unrendered Helm template or broken indentation. Nothing in it can be checked; the other documents still are.",
		remediation: "Fix the syntax at the reported line, or lint the rendered output (helm template, kustomize build) instead of the template.",
	},
	lint.RuleLimitExceeded: {
		description: "A file or document is over one of lint's input limits: a file larger than 16 MiB, more than 10,000 documents in a file, nesting deeper than 256 levels, or YAML aliases that expand to more than 100,000 nodes (an alias bomb). It is not linted; every other file still is.",
		remediation: "Split the file, flatten the document or expand its aliases by hand; no manifest the API server accepts comes near these limits.",
	},
	lint.RuleRemote: {
		description: "A kustomization names something remote in one of its fields (resources, patches, replacements, openapi, generators' files and envs, transformers, a plugin configuration's path, ...): an http or https URL, a git repository (ssh://, user@host:org/repo, github.com/org/repo in any case, git::, ?ref=). kustomize build would fetch it with an HTTP request or by running git; lint reads nothing but the input's own files, so the overlay is not built. Every other file is still linted.",
		remediation: "Vendor what it names as a local file or directory beside the kustomization, or lint the output of kustomize build.",
	},
	lint.RuleCronJobNeverFires: {
		description: "The CronJob's schedule matches no date (0 0 31 2 *: the 31st of February), so the CronJob controller never finds a next schedule time and never creates a Job. The schedule is parsed as the controller parses it; predict shows the same.",
		remediation: "Fix the day of month or the month so that the schedule matches real dates.",
	},
	lint.RuleReferenceMissing: {
		description: "A pod spec names a ConfigMap, Secret, ServiceAccount or PersistentVolumeClaim (volumes, envFrom, env valueFrom, serviceAccountName; optional references aside) that its namespace in the input does not hold, while the input holds other objects of that kind there. Its pods then do not start: ContainerCreating, CreateContainerConfigError, Pending, or refused by the ServiceAccount admission plugin.",
		remediation: "Fix the name, or add the object to the manifests.",
	},
	lint.RuleNamespaceMismatch: {
		description: "The object's metadata.namespace is not the namespace given with -n. kubectl apply and create refuse such an object before sending it (resource.RequireNamespace).",
		remediation: "Drop -n, pass the object's namespace, or remove metadata.namespace from the manifest to let -n choose it.",
	},
	lint.RuleDuplicateKey: {
		description: "A mapping gives the same key twice. kubectl silently keeps only the last value, so the first never reaches the API server; it is always a mistake.",
		remediation: "Remove one of the two keys, keeping the value you meant.",
	},
	lint.RuleGenerateName: {
		description: "The object has metadata.generateName and no metadata.name. kubectl apply needs a name to find the live object, and refuses it (\"cannot use generate name with apply\"); kubectl create accepts it, and the API server picks the name.",
		remediation: "Create the object with kubectl create, or give it a metadata.name to manage it with kubectl apply.",
	},
	apicheck.RuleUnknownField: {
		title:       "Unknown field, rejected by strict decoding",
		description: "Strict decoding (kubectl's default --validate=strict) rejects a field the API does not define, such as a misspelled replicas. Like the API server, lint reports no validation findings for the object until the field is fixed.",
		remediation: "Fix the field's spelling or indentation, or remove it.",
	},
	admissionpolicy.RuleDeny: {
		description: "A ValidatingAdmissionPolicy bound with validationActions Deny refuses the object, evaluated with the API server's own admission code (match constraints, selectors, match conditions, params, variables, message expressions): kubectl apply would fail with this message, word for word.",
		remediation: "Change the object as the message says, or, if the policy is wrong, the policy or its binding.",
	},
	admissionpolicy.RuleWarn: {
		description: "A ValidatingAdmissionPolicy bound with validationActions Warn fails on the object: the API server accepts it and returns this message as a warning to kubectl.",
		remediation: "Change the object as the message says, or, if the policy is wrong, the policy or its binding.",
	},
	admissionpolicy.RuleAudit: {
		description: "A ValidatingAdmissionPolicy bound with validationActions Audit fails on the object: the API server accepts it and records the failure in its audit log.",
		remediation: "Change the object as the message says, or, if the policy is wrong, the policy or its binding.",
	},
	apicheck.RuleCRDMissing: {
		title:       "Custom resource whose CustomResourceDefinition is nowhere in sight",
		description: "The object is a custom resource, and its CustomResourceDefinition is not in the input, not given with --crds, and not read from the cluster: nothing checks it against its schema and CEL rules. Reported once per kind, on its first object.",
		remediation: "Give the CRD with --crds PATH (a file, a directory or a chart's crds/ folder), or lint with --live or --against-live to read the cluster's.",
	},
	apicheck.RuleDecode: {
		title:       "The API server cannot decode the object",
		description: "The API server cannot decode the object at all, for example a string where it expects an integer.",
		remediation: "Give the field a value of the type the API expects.",
	},
	apicheck.RuleRemovedVersion: {
		title:       "apiVersion removed from Kubernetes",
		description: "The object's apiVersion is no longer served by Kubernetes v1.37; the API server rejects it.",
		remediation: "Move the object to the replacement apiVersion the message names, converting any fields that changed.",
	},
	apicheck.RuleUnknownVersion: {
		title:       "Kind never served under this apiVersion",
		description: "The object's kind was never served under its apiVersion.",
		remediation: "Use an apiVersion that serves the kind, such as apps/v1 for a Deployment.",
	},
	apicheck.RuleUnknownKind: {
		title:       "Kind not served by its built-in API group",
		description: "The object's kind is not one that its built-in API group serves, often a misspelling (Deploymnet, Cronjob, service); kubectl refuses it before sending anything. Kinds of groups Kubernetes does not define (CRDs) are not checked.",
		remediation: "Fix the kind's spelling and case, such as Deployment or CronJob.",
	},
	apicheck.RuleWarning: {
		title:       "The API server accepts the object with a warning",
		description: "The API server accepts the object but answers with a Warning (WarningsOnCreate), usually about a deprecated field or a value that will not behave as written.",
		remediation: "Follow the warning's advice so that the object behaves as intended on current and future clusters.",
	},
	apicheck.RuleInternal: {
		title:       "lint could not complete the API server's checks",
		description: "lint could not complete the API server's checks on the object: an internal error in conversion or validation.",
		remediation: "Report the manifest to the kubectl-workload maintainers.",
	},
	lint.RuleIgnoreMisplaced: {
		description: "An ignore annotation sits in the pod template's annotations, where it silences nothing.",
		remediation: "Move the annotation to the object's own metadata.annotations.",
	},
	lint.RuleIgnoreUnknownRule: {
		description: "An ignore annotation names a rule id that does not exist, so it silences nothing for that id.",
		remediation: "Correct the rule id; kubectl workload lint --list-rules lists them.",
	},
	lint.RuleIgnoreNoReason: {
		description: "An ignore annotation has no ignore-reason annotation beside it. Ignores are governed, so nothing is ignored.",
		remediation: "Add the ignore-reason annotation saying why the rules do not apply to the object.",
	},
	lint.RuleIgnoreEnforced: {
		description: "An ignore annotation or a configuration exemption names a rule that the configuration enforces (rules.enforce). Enforced rules cannot be silenced; the finding it tried to silence is reported as well.",
		remediation: "Fix what the enforced rule reports, or ask the platform team that enforces it.",
	},
	podsecurity.RuleBaseline: {
		description: "A pod or pod template fails a check of the baseline Pod Security Standard, as k8s.io/pod-security-admission (the API server's PodSecurity admission) evaluates it at the latest version: privileged containers, host namespaces, host paths and ports, added capabilities, and more. Reported when the input holds no Pod Security labels for the object's namespace; the finding points at the offending field and carries upstream's check text.",
		remediation: "Change the field as the check text says, or run the workload in a namespace whose Pod Security level allows it.",
	},
	podsecurity.RuleRestricted: {
		description: "A pod or pod template fails a check that the restricted Pod Security Standard adds to baseline (privilege escalation, running as root, capabilities not dropped, seccomp profile, volume types), as k8s.io/pod-security-admission evaluates it. Off by default: enable it with rules.enable.",
		remediation: "Set the securityContext fields the check text names: allowPrivilegeEscalation false, runAsNonRoot true, capabilities drop ALL, seccompProfile RuntimeDefault.",
	},
	podsecurity.RuleEnforce: {
		description: "The input holds the object's Namespace, whose pod-security.kubernetes.io/enforce label sets a level the pods fail. The API server refuses such a Pod with its Forbidden message; it accepts a workload with a warning but refuses every pod the workload creates, so the rollout never makes progress.",
		remediation: "Make the pod template satisfy the namespace's level, or deploy into a namespace whose level allows it.",
	},
	podsecurity.RuleWarn: {
		description: "The input holds the object's Namespace, whose pod-security.kubernetes.io/warn label sets a level the pods fail: the API server accepts the object with this warning.",
		remediation: "Make the pod template satisfy the warn level before the namespace enforces it.",
	},
	podsecurity.RuleAudit: {
		description: "The input holds the object's Namespace, whose pod-security.kubernetes.io/audit label sets a level the pods fail: the API server records the violation in its audit log.",
		remediation: "Make the pod template satisfy the audit level.",
	},
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
	for _, r := range builtinTiers() {
		help, ok := tierHelps[r.ID]
		if !ok {
			help = fieldErrorHelp
			help.title = fieldErrorTitles[r.ID]
		}
		if help.title != "" {
			r.Title = help.title
		}
		r.Description, r.Remediation = help.description, help.remediation
		byID[r.ID] = descriptor(r, tierDocURL(r.ID))
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

// tierDocURL is the help page of a Go tier rule: its own page under
// docs/api-rules/ when it has one (the admission policies, api/crd-missing),
// else the rule table of docs/lint.md.
func tierDocURL(id string) string {
	switch id {
	case admissionpolicy.RuleDeny, admissionpolicy.RuleWarn, admissionpolicy.RuleAudit, apicheck.RuleCRDMissing:
		return repositoryURL + "/blob/main/docs/api-rules/" + strings.ReplaceAll(id, "/", "-") + ".md"
	}
	return readmeRulesURL
}
