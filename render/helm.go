package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/cli/values"
	"helm.sh/helm/v4/pkg/getter"
	release "helm.sh/helm/v4/pkg/release/v1"

	"github.com/kubectl-workload/kubectl-workload/manifest"
)

// checkKubeVersion checks a --kube-version as helm template does.
func checkKubeVersion(v string) error {
	if _, err := common.ParseKubeVersion(v); err != nil {
		return fmt.Errorf("invalid --kube-version %q: %w", v, err)
	}
	return nil
}

// helm renders the chart in dir as helm template does (client-only dry run
// of an install, hooks included, CRDs in crds/ not), and maps each rendered
// document to its template through the "# Source:" comment helm writes.
func (r *Renderer) helm(dir string) *manifest.Set {
	name := manifest.RenderedName(dir, manifest.Chart)
	chartFile := filepath.Join(dir, "Chart.yaml")
	fail := func(file string, pos manifest.Pos, msg string) *manifest.Set {
		if pos.Line == 0 {
			pos = manifest.Pos{Line: 1, Column: 1}
		}
		return &manifest.Set{Files: 1, Problems: []manifest.Problem{{Source: manifest.Source{File: file},
			Kind: manifest.Unparsable, Pos: pos, Message: msg}}}
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
	vopts := &values.Options{ValueFiles: r.opts.ValuesFiles, Values: r.opts.Set, StringValues: r.opts.SetString}
	vals, err := vopts.MergeValues(getter.Providers{}) // no getters: values files are local files
	if err != nil {
		return fail(chartFile, manifest.Pos{}, fmt.Sprintf("helm: values for chart %s: %v", dir, err))
	}
	cfg := action.NewConfiguration()
	cfg.SetLogger(slog.DiscardHandler)
	inst := action.NewInstall(cfg)
	inst.DryRunStrategy = action.DryRunClient
	inst.ReleaseName = r.opts.ReleaseName
	inst.Namespace = r.opts.Namespace
	inst.Replace = true // helm template's: no release name check
	kv, err := common.ParseKubeVersion(r.opts.KubeVersion)
	if err != nil {
		return fail(chartFile, manifest.Pos{}, fmt.Sprintf("helm: invalid --kube-version %q: %v", r.opts.KubeVersion, err))
	}
	inst.KubeVersion = kv
	res, err := inst.RunWithContext(context.Background(), chrt, vals)
	if err != nil {
		file, pos := helmErrorPlace(dir, chrt.Name(), err)
		if file == "" {
			file = chartFile
		}
		return fail(file, pos, "helm: "+oneLine(err.Error()))
	}
	rel, ok := res.(*release.Release)
	if !ok {
		return fail(chartFile, manifest.Pos{}, fmt.Sprintf("helm: unexpected release type %T", res))
	}
	stream := helmStream(rel)
	set := manifest.Parse(name, []byte(stream))
	if set.Origins == nil {
		set.Origins = map[string]manifest.Origin{}
	}
	set.Origins[name] = newHelmOrigin(dir, chrt.Name(), stream)
	return set
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
	data, err := os.ReadFile(file)
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

// templateFile turns a chart path as helm names templates
// ("web/charts/db/templates/x.yaml") into the file in dir, when it exists.
func templateFile(dir, chartName, p string) (string, bool) {
	p = path.Clean(p)
	first, rest, ok := strings.Cut(p, "/")
	if !ok || first != chartName {
		return "", false
	}
	f := filepath.Join(dir, filepath.FromSlash(rest))
	if !isRegular(f) {
		return "", false
	}
	return f, true
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
}

// helmOrigin maps a chart's rendered documents to their templates.
type helmOrigin struct {
	dir, chartName string
	docs           []helmDoc
	perSource      map[string]int

	mu   sync.Mutex
	keys map[string][][]keyLine // a template's keys, by document
}

// newHelmOrigin reads the "# Source:" comment of each document of the
// stream that manifest counts (one holding more than comments).
func newHelmOrigin(dir, chartName, stream string) *helmOrigin {
	o := &helmOrigin{dir: dir, chartName: chartName, perSource: map[string]int{}, keys: map[string][][]keyLine{}}
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
		o.docs = append(o.docs, helmDoc{source: source, index: o.perSource[source]})
		o.perSource[source]++
	}
	return o
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
	docs := o.templateKeys(file)
	var keys []keyLine
	doc := 0
	if n := o.perSource[d.source]; len(nonEmpty(docs)) == n {
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

func (o *helmOrigin) templateKeys(file string) [][]keyLine {
	o.mu.Lock()
	defer o.mu.Unlock()
	if k, ok := o.keys[file]; ok {
		return k
	}
	data, err := os.ReadFile(file)
	var k [][]keyLine
	if err == nil {
		k = scanKeys(string(data))
	}
	o.keys[file] = k
	return k
}
