package lint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/pod-security-admission/api"

	"github.com/kubectl-workload/kubectl-workload/internal/podsecurity"
)

// podSecurityLabelPrefix starts the namespace labels PodSecurity admission
// reads (pod-security.kubernetes.io/enforce, ...).
const podSecurityLabelPrefix = "pod-security.kubernetes.io/"

// pssState is what an object with pods keeps for the Pod Security checks,
// which wait for the whole run: the namespace's labels may be in any file.
type pssState struct {
	res podsecurity.Result
	// findings are the per-check findings (pss/baseline, pss/restricted),
	// placed; reported when the namespace has no Pod Security labels.
	findings []Finding
	// anchors are where a namespace-level finding about each level points:
	// the first field that fails it. A list, not a map: a run keeps one per
	// object with pods, and a map of two findings took a kilobyte.
	anchors []pssAnchor
	// custom is the kind of the custom resource whose pod template this
	// is (customworkload.go), "" for the built-in kinds.
	custom string
}

// pssAnchor is where a namespace-level finding about level points.
type pssAnchor struct {
	level api.Level
	at    Finding
}

// anchor returns where a namespace-level finding about level points, and
// whether there is such a place.
func (st *pssState) anchor(level api.Level) (Finding, bool) {
	for _, a := range st.anchors {
		if a.level == level {
			return a.at, true
		}
	}
	return Finding{}, false
}

// setAnchor makes at where a namespace-level finding about level points.
func (st *pssState) setAnchor(level api.Level, at Finding) {
	for i := range st.anchors {
		if st.anchors[i].level == level {
			st.anchors[i].at = at
			return
		}
	}
	st.anchors = append(st.anchors, pssAnchor{level: level, at: at})
}

// checkPodSecurity evaluates an object the API tier accepted: its pods
// against the Pod Security Standards, or, for a Namespace, its Pod Security
// labels.
func (c *checked) checkPodSecurity(versioned runtime.Object, restricted bool) error {
	if ns, ok := versioned.(*corev1.Namespace); ok {
		if labels := podSecurityLabels(ns.Labels); len(labels) > 0 {
			c.set().nsLabels = labels
		}
		return nil
	}
	st, err := podSecurityOf(versioned, restricted, c.at, "")
	if st != nil {
		c.pss = append(c.pss, st)
	}
	return err
}

// podSecurityOf evaluates the pods of a decoded, defaulted object; nil
// when it has none, or every level allows them. place puts a finding at a
// field of versioned. custom, when set, is the kind of the custom resource
// versioned's pod template is in (customworkload.go): admission checks
// none of its fields, so the findings are advice about the pods it makes.
func podSecurityOf(versioned runtime.Object, restricted bool, place func(rule string, sev Severity, field, msg string) Finding, custom string) (*pssState, error) {
	levels := []api.Level{api.LevelBaseline}
	if restricted {
		levels = append(levels, api.LevelRestricted)
	}
	res, ok, err := podsecurity.Evaluate(versioned, levels...)
	if err != nil || !ok || res.Restricted == "" {
		return nil, err
	}
	st := &pssState{res: res, custom: custom}
	for _, v := range res.Violations {
		rule := podsecurity.RuleBaseline
		if v.Level == api.LevelRestricted {
			rule = podsecurity.RuleRestricted
		}
		msg := fmt.Sprintf("%s: forbidden by the %s Pod Security Standard", v.Message, v.Level)
		if custom != "" {
			msg += fmt.Sprintf(" (in the pods made from this %s's template, which the API server does not check)", custom)
		}
		f := place(rule, SeverityWarning, v.Field, msg)
		f.container = v.Container
		st.findings = append(st.findings, f)
		// Admission lists baseline checks first: a level's finding
		// points at the first field its message names.
		if _, ok := st.anchor(v.Level); !ok {
			st.anchors = append(st.anchors, pssAnchor{level: v.Level, at: f})
		}
	}
	// A namespace-level finding about restricted points where baseline's
	// does, failing both.
	if b, ok := st.anchor(api.LevelBaseline); ok {
		st.setAnchor(api.LevelRestricted, b)
	} else if _, ok := st.anchor(api.LevelRestricted); !ok {
		st.setAnchor(api.LevelRestricted, place(podsecurity.RuleRestricted, SeverityWarning, res.SpecField, ""))
	}
	st.res.Violations = nil // placed in findings
	return st, nil
}

