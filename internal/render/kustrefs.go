package render

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// kustPathFields are the fields of a kustomization (kustomize's
// types.Kustomization, by their YAML names) whose values name files,
// directories or URLs somewhere inside them. kustRefs reads each of them;
// TestKustomizationFieldsClassified fails when a kustomize upgrade adds a
// field that is in neither this list nor kustPlainFields.
var kustPathFields = map[string]bool{
	"resources": true, "bases": true, "components": true, "crds": true,
	"configurations": true, "generators": true, "transformers": true, "validators": true,
	"patches": true, "patchesStrategicMerge": true, "patchesJson6902": true,
	"replacements": true, "openapi": true,
	"configMapGenerator": true, "secretGenerator": true,
	"helmGlobals": true, "helmCharts": true, "helmChartInflationGenerator": true,
}

// kustPlainFields are the kustomization fields that name no file.
var kustPlainFields = map[string]bool{
	"apiVersion": true, "kind": true, "metadata": true,
	"namePrefix": true, "nameSuffix": true, "namespace": true,
	"commonLabels": true, "labels": true, "commonAnnotations": true,
	"images": true, "imageTags": true, "replicas": true, "vars": true,
	"sortOptions": true, "generatorOptions": true, "buildMetadata": true,
}

// pathKeys are the keys, at any depth below a path field of a
// kustomization or in a generator's or transformer's configuration, whose
// scalar values (or lists of them) are file names or URLs: kustomize's
// builtin plugins' configurations (PatchTransformer's path,
// PatchStrategicMergeTransformer's paths, ReplacementTransformer's
// replacements' path, the generators' files, envs and env, the Helm
// inflator's chart home, repository and values files).
var pathKeys = map[string]bool{
	"path": true, "paths": true, "files": true, "envs": true, "env": true,
	"chartHome": true, "configHome": true, "repo": true, "chartRepoURL": true,
	"valuesFile": true, "additionalValuesFiles": true,
}

// configFields are the kustomization fields whose entries are plugin
// configurations, written inline or in a file (or built by a
// kustomization directory): the paths inside those are read too.
var configFields = map[string]bool{"generators": true, "transformers": true, "validators": true}

// dirFields are the kustomization fields whose local entries may be
// kustomization directories that kustomize builds.
var dirFields = map[string]bool{"resources": true, "bases": true, "components": true,
	"generators": true, "transformers": true, "validators": true}

// kustRef is one file, directory or URL a kustomization names.
type kustRef struct {
	file  string // the kustomization (or configuration) file naming it
	field string // the kustomization field it is under ("patches", "configMapGenerator")
	value string // as written
	line  int
}

// kustRefs lists what a kustomization file names in its path fields, in
// file order, with the line of each. Inline plugin configurations (an entry
// of transformers written as YAML) are read for their paths too.
func kustRefs(file string, data []byte) []kustRef {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := root.Content[0]
	var out []kustRef
	for i := 0; i+1 < len(m.Content); i += 2 {
		field, v := m.Content[i].Value, m.Content[i+1]
		if !kustPathFields[field] {
			continue
		}
		add := func(n *yaml.Node, line int) {
			out = append(out, kustRef{file: file, field: field, value: n.Value, line: line})
		}
		switch {
		case field == "patchesStrategicMerge":
			// Each entry is a file name or an inline patch (an object).
			for _, n := range scalars(v) {
				if !isInlineYAML(n.Value) {
					add(n, n.Line)
				}
			}
		case configFields[field]:
			for _, n := range scalars(v) {
				if !isInlineYAML(n.Value) {
					add(n, n.Line)
					continue
				}
				// An inline configuration: its paths, at the entry's line.
				for _, r := range configRefs(file, []byte(n.Value)) {
					r.field, r.line = field, n.Line
					out = append(out, r)
				}
			}
		case v.Kind == yaml.SequenceNode && v.Tag != "!!map" && allScalars(v):
			for _, n := range v.Content {
				add(n, n.Line)
			}
		default:
			walkPathKeys(v, func(_ string, n *yaml.Node) { add(n, n.Line) })
		}
	}
	return out
}

// configRefs lists the paths named in a file of plugin configurations (a
// transformer's or generator's YAML documents).
func configRefs(file string, data []byte) []kustRef {
	var out []kustRef
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for range 1000 {
		var doc yaml.Node
		if dec.Decode(&doc) != nil {
			break
		}
		walkPathKeys(&doc, func(key string, n *yaml.Node) {
			out = append(out, kustRef{file: file, field: key, value: n.Value, line: n.Line})
		})
	}
	return out
}

// notPathKeys hold text that is not read as paths: inline patches, Helm
// values, a generator's literals.
var notPathKeys = map[string]bool{"patch": true, "valuesInline": true, "literals": true}

