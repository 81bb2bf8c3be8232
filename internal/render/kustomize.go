package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-workload/kubectl-workload/internal/boundedread"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// kustomizationNames are the file names kustomize reads in a directory, in
// its order.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// readKust reads the kustomization file in dir.
func readKust(dir string) (string, *types.Kustomization, error) {
	for _, n := range kustomizationNames {
		f := filepath.Join(dir, n)
		data, err := readInput(f)
		if err != nil {
			continue
		}
		var k types.Kustomization // kustomize's own type; a Component's fields are the same
		if err := sigsyaml.Unmarshal(data, &k); err != nil {
			return f, nil, fmt.Errorf("read %s: %w", f, err)
		}
		return f, &k, nil
	}
	return "", nil, fmt.Errorf("no kustomization file in %s", dir)
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// originFS is the disk, except that the kustomization built asks for
// origin annotations (buildMetadata: [originAnnotations]), which say which
// file each resource came from.
type originFS struct {
	filesys.FileSystem
	root string // the kustomization file built, absolute
}

func (f originFS) ReadFile(path string) ([]byte, error) {
	// A FIFO or a device among the resources would hang the build or
	// fill memory: only regular files within the limit are read.
	if err := boundedread.Check(path, manifest.MaxFileSize); err != nil {
		return nil, err
	}
	data, err := f.FileSystem.ReadFile(path)
	if err != nil {
		return data, err
	}
	if err := withinAliasLimit(path, data); err != nil {
		return nil, err
	}
	if filepath.Clean(path) != f.root {
		return data, nil
	}
	var m map[string]any
	if err := sigsyaml.Unmarshal(data, &m); err != nil || m == nil {
		return data, nil // kustomize reports it
	}
	md, _ := m["buildMetadata"].([]any)
	for _, v := range md {
		if v == "originAnnotations" {
			return data, nil
		}
	}
	m["buildMetadata"] = append(md, "originAnnotations")
	out, err := sigsyaml.Marshal(m)
	if err != nil {
		return data, nil
	}
	return out, nil
}

// withinAliasLimit refuses a file whose YAML aliases expand past
// manifest.MaxAliasExpansion (an alias bomb), as lint refuses it as a file
// of its own: kustomize's reader expands them all. Only a file holding both
// an anchor and an alias is parsed for this.
func withinAliasLimit(path string, data []byte) error {
	if !bytes.Contains(data, []byte("&")) || !bytes.Contains(data, []byte("*")) {
		return nil
	}
	for _, p := range manifest.Parse(path, data).Problems {
		if p.Kind == manifest.LimitExceeded {
			return fmt.Errorf("%s:%d: %s", path, p.Pos.Line, p.Message)
		}
	}
	return nil
}

// kustomize builds the kustomization in dir as kustomize build does, with
// origin annotations to map objects back to their resource files (the
// annotations are removed again before linting).
func (r *Renderer) kustomize(dir string) rendered {
	name := manifest.RenderedName(dir, manifest.Kustomization)
	fail := func(file string, line int, msg string) rendered {
		return rendered{failed: &manifest.Set{Files: 1, Problems: []manifest.Problem{{Source: manifest.Source{File: file},
			Kind: manifest.Unparsable, Pos: manifest.Pos{Line: max(line, 1), Column: 1}, Message: msg}}}}
	}
	kf, k, err := readKust(dir)
	if err != nil {
		return fail(dir, 1, "kustomize: "+err.Error())
	}
	switch c := checkKustomization(dir); {
	case c.remote != nil:
		r := c.remote
		return rendered{failed: &manifest.Set{Files: 1, Problems: []manifest.Problem{{Source: manifest.Source{File: r.file},
			Kind: manifest.Remote, Pos: manifest.Pos{Line: max(r.line, 1), Column: 1}, Message: fmt.Sprintf(
				"kustomize: %s names %q, which is remote: kustomize would fetch it (git or http), and rendering reads nothing but the input's own files; vendor it as a local file or directory, or lint the output of kustomize build",
				r.field, r.value)}}}}
	case c.builds > 0:
		return fail(c.file, 1, fmt.Sprintf("kustomize: building this overlay builds more than %d kustomizations (each base once per reference to it); it is not built",
			maxKustomizeBuilds))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fail(kf, 1, fmt.Sprintf("kustomize: %s: %v", dir, err))
	}
	absKF, _ := filepath.Abs(kf)
	fs := originFS{FileSystem: filesys.MakeFsOnDisk(), root: filepath.Clean(absKF)}
	kopts := krusty.MakeDefaultOptions()
	if r.opts.LoadRestrictor == helper.LoadRestrictionsNone {
		kopts.LoadRestrictions = types.LoadRestrictionsNone
	}
	m, err := krusty.MakeKustomizer(kopts).Run(fs, abs)
	if err != nil {
		return fail(kf, errorLine(kf, err.Error()), "kustomize: "+oneLine(err.Error()))
	}
	var docs []kustDoc
	for _, res := range m.Resources() {
		d := kustDoc{kind: res.GetKind(), name: res.GetName()}
		if o, err := res.GetOrigin(); err == nil && o != nil && o.Repo == "" {
			switch {
			case o.Path != "":
				d.file = filepath.Join(dir, filepath.FromSlash(o.Path))
			case o.ConfiguredIn != "":
				// A generated object (configMapGenerator): the
				// kustomization that configures it.
				d.file, d.generated = filepath.Join(dir, filepath.FromSlash(o.ConfiguredIn)), true
			}
		}
		docs = append(docs, d)
	}
	keep := false
	for _, b := range k.BuildMetadata {
		keep = keep || b == "originAnnotations"
	}
	if !keep {
		if err := m.RemoveOriginAnnotations(); err != nil {
			return fail(kf, 1, "kustomize: "+oneLine(err.Error()))
		}
	}
	out, err := m.AsYaml()
	if err != nil {
		return fail(kf, 1, "kustomize: "+oneLine(err.Error()))
	}
	return rendered{name: name, stream: out, origin: &kustOrigin{docs: docs, patches: collectPatches(dir, map[string]bool{}), keys: map[string][][]keyLine{}}}
}

// quoted finds the names kustomize quotes in its errors.
var quoted = regexp.MustCompile(`'([^'\s]+)'`)

// errorLine returns the line of the kustomization that names something a
// build error quotes (a missing resource), or 1.
func errorLine(kf, msg string) int {
	data, err := readInput(kf)
	if err != nil {
		return 1
	}
	for _, m := range quoted.FindAllStringSubmatch(msg, -1) {
		for i, l := range strings.Split(string(data), "\n") {
			if t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- ")); t == m[1] || strings.HasSuffix(t, ": "+m[1]) {
				return i + 1
			}
		}
	}
	return 1
}

