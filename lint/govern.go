package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/admissionpolicy"
	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/internal/nearest"
	"github.com/kubectl-workload/kubectl-workload/internal/podsecurity"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// The ignore annotations, set in an object's own metadata.
const (
	// AnnotationIgnore lists the rule ids to silence for the object,
	// comma-separated; "*" silences every rule.
	AnnotationIgnore = "kubectl-workload/ignore"
	// AnnotationIgnoreReason says why. An ignore without a reason is not
	// honoured: ignores are governed, not silent.
	AnnotationIgnoreReason = "kubectl-workload/ignore-reason"
)

// Rule ids of findings about the ignore annotations themselves.
const (
	RuleIgnoreMisplaced   = "ignore/misplaced"
	RuleIgnoreUnknownRule = "ignore/unknown-rule"
	RuleIgnoreNoReason    = "ignore/no-reason"
	// RuleIgnoreEnforced reports an ignore annotation or an exemption that
	// tries to silence a rule the configuration enforces (rules.enforce).
	RuleIgnoreEnforced = "ignore/enforced"
)

// knownRules returns every rule id lint can report (policy/* aside).
func (l *Linter) knownRules() map[string]bool {
	known := map[string]bool{RuleUnparsable: true, RuleDuplicateKey: true, RuleLimitExceeded: true, RuleRemote: true, RuleGenerateName: true, RuleObjectSize: true,
		RuleIgnoreMisplaced: true, RuleIgnoreUnknownRule: true, RuleIgnoreNoReason: true, RuleIgnoreEnforced: true, RuleNamespaceMismatch: true, RuleReferenceMissing: true, RuleCronJobNeverFires: true}
	for _, id := range podsecurity.Rules() {
		known[id] = true
	}
	for _, id := range apicheck.Rules() {
		known[id] = true
	}
	for _, id := range admissionpolicy.Rules() {
		known[id] = true
	}
	for _, r := range rules.Builtin() {
		known[r.ID] = true
	}
	return known
}

