package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/internal/podsecurity"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// This file gives custom workloads (custom resources that hold a pod
// template, such as Argo Rollouts' Rollout) the pod-level built-in rules
// and the Pod Security checks, at the template's lines.
//
// The API server checks a custom resource against its CRD only: Pod
// Security admission and the core API's pod validation never see its
// template. What is reported here is therefore advice about the pods its
// controller will make (it is created from the same template, defaulted as
// the API server defaults a ReplicaSet's), never an API rejection.

// builtinCustomWorkloads are the template paths lint knows, each checked
// against the project's CRD schema, where the path is a
// core/v1 PodTemplateSpec:
//
//   - argoproj.io Rollout: spec.template (argo-rollouts
//     manifests/crds/rollout-crd.yaml); a Rollout with spec.workloadRef
//     has none, and its Deployment is linted as such;
//   - argoproj.io Experiment: spec.templates[].template
//     (manifests/crds/experiment-crd.yaml);
//   - apps.kruise.io CloneSet, StatefulSet (Advanced StatefulSet) and
//     DaemonSet (Advanced DaemonSet): spec.template, a v1.PodTemplateSpec in
//     OpenKruise's Go types (apis/apps/v1alpha1 and v1beta1), which its CRDs
//     leave schemaless.
//
// The configuration's customWorkloads add others, or replace these.
var builtinCustomWorkloads = map[schema.GroupKind][]string{
	{Group: "argoproj.io", Kind: "Rollout"}:        {"spec.template"},
	{Group: "argoproj.io", Kind: "Experiment"}:     {"spec.templates[*].template"},
	{Group: "apps.kruise.io", Kind: "CloneSet"}:    {"spec.template"},
	{Group: "apps.kruise.io", Kind: "StatefulSet"}: {"spec.template"},
	{Group: "apps.kruise.io", Kind: "DaemonSet"}:   {"spec.template"},
}

// customWorkloadPaths returns the template paths of every custom workload
// kind of a run: the built-in ones, then those of the configuration, an
// entry of which replaces the built-in paths of its group and kind.
func customWorkloadPaths(settings *config.File) map[schema.GroupKind][]string {
	out := make(map[schema.GroupKind][]string, len(builtinCustomWorkloads))
	for gk, paths := range builtinCustomWorkloads {
		out[gk] = paths
	}
	if settings == nil {
		return out
	}
	seen := map[schema.GroupKind]bool{}
	for _, w := range settings.CustomWorkloads {
		gk := schema.GroupKind{Group: w.APIGroup, Kind: w.Kind}
		if !seen[gk] {
			out[gk] = nil
			seen[gk] = true
		}
		out[gk] = append(out[gk], w.Templates...)
	}
	return out
}

// podTemplate is one pod template found in a custom resource.
type podTemplate struct {
	// path is its field path in the object, list items by index
	// ("spec.templates[1].template").
	path  string
	value any
}

// findTemplates returns the values at a template path ("a.b[*].c") of a
// decoded object, with their concrete paths; a path that is not there, or
// that holds no JSON object, gives nothing.
func findTemplates(obj any, path string) []podTemplate {
	var out []podTemplate
	var walk func(v any, segs []string, at string)
	walk = func(v any, segs []string, at string) {
		if len(segs) == 0 {
			if _, ok := v.(map[string]any); ok {
				out = append(out, podTemplate{path: at, value: v})
			}
			return
		}
		name, list := strings.CutSuffix(segs[0], "[*]")
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		next, ok := m[name]
		if !ok {
			return
		}
		if at != "" {
			at += "."
		}
		at += name
		if !list {
			walk(next, segs[1:], at)
			return
		}
		items, _ := next.([]any)
		for i, item := range items {
			walk(item, segs[1:], fmt.Sprintf("%s[%d]", at, i))
		}
	}
	walk(obj, strings.Split(path, "."), "")
	return out
}

