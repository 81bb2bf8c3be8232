package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-workload/kubectl-workload/internal/admissionpolicy"
	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// This file checks custom resources against their CustomResourceDefinitions,
// which come from the input, from --crds (Options.CRDPaths) and from the
// cluster (Baseline.CRDs). The CRD machinery runs only when the run holds a
// custom resource: a run of built-in kinds pays nothing for it.

// keepCustom keeps, past the first pass, the parsed object of a custom
// resource, a CRD or a ValidatingAdmissionPolicy or binding (policies.go): custom resources are checked when every CRD of the run
// is known, after the files are loaded.
func keepCustom(c *checked, obj *manifest.Object) {
	if apicheck.IsCRD(obj.APIVersion, obj.Kind) || apicheck.CustomResource(obj.APIVersion, obj.Kind) ||
		admissionpolicy.IsPolicy(obj.APIVersion, obj.Kind) {
		c.set().custom = obj
	}
}

// crdSources gathers the run's CRDs: the cluster's first, then those of
// --crds, then the input's, a later one of a group and kind replacing an
// earlier one as a later apply would. Files of --crds that cannot be read
// are errors of the run.
func crdSources(opts Options, all []*checked, res *Result) *apicheck.CRDs {
	crds := apicheck.NewCRDs()
	add := func(obj *manifest.Object) {
		if err := crds.Add(obj.JSON, obj.File); err != nil {
			res.Errors = append(res.Errors, err)
		}
	}
	if opts.Baseline != nil {
		for _, obj := range opts.Baseline.CRDs {
			add(obj)
		}
	}
	load := func(paths []string, what string) {
		set := manifest.Load(paths, nil)
		for _, p := range set.Problems {
			res.Errors = append(res.Errors, fmt.Errorf("%s: %s", what, p.Message))
		}
		for _, obj := range set.Objects {
			if apicheck.IsCRD(obj.APIVersion, obj.Kind) {
				add(obj)
			}
		}
	}
	if len(opts.CRDPaths) > 0 {
		load(crdPaths(opts.CRDPaths), "--crds")
	}
	if dirs := chartCRDDirs(all); len(dirs) > 0 {
		load(dirs, "a chart's crds/")
	}
	for _, c := range all {
		if c.get().custom != nil && apicheck.IsCRD(c.get().custom.APIVersion, c.get().custom.Kind) {
			add(c.get().custom)
		}
	}
	return crds
}

// chartCRDDirs lists the crds/ folders of the charts the run rendered, and
// of their subcharts kept as directories in charts/: helm install applies
// them before the templates (pkg/action/install.go, Chart.CRDObjects), so
// the charts' custom resources are checked against them, as if given with
// --crds. (A subchart kept as an archive is not opened here.)
func chartCRDDirs(all []*checked) []string {
	seen := map[string]bool{}
	var out []string
	var add func(chart string, depth int)
	add = func(chart string, depth int) {
		if seen[chart] || depth > maxSubchartDepth {
			return
		}
		seen[chart] = true
		if info, err := os.Stat(filepath.Join(chart, "crds")); err == nil && info.IsDir() {
			out = append(out, filepath.Join(chart, "crds"))
		}
		subs, _ := filepath.Glob(filepath.Join(chart, "charts", "*", "Chart.yaml"))
		for _, s := range subs {
			add(filepath.Dir(s), depth+1)
		}
	}
	for _, c := range all {
		if dir, ok := strings.CutSuffix(c.file, "@helm-template"); ok {
			add(dir, 0)
		}
	}
	sort.Strings(out)
	return out
}

// maxSubchartDepth bounds how deep chartCRDDirs looks for subcharts.
const maxSubchartDepth = 8

// crdPaths reads a chart directory (one with a Chart.yaml) named by --crds
// as its crds/ folder, where Helm keeps the CRDs it installs before the
// templates.
func crdPaths(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(p, "Chart.yaml")); err == nil {
			p = filepath.Join(p, "crds")
		}
		out = append(out, p)
	}
	return out
}