// walkPathKeys calls fn with each scalar value of a pathKeys key at any
// depth of n, and the key ("files: [a=b.txt]" gives b.txt).
func walkPathKeys(n *yaml.Node, fn func(string, *yaml.Node)) {
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 100 {
			return
		}
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key := n.Content[i].Value
				if notPathKeys[key] {
					continue
				}
				if pathKeys[key] {
					for _, s := range scalars(n.Content[i+1]) {
						c := *s
						if _, after, ok := strings.Cut(c.Value, "="); ok && !isRemote(c.Value) {
							c.Value = after // files: [key=path]
						}
						fn(key, &c)
					}
				}
				walk(n.Content[i+1], depth+1)
			}
		}
	}
	walk(n, 0)
}

// scalars is the scalar itself, or the scalar items of a sequence.
func scalars(n *yaml.Node) []*yaml.Node {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
		return []*yaml.Node{n}
	case yaml.SequenceNode:
		var out []*yaml.Node
		for _, c := range n.Content {
			if c.Kind == yaml.ScalarNode && c.Tag != "!!null" {
				out = append(out, c)
			}
		}
		return out
	}
	return nil
}

func allScalars(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return false
		}
	}
	return true
}

// isInlineYAML reports whether an entry is YAML text (an inline patch or
// plugin configuration) rather than a file name: kustomize reads an entry
// that decodes to an object as inline.
func isInlineYAML(s string) bool {
	if !strings.ContainsAny(s, "\n:{") {
		return false
	}
	var v any
	if yaml.Unmarshal([]byte(s), &v) != nil {
		return false
	}
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// remoteRef matches what kustomize would fetch rather than read from the
// directory: anything with a scheme or an scp-style host (https:, ssh:,
// file:, gh:, host:path, in any case), a git:: prefix, a user@ prefix, a
// github.com/ host in any case, and kustomize's repository markers (?ref=,
// .git, _git/, //). It is wider than kustomize's own tests
// (api/internal/loader.IsRemoteFile, api/internal/git.NewRepoSpecFromURL)
// on purpose: a local file is never named so.
var remoteRef = regexp.MustCompile(`(?i)^(?:[a-z][a-z0-9+.-]*:|[^/]*@|[^/]*::|github\.com(?:/|$)|gitlab\.com/|bitbucket\.org/)|\?ref=|\.git(?:$|[/?])|(?:^|/)_git/|//`)

// isRemote reports whether a kustomization entry names something remote.
func isRemote(s string) bool {
	return remoteRef.MatchString(strings.TrimSpace(s))
}

// maxKustomizeBuilds caps the kustomizations one overlay builds, counting
// each time a base is built (kustomize builds a base once for every
// reference to it): overlays that each name the next level twice build it
// 2^depth times.
const maxKustomizeBuilds = 1000

// kustCheck is what checkKustomization found wrong, if anything.
type kustCheck struct {
	remote *kustRef
	builds int // the builds counted, when more than maxKustomizeBuilds
	file   string
}

// checkKustomization walks the kustomization in dir and every local
// kustomization it builds on, and returns the first remote reference any of
// them names in any field (kustRefs), or, when the overlay would build more
// than maxKustomizeBuilds kustomizations, the count. Files that plugin
// configurations live in are read for the paths they name.
func checkKustomization(dir string) kustCheck {
	c := &kustChecker{builds: map[string]int{}}
	n := c.dir(dir, false, 0)
	if c.found != nil {
		return kustCheck{remote: c.found}
	}
	if n > maxKustomizeBuilds {
		kf, _, _ := readKust(dir)
		return kustCheck{builds: n, file: kf}
	}
	return kustCheck{}
}

type kustChecker struct {
	builds map[string]int // by absolute directory; -1 while being walked
	found  *kustRef
}

// dir checks the kustomization in dir and returns the number of builds it
// makes (itself and its bases', counted per reference), at most a little
// over maxKustomizeBuilds.
func (c *kustChecker) dir(dir string, configs bool, depth int) int {
	abs, err := filepath.Abs(dir)
	if err != nil || depth > 100 {
		return 1
	}
	key := fmt.Sprint(configs, "\x00", abs)
	if n, ok := c.builds[key]; ok {
		return max(n, 0) // a cycle counts nothing more: kustomize refuses it
	}
	if len(c.builds) > maxKustomizeBuilds {
		return maxKustomizeBuilds + 1
	}
	c.builds[key] = -1
	kf, _, err := readKust(dir)
	if err != nil {
		c.builds[key] = 1
		return 1
	}
	data, err := readInput(kf)
	if err != nil {
		c.builds[key] = 1
		return 1
	}
	total := 1
	for _, r := range kustRefs(kf, data) {
		if c.found != nil {
			return total
		}
		if isRemote(r.value) {
			c.found = &r
			return total
		}
		local := filepath.Join(dir, r.value)
		info, err := os.Stat(local)
		if err != nil {
			continue
		}
		switch {
		case info.IsDir() && dirFields[r.field]:
			total += c.dir(local, configs || configFields[r.field], depth+1)
		case info.Mode().IsRegular() && (configFields[r.field] || (configs && r.field == "resources")):
			cdata, err := readInput(local)
			if err != nil {
				continue
			}
			for _, cr := range configRefs(local, cdata) {
				if isRemote(cr.value) {
					c.found = &cr
					return total
				}
			}
		}
		total = min(total, maxKustomizeBuilds+1)
	}
	c.builds[key] = total
	return total
}