// checkCustomWorkloads runs the pod-level checks on the pod templates of
// every custom workload of the run that its CRD does not reject (rejected
// holds those it does; a custom resource whose CRD is not in sight is
// checked too, as its template's schema is known).
func (l *Linter) checkCustomWorkloads(ctx context.Context, customs []*checked, rejected map[*checked]bool, goRules *rules.Runner, opts Options) {
	paths := customWorkloadPaths(opts.Settings)
	var todo []*checked
	var todoPaths [][]string
	for _, c := range customs {
		gv, err := schema.ParseGroupVersion(c.get().custom.APIVersion)
		if err != nil || rejected[c] {
			continue
		}
		if p := paths[schema.GroupKind{Group: gv.Group, Kind: c.get().custom.Kind}]; len(p) > 0 {
			todo = append(todo, c)
			todoPaths = append(todoPaths, p)
		}
	}
	restricted := opts.Settings.Enabled(podsecurity.RuleRestricted) && !opts.Settings.Disabled(podsecurity.RuleRestricted)
	parallel(ctx, len(todo), func(i int) {
		c := todo[i]
		var obj any
		if err := json.Unmarshal(c.get().custom.JSON, &obj); err != nil {
			return // the loader parsed it: cannot happen
		}
		var found []podTemplate
		for _, p := range todoPaths[i] {
			found = append(found, findTemplates(obj, p)...)
		}
		sort.Slice(found, func(a, b int) bool { return found[a].path < found[b].path })
		for j, t := range found {
			if j > 0 && found[j-1].path == t.path {
				continue // two configured paths reach the same template
			}
			l.checkPodTemplate(ctx, c, t, restricted, goRules)
		}
	})
}

// templateObjectName names the PodTemplate a custom workload's template
// is checked as: the custom resource's own name need not be one a
// PodTemplate may have, and no message shows it.
const templateObjectName = "custom-workload-template"

// checkPodTemplate checks one pod template of a custom resource as the
// API server would a PodTemplate holding it: decoded and defaulted, then
// the Pod Security Standards and the per-object Go rules that run on a
// PodTemplate (the pod-level rules), with their findings moved from the
// PodTemplate's "template" to the template's path in the custom resource.
// A template that is no valid PodTemplateSpec gets no findings here: the
// rules read only what the API server accepts.
func (l *Linter) checkPodTemplate(ctx context.Context, c *checked, t podTemplate, restricted bool, goRules *rules.Runner) {
	js, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "PodTemplate",
		"metadata": map[string]any{"name": templateObjectName, "namespace": c.ref.Namespace}, "template": t.value})
	if err != nil {
		return
	}
	res := l.api.Check(ctx, apicheck.Object{APIVersion: "v1", Kind: "PodTemplate", Namespace: c.ref.Namespace,
		Name: templateObjectName, JSON: js}, apicheck.Options{Namespace: c.ref.Namespace})
	for _, is := range res.Issues {
		if !is.Warning {
			return
		}
	}
	pt, ok := res.Versioned.(*corev1.PodTemplate)
	if !ok {
		return
	}
	// Messages that name the object's kind name the custom resource's.
	pt.Kind = c.ref.Kind
	field := func(f string) string {
		if rest, ok := strings.CutPrefix(f, "template"); ok && (rest == "" || rest[0] == '.') {
			return t.path + rest
		}
		return t.path
	}
	place := func(rule string, sev Severity, f, msg string) Finding {
		found := c.customAt(rule, sev, field(f), msg)
		found.container = containerName(pt, f)
		return found
	}
	st, err := podSecurityOf(pt, restricted, place, c.ref.Kind)
	if err != nil {
		c.addErr(fmt.Errorf("%s: document %d: %s: %s: %w", c.file, c.document, c.ref, t.path, err))
	}
	if st != nil {
		c.pss = append(c.pss, st)
	}
	if goRules == nil {
		return
	}
	for _, f := range goRules.Eval(&rules.ObjectContext{Object: pt, JSON: js, Kind: "PodTemplate", APIVersion: "v1",
		Name: c.ref.Name, Namespace: c.ref.Namespace, Key: rules.Key(c.ref.Kind, c.ref.Name)}) {
		sev, err := ParseSeverity(f.Severity)
		if err != nil {
			c.addErr(fmt.Errorf("rule %s: %w", f.RuleID, err))
			return
		}
		found := place(f.RuleID, sev, f.Path, f.Message)
		found.Related = f.Related
		c.findings = append(c.findings, found)
	}
}

// containerName returns the name of the container a PodTemplate's field
// is in ("template.spec.containers[1].image"), "" when it is in none.
func containerName(pt *corev1.PodTemplate, field string) string {
	m := containerField.FindStringSubmatch(field)
	if m == nil {
		return ""
	}
	list, index, _ := strings.Cut(strings.TrimPrefix(m[1], "template.spec."), "[")
	var i int
	if _, err := fmt.Sscanf(index, "%d]", &i); err != nil {
		return ""
	}
	var cs []corev1.Container
	switch list {
	case "containers":
		cs = pt.Template.Spec.Containers
	case "initContainers":
		cs = pt.Template.Spec.InitContainers
	case "ephemeralContainers":
		if i >= 0 && i < len(pt.Template.Spec.EphemeralContainers) {
			return pt.Template.Spec.EphemeralContainers[i].Name
		}
		return ""
	}
	if i < 0 || i >= len(cs) {
		return ""
	}
	return cs[i].Name
}