// withAnnotations is anything with metadata.annotations: an object, or a
// pod template.
type withAnnotations struct {
	Metadata struct {
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
}

// annotations is what governing reads of an object: its own annotations and
// its pod template's (a CronJob's one level further down).
type annotations struct {
	withAnnotations
	Spec struct {
		Template    withAnnotations `json:"template"`
		JobTemplate struct {
			Spec struct {
				Template withAnnotations `json:"template"`
			} `json:"spec"`
		} `json:"jobTemplate"`
	} `json:"spec"`
}

// readGovernance reads c's ignore annotations in the first pass, while the
// object is at hand, and reports misused ones; applyGovernance applies them
// once every finding of the object is known.
func (l *Linter) readGovernance(c *checked, opts Options, known func() map[string]bool) {
	if opts.NoIgnoreAnnotations {
		return
	}
	if !mayHoldIgnore(c.obj.JSON) {
		return // no ignore annotation anywhere: nothing to read or report
	}
	var a annotations
	_ = json.Unmarshal(c.obj.JSON, &a) // a malformed object has no usable annotations
	if ignored, reason := l.readIgnore(c, a, known); ignored != nil || reason != "" {
		m := c.set()
		m.ignored, m.ignoreReason = ignored, reason
	}
}

// mayHoldIgnore reports whether an object's JSON may hold the ignore
// annotation as a key: it holds its name as written, or an escape (a key can
// spell it with \u or \/ escapes). Most objects hold neither, and are not
// decoded again for their annotations.
func mayHoldIgnore(js []byte) bool {
	return bytes.Contains(js, []byte(`"`+AnnotationIgnore+`"`)) || bytes.IndexByte(js, '\\') >= 0
}

// applyGovernance applies the configuration file and the object's ignore
// annotations (read by readGovernance) to c's findings: disabled rules are
// dropped, severities overridden, and exempted or ignored findings marked
// suppressed.
func (l *Linter) applyGovernance(c *checked, opts Options) {
	ignored, reason := c.get().ignored, c.get().ignoreReason
	kept := c.findings[:0]
	var tried []Finding // attempts to silence an enforced rule
	triedOnce := map[string]bool{}
	for _, f := range c.findings {
		if l.off(opts, f.Rule) || c.dropInjected(f) {
			continue
		}
		applySeverity(&f, opts.Settings)
		enforced := opts.Settings.Enforced(f.Rule)
		var s *Suppression
		if e, ok := opts.Settings.ExemptContainer(f.Rule, c.ref.Kind, c.ref.Namespace, c.ref.Name, f.container); ok {
			s = &Suppression{Kind: "config", Reason: fmt.Sprintf("%s (%s:%d)", e.Reason, opts.Settings.Path, e.Line)}
		} else if reason != "" && (ignored["*"] || ignored[f.Rule]) && !strings.HasPrefix(f.Rule, "ignore/") {
			s = &Suppression{Kind: "annotation", Reason: reason}
		}
		if s != nil && enforced {
			if key := s.Kind + "\x00" + f.Rule; !triedOnce[key] {
				triedOnce[key] = true
				by := "the exemption " + s.Reason
				if s.Kind == "annotation" {
					by = "the " + AnnotationIgnore + " annotation"
				}
				t := f
				t.Rule, t.Severity, t.Suppressed = RuleIgnoreEnforced, SeverityError, nil
				t.Message = fmt.Sprintf("%s cannot silence %s: the configuration enforces it (rules.enforce in %s)", by, f.Rule, opts.Settings.Path)
				tried = append(tried, t)
			}
			s = nil
		}
		f.Suppressed = s
		kept = append(kept, f)
	}
	c.findings = append(kept, tried...)
}

// dropInjected reports whether f is a built-in rule's finding about a
// container that a sidecar injector replaces at admission (injected):
// its fields as written are not what the cluster runs. The API server's
// verdicts (api/*, admission/*) and the input checks are kept.
func (c *checked) dropInjected(f Finding) bool {
	if len(c.get().injected) == 0 || f.Rule == rules.RuleInjected || strings.HasPrefix(f.Rule, "api/") ||
		strings.HasPrefix(f.Rule, "admission/") || strings.HasPrefix(f.Rule, "input/") || strings.HasPrefix(f.Rule, "ignore/") {
		return false
	}
	for _, p := range c.get().injected {
		if f.Field == p || strings.HasPrefix(f.Field, p+".") {
			return true
		}
	}
	return false
}

// off reports whether the run leaves the rule out: disabled by the
// configuration, or opt-in and not enabled. The built-in rules it names are
// not even evaluated (rules.NewRunner).
func (l *Linter) off(opts Options, rule string) bool {
	return opts.Settings.Disabled(rule) || (l.OptIn(rule) && !opts.Settings.Enabled(rule))
}

// OptIn reports whether a rule is off by default, until the configuration
// enables it (rules.enable).
func (l *Linter) OptIn(rule string) bool {
	if podsecurity.OptIn(rule) {
		return true
	}
	return rules.OptIn(rule)
}

// readIgnore reads the ignore annotations, and adds findings when they are
// misplaced, name unknown rules, or give no reason (then nothing is ignored).
// known is called only for an object that has an ignore annotation.
func (l *Linter) readIgnore(c *checked, a annotations, known func() map[string]bool) (map[string]bool, string) {
	for _, t := range []struct {
		path string
		ann  map[string]string
	}{
		{"spec.template.metadata.annotations", a.Spec.Template.Metadata.Annotations},
		{"spec.jobTemplate.spec.template.metadata.annotations", a.Spec.JobTemplate.Spec.Template.Metadata.Annotations},
	} {
		if _, ok := t.ann[AnnotationIgnore]; ok {
			c.findings = append(c.findings, c.at(RuleIgnoreMisplaced, SeverityWarning, t.path+"["+AnnotationIgnore+"]",
				fmt.Sprintf("%s is in the pod template's annotations, where it silences nothing: move it to the %s's own metadata.annotations", AnnotationIgnore, c.ref.Kind)))
		}
	}
	value, ok := a.Metadata.Annotations[AnnotationIgnore]
	if !ok {
		return nil, ""
	}
	path := "metadata.annotations[" + AnnotationIgnore + "]"
	ids := map[string]bool{}
	var unknown []string
	for _, id := range strings.Split(value, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		ids[id] = true
		if id != "*" && !known()[id] && !strings.HasPrefix(id, "policy/") {
			unknown = append(unknown, id)
		}
	}
	sort.Strings(unknown)
	for _, id := range unknown {
		hint := "kubectl workload lint --list-rules lists them"
		if near := nearest.Nearest(id, slices.Collect(maps.Keys(known()))); near != "" {
			hint = "did you mean " + near + "?"
		}
		c.findings = append(c.findings, c.at(RuleIgnoreUnknownRule, SeverityWarning, path,
			fmt.Sprintf("%s names %q, which is not a rule (%s)", AnnotationIgnore, id, hint)))
	}
	reason := strings.TrimSpace(a.Metadata.Annotations[AnnotationIgnoreReason])
	if reason == "" {
		c.findings = append(c.findings, c.at(RuleIgnoreNoReason, SeverityWarning, path,
			fmt.Sprintf("%s has no %s annotation, so nothing is ignored: say why the rules do not apply", AnnotationIgnore, AnnotationIgnoreReason)))
		return nil, ""
	}
	return ids, reason
}

// applySeverity applies a configured severity override.
func applySeverity(f *Finding, settings *config.File) {
	if settings == nil {
		return
	}
	if s, ok := settings.Rules.Severity[f.Rule]; ok {
		if sev, err := ParseSeverity(s); err == nil { // Load has checked it
			f.Severity = sev
		}
	}
}

// RuleIDs returns every rule id a run can report, sorted: the input rules,
// the API tier's, the governance rules and the built-in rules. User
// policies' ids (policy/...) are not among them.
func (l *Linter) RuleIDs() []string {
	known := l.knownRules()
	out := make([]string, 0, len(known))
	for id := range known {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// CheckSettings checks a configuration against what lint can report, before
// a run: a rule id or glob that matches no rule is an error (a misspelled id
// would otherwise silently do nothing). The warnings name the user policies'
// packages that do not run (PoliciesNotRun) and the exemptions whose kind
// matches no kind lint knows.
func (l *Linter) CheckSettings(settings *config.File) (warnings []string, err error) {
	if settings.HasRuleRefs() {
		if err := settings.CheckRuleIDs(l.RuleIDs()); err != nil {
			return nil, err
		}
	}
	warnings = append(warnings, l.PoliciesNotRun()...)
	return append(warnings, settings.KindWarnings(apicheck.KnownKinds())...), nil
}
