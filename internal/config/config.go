// Package config reads .kubectl-workload.yaml: which rules run, at what
// severity, which paths are left out, the --fail-on default, and governed
// exemptions (each must say why).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubectl-workload/kubectl-workload/internal/boundedread"
)

// The rule profiles: ProfileDefault runs the rules on by default,
// ProfileAll the opt-in rules too.
const (
	ProfileDefault = "default"
	ProfileAll     = "all"
)

// Profiles are the valid values of profile and --profile.
var Profiles = map[string]bool{ProfileDefault: true, ProfileAll: true}

// FileName is the configuration file lint looks for.
const FileName = ".kubectl-workload.yaml"

// File is a parsed configuration file.
type File struct {
	// Path is where it was read from.
	Path string `yaml:"-"`
	// Rules turns rules off and changes severities.
	Rules Rules `yaml:"rules"`
	// FailOn is the default for --fail-on: error, warning or info.
	FailOn string `yaml:"failOn"`
	// Profile is the set of rules that runs: "default" (the rules on by
	// default) or "all" (every rule, the opt-in ones too); --profile
	// overrides it.
	Profile string `yaml:"profile"`
	// Exclude are globs of paths not to lint ("**" crosses directories),
	// matched against paths as given on the command line or found under a
	// named directory, and against their suffixes.
	Exclude []string `yaml:"exclude"`
	// Exemptions silence rules for the objects they name; a silenced
	// finding stays visible as suppressed.
	Exemptions []Exemption `yaml:"exemptions"`
	// CustomWorkloads name where custom resources of a group and kind hold
	// pod templates, whose pods get the pod-level rules and the Pod
	// Security checks (see docs/custom-workloads.md). An entry replaces
	// the built-in paths of its group and kind.
	CustomWorkloads []CustomWorkload `yaml:"customWorkloads"`

	// ruleRefs and kindRefs are the rule ids and globs, and the exemption
	// kinds, the file names, with their lines (see CheckRuleIDs).
	ruleRefs []RuleRef
	kindRefs []KindRef
	// excludes indexes Exclude (see ExcludedBy); Load builds it.
	excludes *excludeIndex
}

// Rules are rule settings.
type Rules struct {
	// Disable lists rule ids (globs such as "kind/*", or "*" for all) that
	// do not run.
	Disable []string `yaml:"disable"`
	// Severity overrides a rule's severity: id → error|warning|info.
	Severity map[string]string `yaml:"severity"`
	// Enable lists opt-in rules (ids or globs, such as "pss/restricted")
	// that run; rules on by default need no entry.
	Enable []string `yaml:"enable"`
	// Enforce lists rules (ids or globs, such as "pss/*") that ignore
	// annotations and exemptions cannot silence.
	Enforce []string `yaml:"enforce"`
}

// Exemption silences rules for the objects it matches. Kind, Namespace and
// Name are globs; an empty one matches anything, but one of them must be set.
type Exemption struct {
	// Rules are rule ids or globs; empty means every rule.
	Rules     []string `yaml:"rules"`
	Kind      string   `yaml:"kind"`
	Namespace string   `yaml:"namespace"`
	Name      string   `yaml:"name"`
	// Containers, when set, limit the exemption to findings about these
	// containers (names or globs, such as an injected istio-proxy).
	Containers []string `yaml:"containers"`
	// Reason is required: exemptions are governed, not silent.
	Reason string `yaml:"reason"`
	// Line is the exemption's line in the file.
	Line int `yaml:"-"`
}

// CustomWorkload says where the custom resources of one group and kind
// hold pod templates (core/v1 PodTemplateSpec).
type CustomWorkload struct {
	// APIGroup is the resource's API group ("argoproj.io"), without its
	// version; Kind its kind ("Rollout").
	APIGroup string `yaml:"apiGroup"`
	Kind     string `yaml:"kind"`
	// Templates are the field paths of its pod templates, dot-separated
	// names where "[*]" after a name stands for every item of a list:
	// "spec.template", "spec.templates[*].template".
	Templates []string `yaml:"templates"`
	// Line is the entry's line in the file.
	Line int `yaml:"-"`
}