// checkCustomResources checks every custom resource of the run against its
// CRD, as the API server would on apply: created, or, when the baseline
// holds its stored version (--against-live, --base-ref), updated, where
// the CRD's transition rules (oldSelf) run. A kind whose CRD is nowhere in
// sight gets one info, on its first object.
//
// Custom workloads the CRD does not reject then get the pod-level checks
// on their pod templates (customworkload.go), with goRules, the run's built-in
// rules (nil: none).
//
// It returns the run's CRDs, or nil when the run holds no custom resource.
func (l *Linter) checkCustomResources(ctx context.Context, all []*checked, opts Options, res *Result, goRules *rules.Runner) *apicheck.CRDs {
	var customs []*checked
	for _, c := range all {
		if c.get().custom != nil && apicheck.CustomResource(c.get().custom.APIVersion, c.get().custom.Kind) {
			customs = append(customs, c)
		}
	}
	if len(customs) == 0 {
		return nil
	}
	crds := crdSources(opts, all, res)
	missing := map[schema.GroupKind][]*checked{}
	refused := make([]bool, len(customs)) // by index: each worker owns its own
	parallel(ctx, len(customs), func(i int) {
		c := customs[i]
		if !crds.Defines(c.get().custom.APIVersion, c.get().custom.Kind) {
			return
		}
		r := l.checkCustom(ctx, crds, c, opts)
		for _, is := range r.Issues {
			sev := SeverityError
			if is.Warning {
				sev = SeverityWarning
			} else {
				refused[i] = true
			}
			c.findings = append(c.findings, c.customAt(is.Rule, sev, is.Field, is.Message))
		}
	})
	rejected := map[*checked]bool{}
	for i, c := range customs {
		if refused[i] {
			rejected[c] = true
		}
	}
	l.checkCustomWorkloads(ctx, customs, rejected, goRules, opts)
	for _, c := range customs {
		if !crds.Defines(c.get().custom.APIVersion, c.get().custom.Kind) {
			gv, _ := schema.ParseGroupVersion(c.get().custom.APIVersion)
			gk := gv.WithKind(c.get().custom.Kind).GroupKind()
			missing[gk] = append(missing[gk], c)
		}
	}
	gks := make([]schema.GroupKind, 0, len(missing))
	for gk := range missing {
		gks = append(gks, gk)
	}
	sort.Slice(gks, func(i, j int) bool { return gks[i].String() < gks[j].String() })
	for _, gk := range gks {
		objs := missing[gk]
		sort.SliceStable(objs, func(i, j int) bool {
			if objs[i].file != objs[j].file {
				return objs[i].file < objs[j].file
			}
			return objs[i].document < objs[j].document
		})
		first := objs[0]
		first.findings = append(first.findings, first.customAt(apicheck.RuleCRDMissing, SeverityInfo, "apiVersion",
			missingCRDMessage(gk, len(objs), opts.Baseline)))
	}
	return crds
}

// missingCRDMessage says that nothing checked a kind's objects and which
// flag would.
func missingCRDMessage(gk schema.GroupKind, n int, b *Baseline) string {
	objects := "1 object"
	if n > 1 {
		objects = fmt.Sprintf("%d objects", n)
	}
	msg := fmt.Sprintf("no CustomResourceDefinition for %s is in sight, so the API server's checks of its schema and rules did not run (%s): give its CRD with --crds PATH (a file, a directory, or a chart's crds/ folder), or read the cluster's with --live or --against-live",
		gk.String(), objects)
	if b != nil && b.CRDNote != "" {
		msg += "; " + b.CRDNote
	}
	return msg
}

// checkCustom runs the API server's create or update path on one custom
// resource.
func (l *Linter) checkCustom(ctx context.Context, crds *apicheck.CRDs, c *checked, opts Options) apicheck.Result {
	obj := c.get().custom
	o := apicheck.Object{APIVersion: obj.APIVersion, Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name, JSON: obj.JSON}
	aopts := apicheck.Options{Namespace: opts.Namespace}
	b := opts.Baseline
	if b == nil || b.Previous == nil {
		return crds.CheckCustom(ctx, o, aopts)
	}
	prev := b.Previous(obj, c.ref)
	if prev == nil {
		return crds.CheckCustom(ctx, o, aopts)
	}
	applied, err := apicheck.AppliedCustom(prev, o)
	if err != nil {
		return apicheck.Result{Checked: true, Issues: []apicheck.Issue{{Rule: apicheck.RuleInternal,
			Message: fmt.Sprintf("cannot compute what kubectl apply would send: %v", err)}}}
	}
	stored := o
	stored.JSON = prev
	return crds.CheckCustomUpdate(ctx, stored, applied, aopts)
}

// customAt places a finding at a field of a custom resource. The server
// names list items of a custom resource by index, and map keys after a dot:
// Position reads both.
func (c *checked) customAt(rule string, sev Severity, fieldPath, msg string) Finding {
	pos, _ := c.get().custom.Position(strings.TrimPrefix(fieldPath, "<nil>"))
	return Finding{Rule: rule, Severity: sev, Message: msg, File: c.file, Document: c.document,
		Line: pos.Line, Column: pos.Column, Field: fieldPath, Object: &c.ref}
}