// kustDoc is one built object and the resource file it came from.
type kustDoc struct {
	kind, name, orgName string
	file                string
	// generated is set when file is the kustomization whose generator
	// made the object.
	generated bool
}

// kustPatch is a patch file, in the order kustomize applies it.
type kustPatch struct {
	file   string
	json   bool // a JSON 6902 patch
	target *types.Selector
	// entry is set for a kustomization's images or replicas entry (file
	// is then the kustomization): the image or object name, and the line.
	entry     string
	images    bool
	entryLine int
	// inline is the text of a patch written in the kustomization (file),
	// and inlineLine the file line before its first line.
	inline     string
	inlineLine int
}

// collectPatches lists the patch files of the kustomization in dir and of
// those it builds on, in the order kustomize applies them: a base's (its
// resources') patches first, then its components', then its own.
func collectPatches(dir string, seen map[string]bool) []kustPatch {
	abs, err := filepath.Abs(dir)
	if err != nil || seen[abs] || len(seen) > 1000 {
		return nil
	}
	seen[abs] = true
	_, k, err := readKust(dir)
	if err != nil {
		return nil
	}
	var out []kustPatch
	//lint:ignore SA1019 users' kustomizations still use the deprecated keys, and kustomize still reads them
	for _, r := range concat(k.Resources, k.Bases, k.Components) {
		sub := filepath.Join(dir, r)
		if info, err := os.Stat(sub); err == nil && info.IsDir() {
			out = append(out, collectPatches(sub, seen)...)
		}
	}
	kf, _, _ := readKust(dir)
	inline := inlinePatchLines(kf)
	for i, p := range k.Patches {
		switch {
		case p.Path != "":
			out = append(out, kustPatch{file: filepath.Join(dir, p.Path), target: p.Target, json: isJSONPatch(filepath.Join(dir, p.Path))})
		case p.Patch != "" && i < len(inline):
			// An inline patch: its text, at its place in the kustomization.
			out = append(out, kustPatch{file: kf, target: p.Target, inline: p.Patch, inlineLine: inline[i],
				json: strings.HasPrefix(strings.TrimSpace(p.Patch), "-") || strings.HasPrefix(strings.TrimSpace(p.Patch), "[")})
		}
	}
	//lint:ignore SA1019 users' kustomizations still use the deprecated keys, and kustomize still reads them
	for _, psm := range k.PatchesStrategicMerge {
		if p := string(psm); !strings.Contains(p, "\n") && !strings.Contains(p, ":") {
			out = append(out, kustPatch{file: filepath.Join(dir, p)})
		}
	}
	//lint:ignore SA1019 users' kustomizations still use the deprecated keys, and kustomize still reads them
	for _, p := range k.PatchesJson6902 {
		if p.Path != "" {
			out = append(out, kustPatch{file: filepath.Join(dir, p.Path), target: p.Target, json: true})
		}
	}
	// kustomize runs the replica count and image transformers after the
	// patches (target/kusttarget.go, configureBuiltinTransformers).
	lines := entryLines(kf)
	for i, r := range k.Replicas {
		out = append(out, kustPatch{file: kf, entry: r.Name, entryLine: lines["replicas"][i]})
	}
	for i, im := range k.Images {
		out = append(out, kustPatch{file: kf, entry: im.Name, images: true, entryLine: lines["images"][i]})
	}
	return out
}