// templatePath matches a custom workload's template path: names joined by
// dots, each optionally followed by [*].
var templatePath = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*(\[\*\])?(\.[A-Za-z_$][A-Za-z0-9_$-]*(\[\*\])?)*$`)

// Discover looks for FileName in dir and its parents, up to and including
// the root of the git work tree dir is in (the first directory holding
// .git). It returns "" when there is none.
func Discover(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find %s: %w", FileName, err)
	}
	for {
		p := filepath.Join(dir, FileName)
		if info, err := os.Lstat(p); err == nil {
			if info.Mode()&os.ModeSymlink != 0 {
				// The file comes from the repository under review: a link
				// may not lead out of it (a parse error would echo what it
				// leads to).
				if err := boundedread.Inside(workTree(dir), p); err != nil {
					return "", fmt.Errorf("find %s: %w", FileName, err)
				}
			}
			return p, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("find %s: %w", FileName, err)
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return "", nil // the top of the work tree
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// workTree returns the root of the git work tree dir is in (the first
// directory holding .git, dir itself included), or dir when there is none.
func workTree(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// MaxFileSize is the largest configuration file read, in bytes; a
// configuration of every rule with a thousand exemptions is some 200 kB.
const MaxFileSize = 1 << 20

var severities = map[string]bool{"error": true, "warning": true, "info": true}

// Load reads and checks a configuration file. Errors name the file and the
// line: unknown keys, wrong types, bad severities, and exemptions without a
// reason.
//
// Only a regular file of at most MaxFileSize bytes is read: a FIFO, a device
// or a socket (or a link to one) is an error naming it.
func Load(path string) (*File, error) {
	data, err := boundedread.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	f := &File{Path: path}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil {
		if errors.Is(err, io.EOF) {
			return f, nil // an empty file
		}
		return nil, fmt.Errorf("%s: %s", path, yamlErrorText(err))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %s", path, yamlErrorText(err))
	}
	lines := exemptionLines(&root)
	workloadLines := listLines(&root, "customWorkloads")
	f.readRefs(&root)
	var errs []error
	if f.FailOn != "" && !severities[f.FailOn] {
		errs = append(errs, fmt.Errorf("%s:%d: failOn %q: want error, warning or info", path, keyLine(&root, "failOn"), f.FailOn))
	}
	if f.Profile != "" && !Profiles[f.Profile] {
		errs = append(errs, fmt.Errorf("%s:%d: profile %q: want default or all", path, keyLine(&root, "profile"), f.Profile))
	}
	ids := make([]string, 0, len(f.Rules.Severity))
	for id := range f.Rules.Severity {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if sev := f.Rules.Severity[id]; !severities[sev] {
			errs = append(errs, fmt.Errorf("%s: rules.severity[%s] = %q: want error, warning or info", path, id, sev))
		}
	}
	for i := range f.Exemptions {
		e := &f.Exemptions[i]
		if i < len(lines) {
			e.Line = lines[i]
		}
		if strings.TrimSpace(e.Reason) == "" {
			errs = append(errs, fmt.Errorf("%s:%d: exemption %d has no reason: every exemption must say why", path, e.Line, i+1))
		}
		if e.Kind == "" && e.Namespace == "" && e.Name == "" && len(e.Containers) == 0 {
			errs = append(errs, fmt.Errorf("%s:%d: exemption %d names no kind, namespace or name: it would silence every object", path, e.Line, i+1))
		}
		for _, g := range append(append(append([]string{}, e.Rules...), e.Containers...), e.Kind, e.Namespace, e.Name) {
			if err := checkNamePattern(g); err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: exemption %d: %w", path, e.Line, i+1, err))
			}
		}
	}
	for i := range f.CustomWorkloads {
		w := &f.CustomWorkloads[i]
		if i < len(workloadLines) {
			w.Line = workloadLines[i]
		}
		if w.Kind == "" {
			errs = append(errs, fmt.Errorf("%s:%d: customWorkloads entry %d names no kind", path, w.Line, i+1))
		}
		if len(w.Templates) == 0 {
			errs = append(errs, fmt.Errorf("%s:%d: customWorkloads entry %d names no templates", path, w.Line, i+1))
		}
		for _, t := range w.Templates {
			if !templatePath.MatchString(t) {
				errs = append(errs, fmt.Errorf("%s:%d: customWorkloads entry %d: template path %q: want field names joined by dots, with [*] after a list (spec.templates[*].template)",
					path, w.Line, i+1, t))
			}
		}
	}
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"disable", f.Rules.Disable}, {"enable", f.Rules.Enable}, {"enforce", f.Rules.Enforce}} {
		for _, g := range list.patterns {
			if err := checkNamePattern(g); err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: rules.%s: %w", path, keyLine(&root, "rules"), list.key, err))
			}
		}
	}
	for _, g := range f.Exclude {
		if err := checkPathPattern(g); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: exclude: %w", path, excludeLine(&root, g), err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	f.excludes = newExcludeIndex(f.Exclude)
	return f, nil
}

// yamlErrorText turns yaml.v3's "yaml: unmarshal errors:\n  line 3: field x
// not found in type config.File" into "line 3: unknown key x".
func yamlErrorText(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if m := unknownFieldRe.FindStringSubmatch(l); m != nil {
			l = fmt.Sprintf("line %s: unknown key %q", m[1], m[2])
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "; ")
}

var unknownFieldRe = regexp.MustCompile(`^line (\d+): field (\S+) not found in type`)

// exemptionLines returns the line of each item of the top-level exemptions list.
func exemptionLines(root *yaml.Node) []int { return listLines(root, "exemptions") }

// listLines returns the line of each item of a top-level list.
func listLines(root *yaml.Node, key string) []int {
	n := topValue(root, key)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var lines []int
	for _, item := range n.Content {
		lines = append(lines, item.Line)
	}
	return lines
}

func keyLine(root *yaml.Node, key string) int {
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i].Line
		}
	}
	return 1
}

func topValue(root *yaml.Node, key string) *yaml.Node {
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i+1]
		}
	}
	return nil
}

// Excluded reports whether path matches an exclude glob, as given or by
// any suffix starting at a directory boundary.
func (f *File) Excluded(path string) bool {
	_, ok := f.ExcludedBy(path)
	return ok
}

// ExcludedBy returns the first exclude glob that path matches (see
// Excluded).
func (f *File) ExcludedBy(path string) (string, bool) {
	if f == nil {
		return "", false
	}
	x := f.excludes
	if x == nil { // a File not made by Load
		x = newExcludeIndex(f.Exclude)
	}
	if i, _ := x.first(path); i >= 0 {
		return f.Exclude[i], true
	}
	return "", false
}

// Disabled reports whether a rule id is disabled.
func (f *File) Disabled(rule string) bool {
	if f == nil {
		return false
	}
	return matchAny(f.Rules.Disable, rule)
}

// Exempt returns the first exemption that silences rule for the object
// kind namespace/name.
func (f *File) Exempt(rule, kind, namespace, name string) (Exemption, bool) {
	if f == nil {
		return Exemption{}, false
	}
	match := func(glob, s string) bool {
		if glob == "" {
			return true
		}
		return matchName(glob, s)
	}
	for _, e := range f.Exemptions {
		if !match(e.Kind, kind) || !match(e.Namespace, namespace) || !match(e.Name, name) {
			continue
		}
		if len(e.Rules) == 0 {
			return e, true
		}
		if matchAny(e.Rules, rule) {
			return e, true
		}
	}
	return Exemption{}, false
}

// matchAny reports whether rule matches one of globs (name patterns, in
// which "*" crosses "/").
func matchAny(globs []string, rule string) bool {
	for _, g := range globs {
		if matchName(g, rule) {
			return true
		}
	}
	return false
}

// Enabled reports whether an opt-in rule is turned on (rules.enable).
// With the profile "all", every rule is.
func (f *File) Enabled(rule string) bool {
	return f != nil && (f.Profile == ProfileAll || matchAny(f.Rules.Enable, rule))
}

// Enforced reports whether a rule cannot be silenced (rules.enforce).
func (f *File) Enforced(rule string) bool {
	return f != nil && matchAny(f.Rules.Enforce, rule)
}

// HasExcludes reports whether the file has exclude globs: without any,
// ExcludedBy leaves out no path. Nil has none.
func (f *File) HasExcludes() bool { return f != nil && len(f.Exclude) > 0 }

// HasContainerExemptions reports whether an exemption names containers.
func (f *File) HasContainerExemptions() bool {
	if f == nil {
		return false
	}
	for _, e := range f.Exemptions {
		if len(e.Containers) > 0 {
			return true
		}
	}
	return false
}

// ExemptContainer is Exempt for a finding about one container: an
// exemption that names containers matches only findings about them, and
// one that names none matches whatever container.
func (f *File) ExemptContainer(rule, kind, namespace, name, container string) (Exemption, bool) {
	if f == nil {
		return Exemption{}, false
	}
	for i, e := range f.Exemptions {
		if len(e.Containers) > 0 && (container == "" || !matchAny(e.Containers, container)) {
			continue
		}
		one := File{Exemptions: f.Exemptions[i : i+1]}
		if _, ok := one.Exempt(rule, kind, namespace, name); ok {
			return e, true
		}
	}
	return Exemption{}, false
}

// Open reads the configuration a run uses: the file at path (--config), or
// else the one Discover finds from dir; none with disabled (--no-config),
// which contradicts a path. A nil File without an error means none.
func Open(path string, disabled bool, dir string) (*File, error) {
	if disabled {
		if path != "" {
			return nil, fmt.Errorf("--config and --no-config contradict each other")
		}
		return nil, nil
	}
	if path == "" {
		found, err := Discover(dir)
		if err != nil || found == "" {
			return nil, err
		}
		path = found
	}
	return Load(path)
}

// excludeLine returns the line of the exclude entry g in the parsed file,
// or the line of the exclude key.
func excludeLine(root *yaml.Node, g string) int {
	for _, item := range seqItems(topValue(root, "exclude")) {
		if item.Value == g {
			return item.Line
		}
	}
	return keyLine(root, "exclude")
}

// WithProfile returns a copy of f (an empty configuration when f is nil)
// whose profile is profile: --profile overrides the file's profile key. An
// unknown profile is an error naming the flag.
func (f *File) WithProfile(profile string) (*File, error) {
	if !Profiles[profile] {
		return nil, fmt.Errorf("--profile %q: want %s or %s", profile, ProfileDefault, ProfileAll)
	}
	out := File{}
	if f != nil {
		out = *f
	}
	out.Profile = profile
	return &out, nil
}
