package rules

import "sort"

// TierRule is a rule that a tier of lint raises (the input checks, the
// ignore annotations' governance, the reference and CronJob checks, Pod
// Security, the API server's checks, admission policies), not a check of
// this package: it has metadata and fixtures here, and no Go check of its
// own, since its tier raises it. The catalogue of every rule id lint can
// print is Builtin (the Go checks) and Tiers (these).
type TierRule struct {
	// Meta is the rule's metadata: ID, Title (as the rule list shows it),
	// Severity, OptIn, Description and Remediation. Meta.File and
	// Meta.Kinds are empty: no check of this package raises it.
	Meta Rule
	// Tier names the package whose checks raise the rule.
	Tier string
	// HelpTitle is the title of the rule's help (SARIF's short
	// description) where it differs from Meta.Title.
	HelpTitle string
	// Docs is the rule's documentation page, from the repository root: its
	// own page under docs/api-rules/, or the rule table of docs/lint.md.
	Docs string
	// NoFixture, when set, says why no file raises the rule, so that it has
	// a passing fixture and no failing one.
	NoFixture string
}

// The packages whose checks raise the tier rules (TierRule.Tier).
const (
	tierLint            = "lint"
	tierAPICheck        = "internal/apicheck"
	tierPodSecurity     = "internal/podsecurity"
	tierAdmissionPolicy = "internal/admissionpolicy"
)

// The documentation pages of the tier rules (TierRule.Docs).
const (
	// docsRuleTable is the rule table of docs/lint.md, which documents the
	// tier rules without a page of their own.
	docsRuleTable = "docs/lint.md#rules"
	// docsAPIRules holds the tier rules' own pages.
	docsAPIRules = "docs/api-rules/"
)

// fieldError is the metadata of an api/* rule named after a field.Error
// type (api/invalid, api/required, ...): the finding's message is the
// server's own, and says what is wrong.
func fieldError(id, title string) TierRule {
	return TierRule{Tier: tierAPICheck, Docs: docsRuleTable, Meta: Rule{ID: id, Severity: SeverityError, Title: title,
		Description: "The Kubernetes API server's own validation (v1.37), run offline, rejects the object: " +
			"kubectl apply would fail. The rule is named after the type of the server's field error, and the message is the server's, word for word.",
		Remediation: "Change the field the message names as it says; the API server rejects the object as it is."}}
}

// admissionRemediation is the remediation of the admission/policy-* rules.
const admissionRemediation = "Change the object as the message says, or, if the policy is wrong, the policy or its binding."