// inlinePatchLines returns, for each item of a kustomization's patches, the
// file line before the first line of its inline patch text (0 for an item
// without one).
func inlinePatchLines(file string) []int {
	data, err := readInput(file)
	if err != nil {
		return nil
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := root.Content[0]
	var out []int
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "patches" || m.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range m.Content[i+1].Content {
			line := 0
			for j := 0; item.Kind == yaml.MappingNode && j+1 < len(item.Content); j += 2 {
				if v := item.Content[j+1]; item.Content[j].Value == "patch" {
					line = v.Line - 1
					if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
						line = v.Line // the text starts on the line after | or >
					}
				}
			}
			out = append(out, line)
		}
	}
	return out
}

// entryLines returns the lines of the items of a kustomization's images
// and replicas lists.
func entryLines(file string) map[string][]int {
	out := map[string][]int{}
	data, err := readInput(file)
	if err != nil {
		return out
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return out
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		key := m.Content[i].Value
		if (key == "images" || key == "replicas") && m.Content[i+1].Kind == yaml.SequenceNode {
			for _, item := range m.Content[i+1].Content {
				out[key] = append(out[key], item.Line)
			}
		}
	}
	return out
}

// isJSONPatch reports whether a patch file holds a JSON 6902 patch (a list
// of operations) rather than a strategic merge patch (an object).
func isJSONPatch(file string) bool {
	data, err := readInput(file)
	if err != nil {
		return false
	}
	var v any
	if err := sigsyaml.Unmarshal(data, &v); err != nil {
		return false
	}
	_, ok := v.([]any)
	return ok
}

// kustOrigin maps an overlay's built objects back to the patch that last
// set a field, else to the resource file.
type kustOrigin struct {
	docs    []kustDoc
	patches []kustPatch

	mu   sync.Mutex
	keys map[string][][]keyLine
}