// applyPodSecurity reports the Pod Security findings once every object is
// known: where the input holds the object's Namespace with Pod Security
// labels, what admission does with them (pss/enforce, pss/warn,
// pss/audit); elsewhere, each failing check (pss/baseline, and
// pss/restricted when enabled). A namespace the input does not hold takes
// its labels from the cluster (b.NamespaceLabels, lint --live and
// --against-live), the same way.
func applyPodSecurity(all []*checked, b *Baseline) {
	policies := map[string]map[string]string{}
	if b != nil {
		for name, labels := range b.NamespaceLabels {
			if pss := podSecurityLabels(labels); len(pss) > 0 {
				policies[name] = pss
			}
		}
	}
	inInput := map[string]bool{}
	for _, c := range all {
		if c.ref.Kind == "Namespace" && c.ref.APIVersion == "v1" {
			// The input's Namespace is what would be applied: it
			// replaces the cluster's, labels and all.
			if !inInput[c.ref.Name] {
				delete(policies, c.ref.Name)
			}
			inInput[c.ref.Name] = true
			if len(c.get().nsLabels) > 0 {
				policies[c.ref.Name] = c.get().nsLabels
			}
		}
	}
	for _, c := range all {
		for _, st := range c.pss {
			labels, ok := policies[c.ref.Namespace]
			if !ok {
				c.findings = append(c.findings, st.findings...)
				continue
			}
			// The API server's default configuration: privileged:latest
			// for each mode, which a label replaces.
			privileged := api.LevelVersion{Level: api.LevelPrivileged, Version: api.LatestVersion()}
			p, _ := api.PolicyToEvaluate(labels, api.Policy{Enforce: privileged, Audit: privileged, Warn: privileged})
			c.findings = append(c.findings, st.namespaceFindings(c.ref, p)...)
		}
	}
}

