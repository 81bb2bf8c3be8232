package helper

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-workload/kubectl-workload/internal/boundedread"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// ValuesBesideChart refuses a Helm values file named as an input beside a
// chart (lint chart -f values-ha.yaml, lint chart values-ha.yaml): it is
// not a manifest, and the chart would be linted with its default values,
// silently. A file is taken for a values file when its first document is
// a mapping with neither apiVersion nor kind and it is in no chart.
func ValuesBesideChart(paths []string) error {
	var chart string
	for _, p := range paths {
		if isFile(filepath.Join(p, "Chart.yaml")) {
			chart = p
			break
		}
	}
	if chart == "" {
		return nil
	}
	for _, p := range paths {
		switch filepath.Base(p) {
		case "kustomization.yaml", "kustomization.yml", "Kustomization":
			continue
		}
		if p == "-" || !isFile(p) || inChart(p) {
			continue
		}
		data, err := boundedread.ReadFile(p, manifest.MaxFileSize)
		if err != nil {
			continue // reported when it is loaded
		}
		first, _, _ := strings.Cut(string(data), "\n---")
		var doc map[string]any
		if yaml.Unmarshal([]byte(first), &doc) != nil || len(doc) == 0 {
			continue
		}
		if _, ok := doc["apiVersion"]; ok {
			continue
		}
		if _, ok := doc["kind"]; ok {
			continue
		}
		return fmt.Errorf("%s is a Helm values file (no apiVersion, no kind), given as an input beside the chart %s: "+
			"give it with --values %s (as helm does; -f is --filename here, as in kubectl)", p, chart, p)
	}
	return nil
}

// inChart reports whether the file p is in a chart directory (its own
// values.yaml, a template), up to the top of the file system.
func inChart(p string) bool {
	abs, err := filepath.Abs(p)
	if err != nil {
		return false
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if isFile(filepath.Join(d, "Chart.yaml")) {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

func isFile(name string) bool {
	info, err := os.Stat(name)
	return err == nil && info.Mode().IsRegular()
}

// AppendValues is a repeatable string flag that appends every value, so
// that two flags sharing a list (--values and its old name --helm-values)
// keep the order of the command line.
type AppendValues struct{ P *[]string }

func (a AppendValues) String() string {
	if a.P == nil {
		return "[]"
	}
	return "[" + strings.Join(*a.P, ",") + "]"
}

func (a AppendValues) Set(v string) error {
	*a.P = append(*a.P, v)
	return nil
}

func (AppendValues) Type() string { return "stringArray" }

// HasValues reports whether o sets any chart value: a values file or one of
// the --set flags.
func (o Options) HasValues() bool {
	return len(o.ValuesFiles)+len(o.Set)+len(o.SetString)+len(o.SetJSON)+len(o.SetFile)+len(o.SetLiteral) > 0
}

// WithValues returns o with its values replaced by files and set (the old
// side's own, --from-values and --from-set): the other --set flags cleared.
func (o Options) WithValues(files, set []string) Options {
	o.ValuesFiles, o.Set, o.SetString, o.SetJSON, o.SetFile, o.SetLiteral = files, set, nil, nil, nil, nil
	return o
}