// Locate implements manifest.Origin.
func (o *kustOrigin) Locate(document int, field string) (manifest.Location, bool) {
	if document < 0 || document >= len(o.docs) {
		return manifest.Location{}, false
	}
	d := o.docs[document]
	if d.generated {
		key := map[string]string{"ConfigMap": "configMapGenerator", "Secret": "secretGenerator"}[d.kind]
		line := 1
		if key != "" {
			line = keyLineIn(d.file, key)
		}
		return manifest.Location{File: d.file, Pos: manifest.Pos{Line: line, Column: 1}}, true
	}
	obj := resourceObject(d)
	if obj != nil {
		// The name the resource file gives, which the patches name: the
		// build's name has its prefixes and suffixes.
		d.orgName = obj.Name
	}
	if field != "" {
		inResource, image := false, ""
		if obj != nil {
			_, inResource = obj.Position(field)
			if imageField.MatchString(field) {
				image = stringAt(obj.JSON, field)
			}
		}
		for i := len(o.patches) - 1; i >= 0; i-- {
			if loc, ok := o.inPatch(o.patches[i], d, field, inResource, image); ok {
				return loc, true
			}
		}
	}
	if d.file == "" {
		return manifest.Location{}, false
	}
	if obj == nil {
		return manifest.Location{File: d.file, Pos: manifest.Pos{Line: 1, Column: 1}}, true
	}
	pos, _ := obj.Position(field)
	return manifest.Location{File: d.file, Document: obj.Document, Pos: pos}, true
}

// resourceObject finds a built object in the resource file it came from:
// the object of its kind whose name the built name holds (a prefix or suffix
// added), the longest such name winning.
func resourceObject(d kustDoc) *manifest.Object {
	if d.file == "" {
		return nil
	}
	data, err := readInput(d.file)
	if err != nil {
		return nil
	}
	var best *manifest.Object
	for _, c := range manifest.Parse(d.file, data).Objects {
		if c.Kind != d.kind || !strings.Contains(d.name, c.Name) {
			continue
		}
		if best == nil || len(c.Name) > len(best.Name) {
			best = c
		}
	}
	return best
}

// targets reports whether a patch's target (or, without one, the patch's
// own kind and name) selects the object.
func (p kustPatch) targets(d kustDoc, kind, name string) bool {
	if p.target != nil {
		if p.target.Kind != "" && p.target.Kind != d.kind {
			return false
		}
		if p.target.Name != "" {
			re, err := regexp.Compile("^(?:" + p.target.Name + ")$")
			if err != nil || !(re.MatchString(d.orgName) || re.MatchString(d.name)) {
				return false
			}
		}
		return true
	}
	return kind == d.kind && (name == d.orgName || name == d.name)
}

// inPatch finds the field in a patch that applies to the object.
func (o *kustOrigin) inPatch(p kustPatch, d kustDoc, field string, inResource bool, image string) (manifest.Location, bool) {
	if p.entry != "" || p.entryLine != 0 {
		var hit bool
		if p.images {
			hit = imageField.MatchString(field) && image != "" && imageName(image) == p.entry
		} else {
			hit = field == "spec.replicas" && (p.entry == d.orgName || p.entry == d.name)
		}
		if !hit || p.entryLine == 0 {
			return manifest.Location{}, false
		}
		return manifest.Location{File: p.file, Pos: manifest.Pos{Line: p.entryLine, Column: 3}}, true
	}
	data, err := readInput(p.file)
	if p.inline != "" {
		data, err = []byte(p.inline), nil
	}
	if err != nil {
		return manifest.Location{}, false
	}
	// at moves a place in an inline patch's text to the kustomization.
	at := func(loc manifest.Location) manifest.Location {
		if p.inline != "" {
			loc.File, loc.Document = p.file, 0
			loc.Pos.Line += p.inlineLine
			loc.Pos.Column = 1
		}
		return loc
	}
	if p.json {
		if !p.targets(d, "", "") {
			return manifest.Location{}, false
		}
		loc, ok := jsonPatchLine(p.file, data, field)
		return at(loc), ok
	}
	set := manifest.Parse(p.file, data)
	docs := o.patchKeys(p.file+"\x00"+strconv.Itoa(p.inlineLine), data)
	for i, obj := range set.Objects {
		if !p.targets(d, obj.Kind, obj.Name) || i >= len(docs) {
			continue
		}
		// The patch sets the field when it writes the field's value, or a
		// value the field is inside of, or a mapping the resource file does
		// not have; a mapping the patch passes through on the way to other
		// fields (spec.template.spec) is the resource's. A list in a strategic merge patch merges by key
		// (containers by name), so indices are not compared.
		k, exact, ok := findKey(docs[i], field)
		if ok && strings.HasSuffix(k.path, itemMarker) && !exact {
			continue // a list entry the patch merges into, not one it writes whole
		}
		if ok && (isLeaf(docs[i], k) || (exact && !inResource)) {
			return at(manifest.Location{File: p.file, Document: obj.Document, Pos: manifest.Pos{Line: k.line, Column: k.col}}), true
		}
	}
	return manifest.Location{}, false
}

