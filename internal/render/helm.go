package render

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	release "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"helm.sh/helm/v4/pkg/strvals"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// helm renders the chart in dir as helm template does (client-only dry run
// of an install, hooks included, CRDs in crds/ not), and maps each rendered
// document to its template through the "# Source:" comment helm writes.
// Its links may lead anywhere in root (see checkChartFiles).
func (r *Renderer) helm(dir, root string) rendered {
	name := manifest.RenderedName(dir, manifest.Chart)
	chartFile := filepath.Join(dir, "Chart.yaml")
	fail := func(file string, pos manifest.Pos, msg string) rendered {
		if pos.Line == 0 {
			pos = manifest.Pos{Line: 1, Column: 1}
		}
		return rendered{failed: &manifest.Set{Files: 1, Problems: []manifest.Problem{{Source: manifest.Source{File: file},
			Kind: manifest.Unparsable, Pos: pos, Message: msg}}}}
	}
	if err := checkChartFiles(dir, root); err != nil {
		return fail(chartFile, manifest.Pos{}, fmt.Sprintf("helm: chart %s: %v", dir, err))
	}
	chrt, err := loader.Load(dir)
	if err != nil {
		return fail(chartFile, manifest.Pos{}, fmt.Sprintf("helm: load chart %s: %v", dir, err))
	}
	if missing := missingDependencies(chrt); len(missing) > 0 {
		line := keyLineIn(chartFile, "dependencies")
		return fail(chartFile, manifest.Pos{Line: line, Column: 1}, fmt.Sprintf(
			"helm: chart %s depends on %s, not vendored in %s; there is no network here: run helm dependency build and commit charts/, or lint the rendered output",
			chrt.Name(), strings.Join(missing, ", "), filepath.Join(dir, "charts")))
	}
	vals, err := mergeValues(r.opts)
	if err != nil {
		return fail(chartFile, manifest.Pos{}, fmt.Sprintf("helm: values for chart %s: %v", dir, err))
	}
	kv, err := common.ParseKubeVersion(r.opts.KubeVersion)
	if err != nil {
		return fail(chartFile, manifest.Pos{}, fmt.Sprintf("helm: invalid --kube-version %q: %v", r.opts.KubeVersion, err))
	}
	caps := common.DefaultCapabilities.Copy()
	caps.KubeVersion = *kv
	caps.APIVersions = apiVersions(r.opts)
	rel, err := renderChart(dir, chrt, vals, r.opts.ReleaseName, r.opts.Namespace, caps, r.opts.HelmTests)
	var refused *schemaRefusedError
	var badSchema *schemaFailedError
	switch {
	case errors.As(err, &refused):
		return fail(refused.file, manifest.Pos{}, "helm: "+oneLine(refused.Error()))
	case errors.As(err, &badSchema):
		return fail(badSchema.file, manifest.Pos{}, "helm: "+oneLine(badSchema.Error()))
	case err != nil:
		file, pos := helmErrorPlace(dir, chrt.Name(), err)
		if file == "" {
			file, pos = schemaErrorPlace(dir, err)
		}
		if file == "" {
			file = chartFile
		}
		return fail(file, pos, "helm: "+oneLine(err.Error()))
	}
	stream := helmStream(rel)
	return rendered{name: name, stream: []byte(stream), origin: newHelmOrigin(dir, chrt.Name(), stream)}
}

