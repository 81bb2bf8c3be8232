package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubectl-workload/kubectl-workload/internal/nearest"
)

// RuleRef is one rule id or glob that the file names, with where.
type RuleRef struct {
	// Key is where it is, as a message names it ("rules.disable",
	// "rules.severity", "exemptions[2].rules").
	Key string
	// Pattern is the id or glob as written.
	Pattern string
	// Line is its line in the file.
	Line int
}

// KindRef is an exemption's kind glob, with its line.
type KindRef struct {
	Pattern string
	Line    int
}

// readRefs records, from the parsed file, every rule id or glob the file
// names and every exemption's kind, with their lines, for CheckRuleIDs and
// KindWarnings. A key added to the file that names rules (such as
// rules.enable) adds its entries here.
func (f *File) readRefs(root *yaml.Node) {
	rules := topValue(root, "rules")
	for _, item := range seqItems(mapValue(rules, "disable")) {
		f.ruleRefs = append(f.ruleRefs, RuleRef{Key: "rules.disable", Pattern: item.Value, Line: item.Line})
	}
	if sev := mapValue(rules, "severity"); sev != nil && sev.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(sev.Content); i += 2 {
			k := sev.Content[i]
			f.ruleRefs = append(f.ruleRefs, RuleRef{Key: "rules.severity", Pattern: k.Value, Line: k.Line})
		}
	}
	for i, ex := range seqItems(topValue(root, "exemptions")) {
		for _, item := range seqItems(mapValue(ex, "rules")) {
			f.ruleRefs = append(f.ruleRefs, RuleRef{Key: fmt.Sprintf("exemptions[%d].rules", i), Pattern: item.Value, Line: item.Line})
		}
		if k := mapValue(ex, "kind"); k != nil && k.Kind == yaml.ScalarNode && k.Value != "" {
			f.kindRefs = append(f.kindRefs, KindRef{Pattern: k.Value, Line: k.Line})
		}
	}
}

// CheckRuleRef checks one rule id or glob that a configuration file names
// at path:line under key against the known rule ids: an id or glob that
// matches none of them is an error at that line, with the nearest known id
// when there is one. Ids of user policies (policy/...) depend on the
// policies given, and are not checked. Every key of the file that names
// rules checks its entries through this one function.
func CheckRuleRef(path string, line int, key, pattern string, known []string) error {
	if pattern == "*" || strings.HasPrefix(pattern, "policy/") {
		return nil
	}
	for _, id := range known {
		if matchName(pattern, id) {
			return nil
		}
	}
	what := "rule id"
	if strings.ContainsAny(pattern, "*?[") {
		what = "glob"
	}
	hint := ""
	if near := nearest.Nearest(pattern, known); near != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", near)
	}
	return fmt.Errorf("%s:%d: %s: %s %q matches no rule%s; kubectl workload lint --list-rules lists them", path, line, key, what, pattern, hint)
}

// CheckRuleIDs checks every rule id or glob the file names against the
// known rule ids (CheckRuleRef), and returns the errors joined, in the
// file's order.
func (f *File) CheckRuleIDs(known []string) error {
	if f == nil {
		return nil
	}
	refs := append([]RuleRef{}, f.ruleRefs...)
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].Line < refs[j].Line })
	var errs []error
	for _, r := range refs {
		if err := CheckRuleRef(f.Path, r.Line, r.Key, r.Pattern, known); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// HasRuleRefs reports whether the configuration names any rule id or glob
// (what CheckRuleIDs checks): without one, the rule ids need not be read.
func (f *File) HasRuleRefs() bool { return f != nil && len(f.ruleRefs) > 0 }

// KindWarnings returns a warning, at its line, for each exemption whose kind
// (a glob) matches none of the known kinds: such an exemption silences
// nothing lint reports.
func (f *File) KindWarnings(known []string) []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, k := range f.kindRefs {
		matched := false
		for _, kind := range known {
			if matchName(k.Pattern, kind) {
				matched = true
				break
			}
		}
		if !matched {
			hint := ""
			if near := nearest.Nearest(k.Pattern, known); near != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", near)
			}
			out = append(out, fmt.Sprintf("%s:%d: exemption kind %q is not a kind lint reports on%s, so the exemption silences nothing", f.Path, k.Line, k.Pattern, hint))
		}
	}
	return out
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func seqItems(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}