// tierRules are the tier rules, in no order (Tiers sorts them).
var tierRules = []TierRule{
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "input/unparsable", Severity: SeverityError,
		Title:       "Document is not valid YAML or JSON",
		Description: "The document is not valid YAML or JSON, for example an unrendered Helm template or broken indentation. Nothing in it can be checked; the other documents still are.",
		Remediation: "Fix the syntax at the reported line, or lint the rendered output (helm template, kustomize build) instead of the template."}},
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "input/duplicate-key", Severity: SeverityError,
		Title:       "Key given twice; kubectl keeps only the last value",
		Description: "A mapping gives the same key twice. kubectl silently keeps only the last value, so the first never reaches the API server; it is always a mistake.",
		Remediation: "Remove one of the two keys, keeping the value you meant."}},
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "input/limit-exceeded", Severity: SeverityError,
		Title:       "File or document over an input limit; not linted",
		Description: "A file or document is over one of lint's input limits: a file larger than 16 MiB, more than 10,000 documents in a file, nesting deeper than 256 levels, or YAML aliases that expand to more than 100,000 nodes (an alias bomb). It is not linted; every other file still is.",
		Remediation: "Split the file, flatten the document or expand its aliases by hand; no manifest the API server accepts comes near these limits."}},
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "input/remote", Severity: SeverityError,
		Title:       "Kustomization names a URL or git repository; nothing is fetched, it is not built",
		Description: "A kustomization names something remote in one of its fields (resources, patches, replacements, openapi, generators' files and envs, transformers, a plugin configuration's path, ...): an http or https URL, a git repository (ssh://, user@host:org/repo, github.com/org/repo in any case, git::, ?ref=). kustomize build would fetch it with an HTTP request or by running git; lint reads nothing but the input's own files, so the overlay is not built. Every other file is still linted.",
		Remediation: "Vendor what it names as a local file or directory beside the kustomization, or lint the output of kustomize build."}},
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "input/generate-name", Severity: SeverityInfo,
		Title:       "Object named by generateName only; kubectl apply refuses it, kubectl create accepts it",
		Description: "The object has metadata.generateName and no metadata.name. kubectl apply needs a name to find the live object, and refuses it (\"cannot use generate name with apply\"); kubectl create accepts it, and the API server picks the name.",
		Remediation: "Create the object with kubectl create, or give it a metadata.name to manage it with kubectl apply."}},
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "input/namespace-mismatch", Severity: SeverityError,
		Title:       "metadata.namespace differs from -n; kubectl refuses the object",
		Description: "The object's metadata.namespace is not the namespace given with -n. kubectl apply and create refuse such an object before sending it (resource.RequireNamespace).",
		Remediation: "Drop -n, pass the object's namespace, or remove metadata.namespace from the manifest to let -n choose it."}},
	{Tier: tierLint, Docs: docsRuleTable, NoFixture: "a failing file would be 1.5 MiB or more; lint/objectsize_test.go builds such objects in memory",
		Meta: Rule{ID: "input/object-size", Severity: SeverityError,
			Title:       "Object too large for the API server (error) or for etcd's default limit (warning)",
			Description: "The object, as the JSON kubectl sends, is over the API server's 3 MiB request body limit (an error: the server answers 413 \"Request entity too large\"), or over etcd's default --max-request-bytes of 1.5 MiB (a warning: the API server passes it on and etcd refuses to store it unless the limit was raised).",
			Remediation: "Move the bulk out of the object: large data into several ConfigMaps or Secrets, or into a volume or an image."}},
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "ignore/misplaced", Severity: SeverityWarning,
		Title:       "Ignore annotation in the pod template, where it silences nothing",
		Description: "An ignore annotation sits in the pod template's annotations, where it silences nothing.",
		Remediation: "Move the annotation to the object's own metadata.annotations."}},
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "ignore/unknown-rule", Severity: SeverityWarning,
		Title:       "Ignore annotation names a rule that does not exist",
		Description: "An ignore annotation names a rule id that does not exist, so it silences nothing for that id.",
		Remediation: "Correct the rule id; kubectl workload lint --list-rules lists them."}},
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "ignore/no-reason", Severity: SeverityWarning,
		Title:       "Ignore annotation without a reason; nothing is ignored",
		Description: "An ignore annotation has no ignore-reason annotation beside it. Ignores are governed, so nothing is ignored.",
		Remediation: "Add the ignore-reason annotation saying why the rules do not apply to the object."}},
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "ignore/enforced", Severity: SeverityError,
		Title:       "Ignore annotation or exemption tries to silence an enforced rule",
		Description: "An ignore annotation or a configuration exemption names a rule that the configuration enforces (rules.enforce). Enforced rules cannot be silenced; the finding it tried to silence is reported as well.",
		Remediation: "Fix what the enforced rule reports, or ask the platform team that enforces it."}},
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "cronjob/never-fires", Severity: SeverityWarning,
		Title:       "CronJob schedule that matches no date",
		Description: "The CronJob's schedule matches no date (0 0 31 2 *: the 31st of February), so the CronJob controller never finds a next schedule time and never creates a Job. The schedule is parsed as the controller parses it; predict shows the same.",
		Remediation: "Fix the day of month or the month so that the schedule matches real dates."}},
	{Tier: tierLint, Docs: docsRuleTable, Meta: Rule{ID: "references/missing", Severity: SeverityWarning,
		Title:       "Pod spec needs a ConfigMap, Secret, ServiceAccount or claim the input lacks",
		Description: "A pod spec names a ConfigMap, Secret, ServiceAccount or PersistentVolumeClaim (volumes, envFrom, env valueFrom, serviceAccountName; optional references aside) that its namespace in the input does not hold, while the input holds other objects of that kind there. Its pods then do not start: ContainerCreating, CreateContainerConfigError, Pending, or refused by the ServiceAccount admission plugin.",
		Remediation: "Fix the name, or add the object to the manifests."}},
	{Tier: tierPodSecurity, Docs: docsRuleTable, Meta: Rule{ID: "pss/baseline", Severity: SeverityWarning, OptIn: true,
		Title:       "Pod fails a baseline Pod Security Standard check",
		Description: "A pod or pod template fails a check of the baseline Pod Security Standard, as k8s.io/pod-security-admission (the API server's PodSecurity admission) evaluates it at the latest version: privileged containers, host namespaces, host paths and ports, added capabilities, and more. Reported when the input holds no Pod Security labels for the object's namespace; the finding points at the offending field and carries upstream's check text.",
		Remediation: "Change the field as the check text says, or run the workload in a namespace whose Pod Security level allows it."}},
	{Tier: tierPodSecurity, Docs: docsRuleTable, Meta: Rule{ID: "pss/restricted", Severity: SeverityWarning, OptIn: true,
		Title:       "Pod fails a restricted Pod Security Standard check",
		Description: "A pod or pod template fails a check that the restricted Pod Security Standard adds to baseline (privilege escalation, running as root, capabilities not dropped, seccomp profile, volume types), as k8s.io/pod-security-admission evaluates it. Off by default: enable it with rules.enable.",
		Remediation: "Set the securityContext fields the check text names: allowPrivilegeEscalation false, runAsNonRoot true, capabilities drop ALL, seccompProfile RuntimeDefault."}},
	{Tier: tierPodSecurity, Docs: docsRuleTable, Meta: Rule{ID: "pss/enforce", Severity: SeverityError,
		Title:       "The namespace's Pod Security enforce label refuses the pods",
		Description: "The input holds the object's Namespace, whose pod-security.kubernetes.io/enforce label sets a level the pods fail. The API server refuses such a Pod with its Forbidden message; it accepts a workload with a warning but refuses every pod the workload creates, so the rollout never makes progress.",
		Remediation: "Make the pod template satisfy the namespace's level, or deploy into a namespace whose level allows it."}},
	{Tier: tierPodSecurity, Docs: docsRuleTable, Meta: Rule{ID: "pss/warn", Severity: SeverityWarning,
		Title:       "The namespace's Pod Security warn label makes the server warn",
		Description: "The input holds the object's Namespace, whose pod-security.kubernetes.io/warn label sets a level the pods fail: the API server accepts the object with this warning.",
		Remediation: "Make the pod template satisfy the warn level before the namespace enforces it."}},
	{Tier: tierPodSecurity, Docs: docsRuleTable, Meta: Rule{ID: "pss/audit", Severity: SeverityWarning,
		Title:       "The namespace's Pod Security audit label records a violation",
		Description: "The input holds the object's Namespace, whose pod-security.kubernetes.io/audit label sets a level the pods fail: the API server records the violation in its audit log.",
		Remediation: "Make the pod template satisfy the audit level."}},
	{Tier: tierAdmissionPolicy, Docs: docsAPIRules + "admission-policy-deny.md", Meta: Rule{ID: "admission/policy-deny", Severity: SeverityError,
		Title:       "A ValidatingAdmissionPolicy with a Deny binding refuses the object",
		Description: "A ValidatingAdmissionPolicy bound with validationActions Deny refuses the object, evaluated with the API server's own admission code (match constraints, selectors, match conditions, params, variables, message expressions): kubectl apply would fail with this message, word for word.",
		Remediation: admissionRemediation}},
	{Tier: tierAdmissionPolicy, Docs: docsAPIRules + "admission-policy-warn.md", Meta: Rule{ID: "admission/policy-warn", Severity: SeverityWarning,
		Title:       "A ValidatingAdmissionPolicy with a Warn binding makes the server warn",
		Description: "A ValidatingAdmissionPolicy bound with validationActions Warn fails on the object: the API server accepts it and returns this message as a warning to kubectl.",
		Remediation: admissionRemediation}},
	{Tier: tierAdmissionPolicy, Docs: docsAPIRules + "admission-policy-audit.md", Meta: Rule{ID: "admission/policy-audit", Severity: SeverityInfo,
		Title:       "A ValidatingAdmissionPolicy with an Audit binding records a failure",
		Description: "A ValidatingAdmissionPolicy bound with validationActions Audit fails on the object: the API server accepts it and records the failure in its audit log.",
		Remediation: admissionRemediation}},
	{Tier: tierAPICheck, Docs: docsRuleTable, Meta: Rule{ID: "api/unknown-field", Severity: SeverityError,
		Title:       "Unknown field, rejected by strict decoding",
		Description: "Strict decoding (kubectl's default --validate=strict) rejects a field the API does not define, such as a misspelled replicas. Like the API server, lint reports no validation findings for the object until the field is fixed.",
		Remediation: "Fix the field's spelling or indentation, or remove it."}},
	{Tier: tierAPICheck, Docs: docsRuleTable, Meta: Rule{ID: "api/decode", Severity: SeverityError,
		Title:       "The API server cannot decode the object",
		Description: "The API server cannot decode the object at all, for example a string where it expects an integer.",
		Remediation: "Give the field a value of the type the API expects."}},
	{Tier: tierAPICheck, Docs: docsRuleTable, Meta: Rule{ID: "api/removed-version", Severity: SeverityError,
		Title:       "apiVersion removed from Kubernetes",
		Description: "The object's apiVersion is no longer served by Kubernetes v1.37; the API server rejects it.",
		Remediation: "Move the object to the replacement apiVersion the message names, converting any fields that changed."}},
	{Tier: tierAPICheck, Docs: docsRuleTable, Meta: Rule{ID: "api/unknown-version", Severity: SeverityError,
		Title:       "Kind never served under this apiVersion",
		Description: "The object's kind was never served under its apiVersion.",
		Remediation: "Use an apiVersion that serves the kind, such as apps/v1 for a Deployment."}},
	{Tier: tierAPICheck, Docs: docsRuleTable, Meta: Rule{ID: "api/unknown-kind", Severity: SeverityError,
		Title:       "Kind not served by its built-in API group",
		Description: "The object's kind is not one that its built-in API group serves, often a misspelling (Deploymnet, Cronjob, service); kubectl refuses it before sending anything. Kinds of groups Kubernetes does not define (CRDs) are not checked.",
		Remediation: "Fix the kind's spelling and case, such as Deployment or CronJob."}},
	{Tier: tierAPICheck, Docs: docsRuleTable, Meta: Rule{ID: "api/warning", Severity: SeverityWarning,
		Title:       "The API server accepts the object with a warning",
		Description: "The API server accepts the object but answers with a Warning (WarningsOnCreate), usually about a deprecated field or a value that will not behave as written.",
		Remediation: "Follow the warning's advice so that the object behaves as intended on current and future clusters."}},
	{Tier: tierAPICheck, Docs: docsRuleTable, NoFixture: "an internal error of lint's conversion or validation: no valid or invalid manifest is meant to raise it",
		Meta: Rule{ID: "api/internal", Severity: SeverityError,
			Title:       "lint could not complete the API server's checks",
			Description: "lint could not complete the API server's checks on the object: an internal error in conversion or validation.",
			Remediation: "Report the manifest to the kubectl-workload maintainers."}},
	{Tier: tierAPICheck, Docs: docsAPIRules + "api-crd-missing.md", HelpTitle: "Custom resource whose CustomResourceDefinition is nowhere in sight",
		Meta: Rule{ID: "api/crd-missing", Severity: SeverityInfo,
			Title:       "Custom resource whose CustomResourceDefinition is nowhere in sight: not checked",
			Description: "The object is a custom resource, and its CustomResourceDefinition is not in the input, not given with --crds, and not read from the cluster: nothing checks it against its schema and CEL rules. Reported once per kind, on its first object.",
			Remediation: "Give the CRD with --crds PATH (a file, a directory or a chart's crds/ folder), or lint with --live or --against-live to read the cluster's."}},
	fieldError("api/invalid", "The API server rejects an invalid value"),
	fieldError("api/required", "The API server requires a value that is missing"),
	fieldError("api/forbidden", "The API server forbids the field or value"),
	fieldError("api/duplicate", "The API server rejects a duplicated value"),
	fieldError("api/not-supported", "The API server rejects a value it does not support"),
	fieldError("api/not-found", "The API server cannot find a value the object refers to"),
	fieldError("api/too-long", "The API server rejects a value that is too long"),
	fieldError("api/too-many", "The API server rejects a list with too many items"),
	fieldError("api/type-invalid", "The API server rejects a value of the wrong type"),
}

// Tiers returns the tier rules' metadata, sorted by id; the caller may
// modify the slice.
func Tiers() []TierRule {
	out := append([]TierRule(nil), tierRules...)
	sort.Slice(out, func(i, j int) bool { return out[i].Meta.ID < out[j].Meta.ID })
	return out
}