// renderChart renders the chart loaded from dir as helm install would on
// the target cluster, with helm template's code path: the client-only path
// of helm's Install.RunWithContext (pkg/action/install.go: dependencies
// processed, render values with schema validation (validateValues, which
// reads no schema outside the chart), capabilities caps: the chosen
// Kubernetes version and the API versions the cluster serves, which helm
// install reads from discovery) and Configuration.renderResources
// (pkg/action/action.go: the kubeVersion constraint, the engine, NOTES.txt
// left out, manifests sorted in install order with hooks apart; no CRDs, no
// post-renderer). Test hooks are left out unless tests is set: helm install
// does not create them, and helm template's --skip-tests drops them the same
// way (pkg/cmd/template.go). It does not use helm's action package, whose imports (the
// Kubernetes client, registries, storage drivers) cost every run of this
// binary their package initialisation, chart or not.
func renderChart(dir string, chrt *chart.Chart, vals map[string]any, name, namespace string, caps *common.Capabilities, tests bool) (*release.Release, error) {
	if err := chartutil.ProcessDependencies(chrt, vals); err != nil {
		return nil, fmt.Errorf("chart dependencies processing failed: %w", err)
	}
	options := common.ReleaseOptions{Name: name, Namespace: namespace, Revision: 1, IsInstall: true}
	values, err := util.ToRenderValuesWithSchemaValidation(chrt, vals, options, caps, true)
	if err != nil {
		return nil, err
	}
	coalesced, _ := values["Values"].(common.Values)
	if err := validateValues(dir, chrt, coalesced); err != nil {
		return nil, err
	}
	if c := chrt.Metadata.KubeVersion; c != "" && !chartutil.IsCompatibleRange(c, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", c, caps.KubeVersion.Version)
	}
	var e engine.Engine
	files, err := e.RenderWithContext(context.Background(), chrt, values)
	if err != nil {
		return nil, err
	}
	for k := range files {
		if strings.HasSuffix(k, "NOTES.txt") {
			delete(files, k)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	if !tests {
		hooks = slices.DeleteFunc(hooks, isTestHook)
	}
	var b strings.Builder
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	return &release.Release{Name: name, Namespace: namespace, Manifest: b.String(), Hooks: hooks}, nil
}

// isTestHook reports whether h runs on helm test, as helm template's
// --skip-tests tells (pkg/cmd/template.go, isTestHook).
func isTestHook(h *release.Hook) bool {
	return slices.Contains(h.Events, release.HookTest)
}

// servedAPIVersions are the API versions a v1.37.1 kube-apiserver serves by
// default, as helm install reads them from its discovery: each
// group/version and group/version/kind. The e2e test TestServedAPIVersions
// records them from the real server and checks them.
//
//go:embed served-api-versions.txt
var servedAPIVersions string

// apiVersions is .Capabilities.APIVersions for opts: the cluster's when
// known, else those servedAPIVersions lists, then --api-versions.
func apiVersions(opts Options) common.VersionSet {
	base := opts.ClusterAPIVersions
	if len(base) == 0 {
		base = strings.Fields(servedAPIVersions)
	}
	out := slices.Clone(base)
	for _, v := range opts.APIVersions {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return common.VersionSet(out)
}

// mergeValues merges the values files, then --set-json, --set,
// --set-string, --set-file and --set-literal, as helm's
// values.Options.MergeValues (pkg/cli/values) does; values files and
// --set-file files are local files only, read as the input's are (that
// package's getters, which fetch URLs, are not linked).
func mergeValues(opts Options) (map[string]any, error) {
	base := map[string]any{}
	for _, f := range opts.ValuesFiles {
		raw, err := readInput(f)
		if err != nil {
			return nil, err
		}
		cur, err := loader.LoadValues(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", f, err)
		}
		base = loader.MergeMaps(base, cur)
	}
	for _, v := range opts.SetJSON {
		if t := strings.TrimSpace(v); strings.HasPrefix(t, "{") {
			var m map[string]any
			if err := json.Unmarshal([]byte(t), &m); err != nil {
				return nil, fmt.Errorf("failed parsing --set-json data JSON: %s: %w", v, err)
			}
			base = loader.MergeMaps(base, m)
			continue
		}
		if err := strvals.ParseJSON(v, base); err != nil {
			return nil, fmt.Errorf("failed parsing --set-json data %s: %w", v, err)
		}
	}
	for _, v := range opts.Set {
		if err := strvals.ParseInto(v, base); err != nil {
			return nil, fmt.Errorf("failed parsing --set data: %w", err)
		}
	}
	for _, v := range opts.SetString {
		if err := strvals.ParseIntoString(v, base); err != nil {
			return nil, fmt.Errorf("failed parsing --set-string data: %w", err)
		}
	}
	for _, v := range opts.SetFile {
		read := func(rs []rune) (any, error) {
			data, err := readInput(string(rs))
			return string(data), err
		}
		if err := strvals.ParseIntoFile(v, base, read); err != nil {
			return nil, fmt.Errorf("failed parsing --set-file data: %w", err)
		}
	}
	for _, v := range opts.SetLiteral {
		if err := strvals.ParseLiteralInto(v, base); err != nil {
			return nil, fmt.Errorf("failed parsing --set-literal data: %w", err)
		}
	}
	return base, nil
}

// helmStream writes the release's manifest and hooks as helm template
// prints them (pkg/cmd/template.go, newTemplateCmd).
func helmStream(rel *release.Release) string {
	var b strings.Builder
	fmt.Fprintln(&b, strings.TrimSpace(rel.Manifest))
	for _, h := range rel.Hooks {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	return b.String()
}

// missingDependencies lists the dependencies Chart.yaml declares that are
// not in charts/ (as helm template's checkDependencies reports them), each
// with its repository.
func missingDependencies(c *chart.Chart) []string {
	if c.Metadata == nil {
		return nil
	}
	have := map[string]bool{}
	for _, d := range c.Dependencies() {
		have[d.Name()] = true
	}
	var missing []string
	for _, d := range c.Metadata.Dependencies {
		if d == nil || have[d.Name] {
			continue
		}
		s := d.Name
		if d.Version != "" {
			s += " " + d.Version
		}
		if d.Repository != "" {
			s += " from " + d.Repository
		}
		missing = append(missing, s)
	}
	return missing
}

// keyLineIn returns the line of a top-level key in a file, or 1.
func keyLineIn(file, key string) int {
	data, err := readInput(file)
	if err != nil {
		return 1
	}
	docs := scanKeys(string(data))
	for _, d := range docs {
		if k, exact, ok := findKey(d, key); ok && exact {
			return k.line
		}
	}
	return 1
}

var (
	// templatePlace finds "chart/templates/x.yaml:12:5" (or without the
	// column) in a template error.
	templatePlace = regexp.MustCompile(`([^\s:"()<>]+/templates/[^\s:"()<>]+):(\d+)(?::(\d+))?`)
	// yamlPlace finds "YAML parse error on chart/templates/x.yaml: ... line 5:".
	yamlPlace = regexp.MustCompile(`YAML parse error on ([^\s:]+):.*?line (\d+)`)
)

// helmErrorPlace finds where a rendering error points: the template and
// line text/template names, or the template whose output is not YAML.
func helmErrorPlace(dir, chartName string, err error) (string, manifest.Pos) {
	msg := err.Error()
	if m := yamlPlace.FindStringSubmatch(msg); m != nil {
		if file, ok := templateFile(dir, chartName, m[1]); ok {
			line, _ := strconv.Atoi(m[2])
			return file, manifest.Pos{Line: max(line, 1), Column: 1}
		}
	}
	if m := templatePlace.FindStringSubmatch(msg); m != nil {
		if file, ok := templateFile(dir, chartName, m[1]); ok {
			line, _ := strconv.Atoi(m[2])
			col := 1
			if m[3] != "" {
				col, _ = strconv.Atoi(m[3])
			}
			return file, manifest.Pos{Line: max(line, 1), Column: max(col, 1)}
		}
	}
	var ue interface{ Unwrap() []error }
	if errors.As(err, &ue) {
		for _, e := range ue.Unwrap() {
			if f, p := helmErrorPlace(dir, chartName, e); f != "" {
				return f, p
			}
		}
	}
	return "", manifest.Pos{}
}

// schemaPlace finds the value a values.schema.json error is about.
var schemaPlace = regexp.MustCompile(`values don't meet the specifications(?s:.*?)at '/([^']*)'`)

// schemaErrorPlace places a values.schema.json error at the value's key in
// the chart's values.yaml, where it is written there.
func schemaErrorPlace(dir string, err error) (string, manifest.Pos) {
	m := schemaPlace.FindStringSubmatch(err.Error())
	if m == nil {
		return "", manifest.Pos{}
	}
	values := filepath.Join(dir, "values.yaml")
	data, rerr := readInput(values)
	if rerr != nil {
		return "", manifest.Pos{}
	}
	field := strings.ReplaceAll(m[1], "/", ".")
	for _, doc := range scanKeys(string(data)) {
		if k, _, ok := findKey(doc, field); ok {
			return values, manifest.Pos{Line: k.line, Column: k.col}
		}
	}
	return values, manifest.Pos{Line: 1, Column: 1}
}

// templateFile turns a chart path as helm names templates
// ("web/charts/db/templates/x.yaml") into the file in dir, when it exists. A
// subchart is found in charts/ by its directory name, else by the name its
// Chart.yaml gives, or the alias the parent's dependencies give it.
func templateFile(dir, chartName, p string) (string, bool) {
	p = path.Clean(p)
	first, rest, ok := strings.Cut(p, "/")
	if !ok || first != chartName {
		return "", false
	}
	cur := dir
	segs := strings.Split(rest, "/")
	for i := 0; i < len(segs); i++ {
		if segs[i] == "charts" && i+1 < len(segs) && i+2 < len(segs) {
			sub, ok := subchartDir(cur, segs[i+1])
			if !ok {
				return "", false
			}
			cur = sub
			i++
			continue
		}
		cur = filepath.Join(cur, segs[i])
	}
	if !isRegular(cur) {
		return "", false
	}
	return cur, true
}

// subchartDir finds the directory of the subchart helm names name in
// chartDir/charts.
func subchartDir(chartDir, name string) (string, bool) {
	charts := filepath.Join(chartDir, "charts")
	if d := filepath.Join(charts, name); isRegular(filepath.Join(d, "Chart.yaml")) {
		return d, true
	}
	real := name
	var parent struct {
		Dependencies []struct{ Name, Alias string } `json:"dependencies"`
	}
	if data, err := readInput(filepath.Join(chartDir, "Chart.yaml")); err == nil && sigsyaml.Unmarshal(data, &parent) == nil {
		for _, d := range parent.Dependencies {
			if d.Alias == name && d.Name != "" {
				real = d.Name
			}
		}
	}
	if d := filepath.Join(charts, real); isRegular(filepath.Join(d, "Chart.yaml")) {
		return d, true
	}
	entries, err := os.ReadDir(charts)
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		var meta struct {
			Name string `json:"name"`
		}
		data, err := readInput(filepath.Join(charts, e.Name(), "Chart.yaml"))
		if err == nil && sigsyaml.Unmarshal(data, &meta) == nil && meta.Name == real {
			return filepath.Join(charts, e.Name()), true
		}
	}
	return "", false
}

func isRegular(name string) bool {
	info, err := os.Stat(name)
	return err == nil && info.Mode().IsRegular()
}

var spaces = regexp.MustCompile(`\s+`)

// oneLine puts a multi-line error on one line.
func oneLine(s string) string {
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// helmDoc is one rendered document: its template and which of the
// template's documents it is.
type helmDoc struct {
	source string // the template as helm names it
	index  int    // among the rendered documents of that template
	// kind is the document's kind, and kindIndex its index among the
	// rendered documents of that template and kind.
	kind      string
	kindIndex int
}

// helmOrigin maps a chart's rendered documents to their templates.
type helmOrigin struct {
	dir, chartName string
	docs           []helmDoc
	perSource      map[string]int
	perSourceKind  map[string]int // by source and kind, joined by a NUL

	mu    sync.Mutex
	keys  map[string][][]keyLine // a template's keys, by document
	kinds map[string][]string    // a template's literal kinds, by document
}

// newHelmOrigin reads the "# Source:" comment of each document of the
// stream that manifest counts (one holding more than comments).
func newHelmOrigin(dir, chartName, stream string) *helmOrigin {
	o := &helmOrigin{dir: dir, chartName: chartName, perSource: map[string]int{}, perSourceKind: map[string]int{},
		keys: map[string][][]keyLine{}, kinds: map[string][]string{}}
	for _, chunk := range splitDocs(stream) {
		source, blank := "", true
		for _, l := range strings.Split(chunk, "\n") {
			t := strings.TrimSpace(l)
			if s, ok := strings.CutPrefix(t, "# Source: "); ok && source == "" {
				source = s
			}
			if t != "" && !strings.HasPrefix(t, "#") && t != "..." {
				blank = false
			}
		}
		if blank {
			continue
		}
		kind := docKind(chunk)
		o.docs = append(o.docs, helmDoc{source: source, index: o.perSource[source], kind: kind,
			kindIndex: o.perSourceKind[source+"\x00"+kind]})
		o.perSource[source]++
		o.perSourceKind[source+"\x00"+kind]++
	}
	return o
}

// kindLine is a top-level "kind: X" line, X written out (not a template
// action).
var kindLine = regexp.MustCompile(`(?m)^kind:[ \t]*["']?([A-Za-z0-9]+)["']?[ \t]*(?:#.*)?$`)

// docKind is the kind a document's top-level kind line names, or "".
func docKind(doc string) string {
	if m := kindLine.FindStringSubmatch(doc); m != nil {
		return m[1]
	}
	return ""
}

// templateDocFor finds the document of a template that rendered d when the
// template's documents and the rendered ones do not pair one to one (a
// "---" inside {{ if }}, a document left out by its condition): the
// template documents whose literal kind is d's, paired in order with the
// rendered documents of that kind when they are as many, or the only one.
// It returns the document's index among the template's documents.
func (o *helmOrigin) templateDocFor(d helmDoc, kinds []string) (int, bool) {
	if d.kind == "" {
		return 0, false
	}
	var candidates []int
	for i, k := range kinds {
		if k == d.kind {
			candidates = append(candidates, i)
		}
	}
	switch {
	case len(candidates) == 1:
		return candidates[0], true
	case len(candidates) > 1 && len(candidates) == o.perSourceKind[d.source+"\x00"+d.kind]:
		return candidates[d.kindIndex], true
	}
	return 0, false
}

// splitDocs splits a YAML stream at lines starting with "---", as manifest
// does.
func splitDocs(stream string) []string {
	var out []string
	var cur bytes.Buffer
	for _, l := range strings.SplitAfter(stream, "\n") {
		if strings.HasPrefix(l, "---") {
			out = append(out, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(l)
	}
	return append(out, cur.String())
}

// Locate implements manifest.Origin: the template line of the field's key
// where the key path is written once in the template's document, else that
// of its nearest such ancestor, else the document's first key.
func (o *helmOrigin) Locate(document int, field string) (manifest.Location, bool) {
	if document < 0 || document >= len(o.docs) {
		return manifest.Location{}, false
	}
	d := o.docs[document]
	file, ok := templateFile(o.dir, o.chartName, d.source)
	if !ok {
		return manifest.Location{}, false
	}
	docs, kinds := o.templateKeys(file)
	var keys []keyLine
	doc := 0
	// The document's kind finds it first: helm sorts a template's
	// documents in install order (a ServiceAccount before a Service before
	// a Deployment), so the n-th rendered is not the template's n-th.
	if i, ok := o.templateDocFor(d, kinds); ok {
		keys = docs[i]
		doc = len(nonEmpty(docs[:i]))
	} else if n := o.perSource[d.source]; len(nonEmpty(docs)) == n {
		keys = nonEmpty(docs)[d.index]
		doc = d.index
	} else {
		for _, k := range docs {
			keys = append(keys, k...)
		}
	}
	loc := manifest.Location{File: file, Document: doc, Pos: manifest.Pos{Line: 1, Column: 1}}
	if k, ok := firstKey(keys); ok {
		loc.Pos = manifest.Pos{Line: k.line, Column: k.col}
	}
	if field == "" {
		return loc, true
	}
	if k, _, ok := findKey(keys, field); ok {
		loc.Pos = manifest.Pos{Line: k.line, Column: k.col}
	}
	return loc, true
}

func nonEmpty(docs [][]keyLine) [][]keyLine {
	var out [][]keyLine
	for _, d := range docs {
		if len(d) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// templateKeys returns a template's keys and literal kinds, by document
// (documents as scanKeys splits them).
func (o *helmOrigin) templateKeys(file string) ([][]keyLine, []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if k, ok := o.keys[file]; ok {
		return k, o.kinds[file]
	}
	data, err := readInput(file)
	var k [][]keyLine
	var kinds []string
	if err == nil {
		k = scanKeys(string(data))
		for _, doc := range splitDocs(string(data)) {
			kinds = append(kinds, docKind(doc))
		}
	}
	o.keys[file], o.kinds[file] = k, kinds
	return k, kinds
}