// podSecurityLabels returns the Pod Security labels among labels, nil when
// there are none.
func podSecurityLabels(labels map[string]string) map[string]string {
	var out map[string]string
	for k, v := range labels {
		if strings.HasPrefix(k, podSecurityLabelPrefix) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// namespaceFindings mirrors Admission.EvaluatePod
// (k8s.io/pod-security-admission/admission): a Pod that fails the enforce
// level is refused, and gets no warnings; otherwise the warn level makes a
// warning and the audit level an audit annotation. A workload is not held
// to the enforce level (admission checks it only for pods), but every pod
// it creates is. Each level's checks are those of its latest version.
func (st *pssState) namespaceFindings(ref ObjectRef, p api.Policy) []Finding {
	var out []Finding
	at := func(lv api.LevelVersion, rule string, sev Severity, msg string) {
		f, _ := st.anchor(lv.Level)
		f.Rule, f.Severity, f.Message = rule, sev, msg
		out = append(out, f)
	}
	if st.custom != "" {
		st.customFindings(ref, p, at)
		return out
	}
	if d := st.res.Detail(p.Enforce.Level); d != "" {
		if st.res.Pod {
			err := fmt.Errorf("violates PodSecurity %q: %s", p.Enforce.String(), d)
			at(p.Enforce, podsecurity.RuleEnforce, SeverityError,
				apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, ref.Name, err).Error())
			return out
		}
		at(p.Enforce, podsecurity.RuleEnforce, SeverityError, fmt.Sprintf(
			"would violate PodSecurity %q: %s; the API server accepts the %s, but namespace %s refuses every pod it creates (enforce=%s), so the rollout never makes progress",
			p.Enforce.String(), d, ref.Kind, ref.Namespace, p.Enforce.Level))
	}
	warned := false
	if d := st.res.Detail(p.Warn.Level); d != "" && !(p.Warn == p.Enforce && !st.res.Pod) {
		at(p.Warn, podsecurity.RuleWarn, SeverityWarning, fmt.Sprintf("would violate PodSecurity %q: %s", p.Warn.String(), d))
		warned = true
	}
	if d := st.res.Detail(p.Audit.Level); d != "" && p.Audit != p.Enforce && !(warned && p.Audit == p.Warn) {
		at(p.Audit, podsecurity.RuleAudit, SeverityWarning, fmt.Sprintf(
			"would violate PodSecurity %q: %s (recorded in the API server's audit log)", p.Audit.String(), d))
	}
	return out
}

// customFindings are namespaceFindings for the pod template of a custom
// resource. Pod Security admission checks pods and the built-in kinds
// that make them (DefaultPodSpecExtractor,
// k8s.io/pod-security-admission/admission), never a custom resource: the
// API server accepts it and warns of nothing. Its controller's pods are
// checked when they are created, with what the namespace's labels say:
// refused at the enforce level, a warning that goes to the controller (not
// to kubectl) at the warn level, and an audit annotation at the audit
// level. Each finding says so; none is an API server rejection.
func (st *pssState) customFindings(ref ObjectRef, p api.Policy, at func(api.LevelVersion, string, Severity, string)) {
	if d := st.res.Detail(p.Enforce.Level); d != "" {
		at(p.Enforce, podsecurity.RuleEnforce, SeverityError, fmt.Sprintf(
			"pods made from this template would violate PodSecurity %q: %s; the API server accepts the %s (Pod Security admission does not check custom resources), but namespace %s refuses every pod made from it (enforce=%s), so its rollout never makes progress",
			p.Enforce.String(), d, ref.Kind, ref.Namespace, p.Enforce.Level))
	}
	warned := false
	if d := st.res.Detail(p.Warn.Level); d != "" && p.Warn != p.Enforce {
		at(p.Warn, podsecurity.RuleWarn, SeverityWarning, fmt.Sprintf(
			"pods made from this template would violate PodSecurity %q: %s; kubectl apply shows no warning for the %s (Pod Security admission does not check custom resources): namespace %s warns the controller that creates the pods (warn=%s)",
			p.Warn.String(), d, ref.Kind, ref.Namespace, p.Warn.Level))
		warned = true
	}
	if d := st.res.Detail(p.Audit.Level); d != "" && p.Audit != p.Enforce && !(warned && p.Audit == p.Warn) {
		at(p.Audit, podsecurity.RuleAudit, SeverityWarning, fmt.Sprintf(
			"pods made from this template would violate PodSecurity %q: %s (recorded in the API server's audit log as each pod is created; the %s itself is not checked)",
			p.Audit.String(), d, ref.Kind))
	}
}

// containerField finds the container a field path is in:
// "spec.template.spec.containers[1].image" → "spec.template.spec.containers[1]".
var containerField = regexp.MustCompile(`^(.*(?:initContainers|containers|ephemeralContainers)\[\d+\])`)

// nameContainers sets the container of c's findings whose field is in a
// container, from the object as written, so that exemptions can name
// containers. The object is decoded only when a finding needs it.
func (c *checked) nameContainers() {
	var obj any
	decoded := false
	for i := range c.findings {
		f := &c.findings[i]
		if f.container != "" {
			continue
		}
		m := containerField.FindStringSubmatch(f.Field)
		if m == nil {
			continue
		}
		if !decoded {
			decoded = true
			if err := json.Unmarshal(c.obj.JSON, &obj); err != nil {
				return
			}
		}
		if name, ok := fieldValue(obj, m[1]+".name").(string); ok {
			f.container = name
		}
	}
}

// fieldValue returns the value at a field path ("a.b[2].c") in a decoded
// JSON value, nil when there is none.
func fieldValue(v any, path string) any {
	for _, seg := range strings.Split(path, ".") {
		name, index, hasIndex := strings.Cut(seg, "[")
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[name]
		if hasIndex {
			i, err := strconv.Atoi(strings.TrimSuffix(index, "]"))
			list, ok := v.([]any)
			if err != nil || !ok || i < 0 || i >= len(list) {
				return nil
			}
			v = list[i]
		}
	}
	return v
}