// isLeaf reports whether no key of the document is under k: k's value is
// written whole (a scalar, a list, a template action).
func isLeaf(keys []keyLine, k keyLine) bool {
	for _, o := range keys {
		if strings.HasPrefix(o.path, k.path+"\x00") {
			return false
		}
	}
	return true
}

func (o *kustOrigin) patchKeys(file string, data []byte) [][]keyLine {
	o.mu.Lock()
	defer o.mu.Unlock()
	if k, ok := o.keys[file]; ok {
		return k
	}
	k := nonEmpty(scanKeys(string(data)))
	o.keys[file] = k
	return k
}

// jsonPatchLine finds the operation of a JSON 6902 patch whose path is the
// field or one of its ancestors (an "add" of a whole container sets its
// image), the last such operation winning.
func jsonPatchLine(file string, data []byte, field string) (manifest.Location, bool) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.SequenceNode {
		return manifest.Location{}, false
	}
	want := manifest.SplitFieldPath(field)
	var best *yaml.Node
	for _, op := range root.Content[0].Content {
		if op.Kind != yaml.MappingNode {
			continue
		}
		var opName, path string
		var pathNode *yaml.Node
		for j := 0; j+1 < len(op.Content); j += 2 {
			switch op.Content[j].Value {
			case "op":
				opName = op.Content[j+1].Value
			case "path":
				path, pathNode = op.Content[j+1].Value, op.Content[j]
			}
		}
		if opName == "remove" || opName == "test" || pathNode == nil {
			continue
		}
		segs := pointerSegments(path)
		if len(segs) == 0 || len(segs) > len(want) {
			continue
		}
		match := true
		for i, s := range segs {
			if s != want[i] && !(s == "-" && isIndex(want[i])) {
				match = false
				break
			}
		}
		if match {
			best = pathNode
		}
	}
	if best == nil {
		return manifest.Location{}, false
	}
	return manifest.Location{File: file, Pos: manifest.Pos{Line: best.Line, Column: best.Column}}, true
}

// imageField matches the path of a container's image.
var imageField = regexp.MustCompile(`(?:^|\.)(?:containers|initContainers|ephemeralContainers)\[\d+\]\.image$`)

// stringAt returns the string at a field path of an object's JSON, or "".
func stringAt(js []byte, path string) string {
	var v any
	if json.Unmarshal(js, &v) != nil {
		return ""
	}
	for _, seg := range manifest.SplitFieldPath(path) {
		switch x := v.(type) {
		case map[string]any:
			v = x[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return ""
			}
			v = x[i]
		default:
			return ""
		}
	}
	s, _ := v.(string)
	return s
}

// imageName is an image reference without its tag or digest, as the
// images entries of a kustomization name it.
func imageName(ref string) string {
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		ref = ref[:i]
	}
	return ref
}

// pointerSegments splits a JSON pointer (RFC 6901).
func pointerSegments(p string) []string {
	if !strings.HasPrefix(p, "/") {
		return nil
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}
